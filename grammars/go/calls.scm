; Go calls: plain and selector (package or method) calls.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @reference.call
; A function named as a value, not called: an argument (`sort.Slice(x, less)`,
; `http.HandleFunc("/", s.handle)`), a composite literal's element
; (`&cobra.Command{RunE: runRoot}`), an assigned or returned value. Code that
; hands a function on may run it.
(argument_list (identifier) @name @reference.value)
(argument_list (selector_expression operand: (_) @qualifier field: (field_identifier) @name) @reference.value)
(keyed_element value: (literal_element (identifier) @name @reference.value))
(keyed_element value: (literal_element (selector_expression operand: (_) @qualifier field: (field_identifier) @name) @reference.value))
(literal_value (literal_element (identifier) @name @reference.value))
(literal_value (literal_element (selector_expression operand: (_) @qualifier field: (field_identifier) @name) @reference.value))
(assignment_statement right: (expression_list (identifier) @name @reference.value))
(assignment_statement right: (expression_list (selector_expression operand: (_) @qualifier field: (field_identifier) @name) @reference.value))
(return_statement (expression_list (identifier) @name @reference.value))
; Functions whose parameters and locals shadow the package's names.
[(function_declaration) (method_declaration) (func_literal)] @function.scope
