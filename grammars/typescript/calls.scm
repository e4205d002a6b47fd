; TypeScript calls: plain, member and constructor calls.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression object: (_) @qualifier property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.call
; A function named as a value, not called: an argument (`xs.map(f)`), an
; object's or array's item, an assigned or returned value. Code that hands a
; function on may run it.
(arguments (identifier) @name @reference.value)
(arguments (member_expression object: (_) @qualifier property: (property_identifier) @name) @reference.value)
(pair value: (identifier) @name @reference.value)
(pair value: (member_expression object: (_) @qualifier property: (property_identifier) @name) @reference.value)
(object (shorthand_property_identifier) @name @reference.value)
(array (identifier) @name @reference.value)
(assignment_expression right: (identifier) @name @reference.value)
(assignment_expression right: (member_expression object: (_) @qualifier property: (property_identifier) @name) @reference.value)
(return_statement (identifier) @name @reference.value)
