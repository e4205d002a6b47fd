; Rust definitions. Functions inside impl or trait blocks become methods.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name) @definition.variable
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.function

; An impl block qualifies its methods with the implemented type.
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  (reference_type type: [(type_identifier) @name (generic_type type: (type_identifier) @name)])
]) @scope
; The attributes before an item: `#[test]` and its kin make a function a test (read in code).
(attribute_item) @attribute
