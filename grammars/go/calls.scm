; Go calls: plain and selector (package or method) calls.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @reference.call
