-- Delegation capability tokens: one row per spawned child, with the signed
-- token it was given (JSON), its parent's token, and what became of it.
-- Revoking a token revokes its whole subtree; a child reads this table before
-- every action, so a revocation stops it at its next step.
CREATE TABLE delegation (
    id         TEXT PRIMARY KEY,
    parent     TEXT REFERENCES delegation(id),
    specialist TEXT,
    task       TEXT NOT NULL,
    token      TEXT NOT NULL,
    issued_ns  INTEGER NOT NULL,
    expires_ns INTEGER NOT NULL,
    revoked_ns INTEGER,
    -- The child's process id while it runs (its process group), as the child recorded it.
    pid        INTEGER,
    -- issued, running, done, failed, revoked
    status     TEXT NOT NULL DEFAULT 'issued',
    -- The child's report (JSON), once it returned.
    result     TEXT
) STRICT;
CREATE INDEX delegation_by_parent ON delegation(parent);
