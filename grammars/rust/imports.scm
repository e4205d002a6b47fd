(use_declaration) @import
(extern_crate_declaration) @import
