; Python calls: plain and attribute calls; the callee is captured whole and
; read off its fields (src/world/project/callee.rs).
(call function: [(identifier) (attribute)] @callee) @reference.call
; A decorator named without parentheses is called with the function it decorates.
(decorator [(identifier) (attribute)] @callee) @reference.call
; A function named as a value, not called: an argument (`map(f, xs)`,
; `callback=f`), a dict or list item, an assigned or returned value. Code
; that hands a function on may run it. An attribute read anywhere (`r.text`,
; `callback=self.on_click`) names a method when its object's type has one of
; that name: a property runs, a bound method is handed on. The projection
; leaves out attributes called, decorating or written there.
(argument_list (identifier) @name @reference.value)
(keyword_argument value: (identifier) @name @reference.value)
(pair value: (identifier) @name @reference.value)
(list (identifier) @name @reference.value)
(tuple (identifier) @name @reference.value)
(assignment right: (identifier) @name @reference.value)
(return_statement (identifier) @name @reference.value)
(attribute) @callee @reference.value
; Functions whose parameters and locals shadow the module's names, and
; attributes that are no read where they stand: written, deleted (called and
; decorating ones are the callees).
(function_definition) @function.scope
(lambda) @function.scope
(assignment left: (attribute) @member.not_read)
(augmented_assignment left: (attribute) @member.not_read)
(delete_statement (attribute) @member.not_read)
; What binds a name in a function (src/world/locals.rs reads which part binds).
[(parameters) (lambda_parameters) (as_pattern_target) (assignment) (augmented_assignment) (for_statement) (for_in_clause) (named_expression)] @local.binding
