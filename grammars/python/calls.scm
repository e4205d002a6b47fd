; Python calls: plain and attribute calls.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call
; A decorator named without parentheses is called with the function it decorates.
(decorator (identifier) @name) @reference.call
(decorator (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call
