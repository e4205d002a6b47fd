; Go type hints (see grammars/README.md): short declarations, vars, parameters
; and receivers, struct fields and embedded types, type assertions.
; A short declaration (`x := f()`, `T{…}`, `&T{…}`, `y.(T)`) and a `var` spec are
; captured whole as `@hint.node` and read in code (src/world/project/hints.rs).
(short_var_declaration) @hint.node
(var_spec) @hint.node
(parameter_declaration name: (identifier) @hint.var type: (_) @hint.type)
(field_declaration name: (field_identifier) @hint.var type: (_) @hint.type) @hint.field
(field_declaration !name type: (_) @hint.base)
