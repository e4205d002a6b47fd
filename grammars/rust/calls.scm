; Rust calls: plain, method, path-qualified and turbofish calls. The callee is
; captured whole and its name, path or receiver read off its fields
; (src/world/project/callee.rs).
(call_expression function: [(identifier) (field_expression) (scoped_identifier) (generic_function)] @callee) @reference.call
; A macro's arguments are tokens to the grammar: they are parsed again as call
; arguments (`assert!(x.is_ok())`, `format!("{}", f())`) by the projection.
(macro_invocation (token_tree) @macro.args)
; A function named as a value, not called: an argument (`.map(Error::msg)`), a
; struct field's value (`Vtable { drop: object_drop::<E> }`). Code that hands
; a function on may run it.
(arguments [(identifier) (scoped_identifier) (generic_function)] @callee @reference.value)
(field_initializer value: [(identifier) (scoped_identifier) (generic_function)] @callee @reference.value)
; A macro invoked: only the project's own macros answer it (`ensure!(…)`,
; `$crate::__parse_ensure!(…)` in a transcriber).
(macro_invocation macro: [(identifier) (scoped_identifier)] @callee) @reference.macro
; What a `macro_rules!` macro expands to: its transcribers' calls are the macro's own.
(macro_rule right: (token_tree) @macro.body)
; Functions whose parameters and locals shadow the module's names.
(function_item) @function.scope
(closure_expression) @function.scope
; What binds a name in a function (src/world/locals.rs reads which part binds).
[(parameter) (let_declaration) (for_expression) (let_condition) (match_arm) (closure_parameters)] @local.binding
