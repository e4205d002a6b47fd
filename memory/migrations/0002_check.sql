-- The commit gate's state: the staged snapshot's manifest, cached check
-- results by content, and recorded overrides.

CREATE TABLE snapshot_entry (
    path TEXT PRIMARY KEY,
    mode TEXT NOT NULL,
    blob TEXT NOT NULL
) STRICT;

CREATE TABLE check_cache (
    key        TEXT PRIMARY KEY,
    created_ns INTEGER NOT NULL,
    result     TEXT NOT NULL
) STRICT;

CREATE TABLE commit_override (
    id       INTEGER PRIMARY KEY,
    at_ns    INTEGER NOT NULL,
    tree     TEXT NOT NULL,
    reason   TEXT NOT NULL,
    blockers TEXT NOT NULL
) STRICT;
