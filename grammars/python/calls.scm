; Python calls: plain and attribute calls.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call
