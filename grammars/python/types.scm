; Python type hints: what a name holds, for receiver-aware call resolution.
; `@hint.var` is the name, `@hint.type` a written type, `@hint.value` the callee
; whose result it holds, `@hint.base` a base class; `@hint.field` marks an
; attribute of the enclosing class (`self.x = …`, a class-level annotation).
(assignment left: (identifier) @hint.var type: (type) @hint.type)
(assignment left: (identifier) @hint.var right: (call function: [(identifier) (attribute)] @hint.value))
; A name that stands for another, referenced and not called: `get = session.get`.
(assignment left: (identifier) @hint.var right: [(identifier) (attribute)] @hint.alias)
(typed_parameter (identifier) @hint.var type: (type) @hint.type)
(typed_default_parameter name: (identifier) @hint.var type: (type) @hint.type)
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @hint.value) alias: (as_pattern_target (identifier) @hint.var)))
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @hint.var)
  right: (call function: [(identifier) (attribute)] @hint.value)
  (#eq? @_self "self")) @hint.field
; `self.command = command`: the field holds what the name holds where it is written.
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @hint.var)
  right: (identifier) @hint.alias
  (#eq? @_self "self")) @hint.field
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @hint.var)
  type: (type) @hint.type
  (#eq? @_self "self")) @hint.field
(class_definition body: (block (expression_statement (assignment left: (identifier) @hint.var type: (type) @hint.type) @hint.field)))
(class_definition superclasses: (argument_list [(identifier) (attribute)] @hint.base))
; A decorated function, at module level or inside a function, holds what its
; outermost decorator makes: `@click.group()\ndef cli(): …` holds a `Group`.
; (Methods are left alone: `@property` and the like do not rebind a local name.)
(module (decorated_definition . (decorator [(call function: [(identifier) (attribute)] @hint.value) (identifier) @hint.value (attribute) @hint.value]) definition: (function_definition name: (identifier) @hint.var)) @hint.decorated)
(function_definition body: (block (decorated_definition . (decorator [(call function: [(identifier) (attribute)] @hint.value) (identifier) @hint.value (attribute) @hint.value]) definition: (function_definition name: (identifier) @hint.var)) @hint.decorated))
; A decorated function's first parameter holds what a decorator passes there,
; where the decorator says so (PEP 612: `f: Callable[Concatenate[Context, P], R]`).
(decorated_definition (decorator [(identifier) (attribute)] @hint.value) definition: (function_definition parameters: (parameters . (identifier) @hint.var))) @hint.passes
; What a function without a declared return type returns: `return Session()`.
(return_statement (call function: [(identifier) (attribute)] @hint.value)) @hint.return
