; TypeScript calls: plain, member and constructor calls. The callee is
; captured whole and its name and object read off its fields
; (src/world/project/callee.rs); a member called or constructed is no read of it.
(call_expression function: [(identifier) (member_expression)] @callee) @reference.call
(new_expression constructor: [(identifier) (member_expression)] @callee) @reference.call
; A function named as a value, not called: an argument (`xs.map(f)`), an
; object's or array's item, an assigned or returned value. Code that hands a
; function on may run it. A member read anywhere (`schema.shape`,
; `this.parse.bind(this)`) names a method when its object's type has one of
; that name: a getter runs, a method is handed on. The projection leaves out
; members called, constructed or written there.
(arguments (identifier) @name @reference.value)
(pair value: (identifier) @name @reference.value)
(object (shorthand_property_identifier) @name @reference.value)
(array (identifier) @name @reference.value)
(assignment_expression right: (identifier) @name @reference.value)
(return_statement (identifier) @name @reference.value)
(member_expression) @callee @reference.value
; Functions whose parameters and locals shadow the module's names, and
; members that are no read where they stand: written (called and constructed
; ones are the calls' callees).
[(function_declaration) (function_expression) (generator_function_declaration) (generator_function) (arrow_function) (method_definition)] @function.scope
; A method bound back onto its own property (`this.m = this.m.bind(this)`)
; hands nothing on: a call `x.m()` reaches the method already; callee.rs reads
; the binding off the `@member.assigned` assignment.
(assignment_expression left: (member_expression) @member.not_read) @member.assigned
(augmented_assignment_expression left: (member_expression) @member.not_read)
; What binds a name in a function (src/world/locals.rs reads which part binds).
[(required_parameter) (optional_parameter) (variable_declarator) (arrow_function) (for_in_statement) (catch_clause)] @local.binding
