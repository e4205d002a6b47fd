-- The audit trail: append-only, hash-chained records of what the router
-- decided and did. The (length, head) checkpoint lives outside the database
-- (.nerd/audit.checkpoint) so that truncating this table is detected.

CREATE TABLE audit_record (
    seq   INTEGER PRIMARY KEY,
    at_ns INTEGER NOT NULL,
    body  TEXT NOT NULL,
    prev  TEXT NOT NULL,
    hash  TEXT NOT NULL
) STRICT;

-- Content a router write or delete replaced, so `nerd undo` can restore it.
CREATE TABLE file_checkpoint (
    id      INTEGER PRIMARY KEY,
    audit   INTEGER NOT NULL,
    path    TEXT NOT NULL,
    existed INTEGER NOT NULL,
    content BLOB,
    undone  INTEGER NOT NULL DEFAULT 0
) STRICT;
