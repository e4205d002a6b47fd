(import_statement) @import
