; Rust calls: plain, method, path-qualified and turbofish calls.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @qualifier name: (identifier) @name))) @reference.call
; A macro's arguments are tokens to the grammar: they are parsed again as call
; arguments (`assert!(x.is_ok())`, `format!("{}", f())`) by the projection.
(macro_invocation (token_tree) @macro.args)
; A function named as a value, not called: an argument (`.map(Error::msg)`), a
; struct field's value (`Vtable { drop: object_drop::<E> }`). Code that hands
; a function on may run it.
(arguments (identifier) @name @reference.value)
(arguments (scoped_identifier path: (_) @qualifier name: (identifier) @name) @reference.value)
(arguments (generic_function function: (identifier) @name) @reference.value)
(arguments (generic_function function: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.value)
(field_initializer value: (identifier) @name @reference.value)
(field_initializer value: (scoped_identifier path: (_) @qualifier name: (identifier) @name) @reference.value)
(field_initializer value: (generic_function function: (identifier) @name) @reference.value)
(field_initializer value: (generic_function function: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.value)
; A macro invoked: only the project's own macros answer it (`ensure!(…)`,
; `$crate::__parse_ensure!(…)` in a transcriber).
(macro_invocation macro: (identifier) @name) @reference.macro
(macro_invocation macro: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.macro
; What a `macro_rules!` macro expands to: its transcribers' calls are the macro's own.
(macro_rule right: (token_tree) @macro.body)
; Functions whose parameters and locals shadow the module's names.
(function_item) @function.scope
(closure_expression) @function.scope
