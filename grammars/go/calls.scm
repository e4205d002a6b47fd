; Go calls: plain and selector (package or method) calls; the callee is
; captured whole and read off its fields (src/world/project/callee.rs).
(call_expression function: [(identifier) (selector_expression)] @callee) @reference.call
; A function named as a value, not called: an argument (`sort.Slice(x, less)`,
; `http.HandleFunc("/", s.handle)`), a composite literal's element
; (`&cobra.Command{RunE: runRoot}`), an assigned or returned value. Code that
; hands a function on may run it.
(argument_list [(identifier) (selector_expression)] @callee @reference.value)
(keyed_element value: (literal_element [(identifier) (selector_expression)] @callee @reference.value))
(literal_value (literal_element [(identifier) (selector_expression)] @callee @reference.value))
(assignment_statement right: (expression_list [(identifier) (selector_expression)] @callee @reference.value))
(return_statement (expression_list (identifier) @name @reference.value))
; Functions whose parameters and locals shadow the package's names.
[(function_declaration) (method_declaration) (func_literal)] @function.scope
; What binds a name in a function (src/world/locals.rs reads which part binds).
[(parameter_declaration) (variadic_parameter_declaration) (var_spec) (const_spec) (short_var_declaration) (range_clause)] @local.binding
