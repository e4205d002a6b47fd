; Go type hints (see grammars/README.md): short declarations, vars, parameters
; and receivers, struct fields and embedded types, type assertions.
(short_var_declaration left: (expression_list . (identifier) @hint.var) right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @hint.value)))
(short_var_declaration left: (expression_list . (identifier) @hint.var) right: (expression_list . (composite_literal type: (_) @hint.type)))
(short_var_declaration left: (expression_list . (identifier) @hint.var) right: (expression_list . (unary_expression operand: (composite_literal type: (_) @hint.type))))
(short_var_declaration left: (expression_list . (identifier) @hint.var) right: (expression_list . (type_assertion_expression type: (_) @hint.type)))
(var_spec name: (identifier) @hint.var type: (_) @hint.type)
(var_spec name: (identifier) @hint.var value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @hint.value)))
(var_spec name: (identifier) @hint.var value: (expression_list . (unary_expression operand: (composite_literal type: (_) @hint.type))))
(var_spec name: (identifier) @hint.var value: (expression_list . (composite_literal type: (_) @hint.type)))
(parameter_declaration name: (identifier) @hint.var type: (_) @hint.type)
(field_declaration name: (field_identifier) @hint.var type: (_) @hint.type) @hint.field
(field_declaration !name type: (_) @hint.base)
