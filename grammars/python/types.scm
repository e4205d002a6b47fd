; Python type hints: what a name holds, for receiver-aware call resolution.
; `@hint.var` is the name, `@hint.type` a written type, `@hint.base` a base
; class. An assignment (`x: T`, `x = f()`, `x = y`, the same of `self.x`, a
; class-level annotation), a `with … as x`, a decorated function and a
; `return f()` are captured whole as `@hint.node` and read in code
; (src/world/project/hints.rs): nested patterns cost the query's compiler an
; analysis per node, paid by every process that projects a Python file.
(assignment) @hint.node
(with_item) @hint.node
(decorated_definition) @hint.node
(return_statement) @hint.node
(typed_parameter (identifier) @hint.var type: (type) @hint.type)
(typed_default_parameter name: (identifier) @hint.var type: (type) @hint.type)
(class_definition superclasses: (argument_list [(identifier) (attribute)] @hint.base))
