-- nerd's durable state (`.nerd/state.db`): what cannot be recomputed from the
-- files. nerd never deletes or rewrites this database; a damaged one stops the
-- commands that need it (`nerd doctor` says what is recoverable).

-- The audit trail: append-only, hash-chained records of what the router
-- decided and did. The (length, head) checkpoint lives outside the workspace
-- ($XDG_STATE_HOME/nerd/audit) so that truncating this table is detected.
CREATE TABLE audit_record (
    seq   INTEGER PRIMARY KEY,
    at_ns INTEGER NOT NULL,
    body  TEXT NOT NULL,
    prev  TEXT NOT NULL,
    hash  TEXT NOT NULL
) STRICT;

-- What a router write or delete replaced (`existed`, `content`), and what it
-- left (`after_state`: 0 unknown, for checkpoints older than this schema;
-- 1 written with `after` as content; 2 deleted), so `nerd undo` restores a file
-- only while it still holds exactly what nerd left there.
CREATE TABLE file_checkpoint (
    id          INTEGER PRIMARY KEY,
    audit       INTEGER NOT NULL,
    turn        TEXT,
    path        TEXT NOT NULL,
    existed     INTEGER NOT NULL,
    content     BLOB,
    after_state INTEGER NOT NULL DEFAULT 0,
    after       BLOB,
    undone      INTEGER NOT NULL DEFAULT 0
) STRICT;

-- One conversation with the agent; `state` is the loop's resumable state as JSON.
CREATE TABLE session (
    id         TEXT PRIMARY KEY,
    created_ns INTEGER NOT NULL,
    updated_ns INTEGER NOT NULL,
    state      TEXT NOT NULL
) STRICT;

-- Every event the session emitted, in order: requests, decisions, actions, answers.
CREATE TABLE session_event (
    session TEXT NOT NULL REFERENCES session(id),
    seq     INTEGER NOT NULL,
    at_ns   INTEGER NOT NULL,
    event   TEXT NOT NULL,
    PRIMARY KEY (session, seq)
) STRICT;

-- A person's override of a blocked commit, keyed by the staged tree.
CREATE TABLE commit_override (
    id       INTEGER PRIMARY KEY,
    at_ns    INTEGER NOT NULL,
    tree     TEXT NOT NULL,
    reason   TEXT NOT NULL,
    blockers TEXT NOT NULL
) STRICT;
