; TypeScript type hints (see grammars/README.md): declarations, parameters,
; class fields and parameter properties, `this.x = new …`, heritage.
(variable_declarator name: (identifier) @hint.var type: (type_annotation (_) @hint.type))
(variable_declarator name: (identifier) @hint.var value: (new_expression constructor: (_) @hint.value))
(variable_declarator name: (identifier) @hint.var value: (call_expression function: [(identifier) (member_expression)] @hint.value))
(variable_declarator name: (identifier) @hint.var value: (await_expression (call_expression function: [(identifier) (member_expression)] @hint.value)))
(required_parameter (accessibility_modifier) pattern: (identifier) @hint.var type: (type_annotation (_) @hint.type)) @hint.field
(required_parameter pattern: (identifier) @hint.var type: (type_annotation (_) @hint.type))
(optional_parameter pattern: (identifier) @hint.var type: (type_annotation (_) @hint.type))
(public_field_definition name: (property_identifier) @hint.var type: (type_annotation (_) @hint.type)) @hint.field
(public_field_definition name: (property_identifier) @hint.var value: (new_expression constructor: (_) @hint.value)) @hint.field
; `this.cart = cart`: the field holds what the name holds where it is written.
(expression_statement (assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @hint.var)
  right: [(new_expression constructor: (_) @hint.value) (identifier) @hint.alias]) @hint.field)
(class_heritage (extends_clause value: (_) @hint.base))
(class_heritage (implements_clause (_) @hint.base))
(extends_type_clause type: (_) @hint.base)
; A name that stands for another, referenced and not called: `const stringType
; = ZodString.create`, and `export { stringType as string }` without `from`.
(variable_declarator name: (identifier) @hint.var value: [(identifier) (member_expression)] @hint.alias)
(export_statement !source (export_clause (export_specifier name: (identifier) @hint.alias alias: (identifier) @hint.var)))
(return_statement (new_expression constructor: (_) @hint.value)) @hint.return
(return_statement (call_expression function: [(identifier) (member_expression)] @hint.value)) @hint.return
; An unannotated parameter of an arrow function passed to a call holds what the
; callee declares for it: `core.$constructor("X", (inst, def) => …)`. (The call
; is found from the function up: a pattern rooted at every call costs more.)
(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @hint.var !type))) @hint.callback
