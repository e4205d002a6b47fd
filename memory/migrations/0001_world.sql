-- The projected world: files and what tree-sitter found in them.
-- Per-file rows are keyed by `path`; the store deletes them with their file
-- (explicitly, in the same transaction: cheaper than foreign-key checks on every insert).

CREATE TABLE file (
    path      TEXT PRIMARY KEY,
    sha256    TEXT NOT NULL,
    lang      TEXT NOT NULL,
    mtime_ns  INTEGER NOT NULL,
    size      INTEGER NOT NULL,
    is_test   INTEGER NOT NULL
) STRICT;

CREATE TABLE symbol (
    id         TEXT PRIMARY KEY,
    path       TEXT NOT NULL,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    visibility TEXT NOT NULL,
    line       INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    signature  TEXT NOT NULL,
    body_hash  INTEGER NOT NULL,
    depth      INTEGER NOT NULL
) STRICT;
CREATE INDEX symbol_by_path ON symbol(path);

CREATE TABLE raw_call (
    path      TEXT NOT NULL,
    caller    TEXT NOT NULL,
    name      TEXT NOT NULL,
    qualifier TEXT,
    line      INTEGER NOT NULL
) STRICT;
CREATE INDEX raw_call_by_path ON raw_call(path);

CREATE TABLE import_binding (
    path    TEXT NOT NULL,
    module  TEXT NOT NULL,
    name    TEXT,
    binding TEXT,
    line    INTEGER NOT NULL
) STRICT;
CREATE INDEX import_binding_by_path ON import_binding(path);

CREATE TABLE parse_error (
    path    TEXT PRIMARY KEY,
    line    INTEGER NOT NULL,
    message TEXT NOT NULL
) STRICT;

CREATE TABLE chunk (
    path       TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    symbol     TEXT NOT NULL
) STRICT;
CREATE INDEX chunk_by_path ON chunk(path);

-- Resolution output: recomputed whole whenever any file changes.
CREATE TABLE call_edge (
    caller TEXT NOT NULL,
    callee TEXT NOT NULL,
    path   TEXT NOT NULL,
    line   INTEGER NOT NULL
) STRICT;
CREATE INDEX call_edge_by_path ON call_edge(path);

CREATE TABLE unresolved_call (
    caller TEXT NOT NULL,
    name   TEXT NOT NULL,
    path   TEXT NOT NULL,
    line   INTEGER NOT NULL
) STRICT;
CREATE INDEX unresolved_call_by_path ON unresolved_call(path);

CREATE TABLE test_of (
    test   TEXT NOT NULL,
    symbol TEXT NOT NULL
) STRICT;

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
