(import_spec) @import
