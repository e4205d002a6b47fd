; TypeScript type hints (see grammars/README.md): declarations, parameters,
; class fields and parameter properties, `this.x = new …`, heritage.
; A declaration (`const x: T = new T()`, `= f()`, `= await f()`, `= y`), a
; parameter's type, a class field, an assignment (`this.x = new T()`, `= y`),
; a `return new T()` or `return f()` and an arrow function's unannotated
; parameters (a callback's: `core.$constructor("X", (inst, def) => …)`) are
; captured whole as `@hint.node` and read in code (src/world/project/hints.rs):
; nested patterns cost the query's compiler an analysis per node, paid by every
; process that projects a TypeScript file.
(variable_declarator) @hint.node
(required_parameter) @hint.node
(optional_parameter) @hint.node
(public_field_definition) @hint.node
(assignment_expression) @hint.node
(return_statement) @hint.node
(arrow_function) @hint.node
(class_heritage (extends_clause value: (_) @hint.base))
(class_heritage (implements_clause (_) @hint.base))
(extends_type_clause type: (_) @hint.base)
; `export { stringType as string }` without `from`: a name that stands for another.
(export_statement !source (export_clause (export_specifier name: (identifier) @hint.alias alias: (identifier) @hint.var)))
