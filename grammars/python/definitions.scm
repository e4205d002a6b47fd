; Python definitions. Functions inside classes become methods.
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(expression_statement (assignment left: (identifier) @name) @definition.variable) @module.item
