(import_statement) @import
(export_statement source: (_)) @import
