; TypeScript and TSX definitions. Tests are `it`/`test` calls (`it.skip`, `test.each(table)` too) named by their first argument.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier) (string) (computed_property_name)] @name) @definition.method
(method_signature name: [(property_identifier) (private_property_identifier) (string) (computed_property_name)] @name) @definition.method
(abstract_method_signature name: [(property_identifier) (private_property_identifier) (string) (computed_property_name)] @name) @definition.method
(property_signature
  name: [(property_identifier) (private_property_identifier) (string)] @name
  type: (type_annotation (function_type))) @definition.method
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(interface_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type
(internal_module name: [(identifier) (nested_identifier) (string)] @name) @definition.module
(module name: [(identifier) (nested_identifier) (string)] @name) @definition.module
; Module-level consts, exported or not: `@module.item` keeps a match only where
; the declaration is a top-level statement or an exported one (a pattern rooted
; at `program` stays alive over the whole file).
(lexical_declaration (variable_declarator name: (identifier) @name) @definition.const) @module.item
; The function-valued members of a module-level const's object literal (`export const coerce = { string: (arg) => … }`,
; also `((arg) => …) as T`) are its methods; resolution reads such a const as a namespace (`coerce.string()`).
; (An object wrapped in `as const` or `satisfies` is not read: the nesting would double this pattern's compile cost.)
(lexical_declaration (variable_declarator value: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression) (parenthesized_expression [(arrow_function) (function_expression)]) (as_expression (parenthesized_expression [(arrow_function) (function_expression)]))]) @definition.method))) @module.item
; (The callee, `it`, `it.skip` or `test.each(table)`, is checked by callee.rs: spelled out
; here its shapes cost the query's compilation a parse-table analysis each.)
(call_expression
  function: [(identifier) (member_expression) (call_expression)] @test.callee
  arguments: (arguments . [(string (string_fragment) @name) (template_string) @name])) @definition.test
; A test whose title is computed (`test(t.input, () => …)` over a table of cases) is
; named by the title's source text; it must be followed by its function. (Only a plain
; `it`/`test`: the modifiers' alternation would cost this pattern twice its matching.)
(call_expression
  function: (identifier) @_test
  arguments: (arguments
    .
    [(identifier) (member_expression) (call_expression) (binary_expression) (subscript_expression) (ternary_expression)] @name
    .
    [(arrow_function) (function_expression)])
  (#match? @_test "^(it|test)$")) @definition.test
