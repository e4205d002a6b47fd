-- The last page the session's browser showed (`nerd browse`), as the
-- snapshot nerd projected it (JSON): its facts are loaded by `nerd query`
-- and `nerd why` after the browser is gone. One row: a new snapshot replaces it.
CREATE TABLE page_snapshot (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    url      TEXT NOT NULL,
    title    TEXT NOT NULL,
    session  TEXT NOT NULL,
    taken_ns INTEGER NOT NULL,
    snapshot TEXT NOT NULL
) STRICT;
