; Rust type hints (see grammars/README.md): locals, parameters, struct fields
; and the traits an impl block implements.
(let_declaration pattern: (identifier) @hint.var type: (_) @hint.type)
(let_declaration pattern: (identifier) @hint.var value: (call_expression function: [(identifier) (scoped_identifier) (field_expression)] @hint.value))
(let_declaration pattern: (identifier) @hint.var value: (try_expression (call_expression function: [(identifier) (scoped_identifier) (field_expression)] @hint.value)))
; `let (a, mut b) = f();`: each name holds its element of the tuple `f` returns.
(let_declaration pattern: (tuple_pattern [(identifier) @hint.var (mut_pattern (identifier) @hint.var)]) @hint.tuple value: (call_expression function: [(identifier) (scoped_identifier) (field_expression)] @hint.value))
(let_declaration pattern: (identifier) @hint.var value: (struct_expression name: (_) @hint.type))
(let_declaration pattern: (identifier) @hint.var value: (reference_expression value: (struct_expression name: (_) @hint.type)))
(parameter pattern: (identifier) @hint.var type: (_) @hint.type)
(field_declaration name: (field_identifier) @hint.var type: (_) @hint.type) @hint.field
(impl_item trait: (_) @hint.base)
