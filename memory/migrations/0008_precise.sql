-- The precise tier: what a language's own indexer said about the files it
-- covered, kept apart from the heuristic edges so that a heuristic re-index
-- never loses it. A file's rows are used only while its content is what the
-- indexer saw, and an edge only while its callee is still a symbol.
CREATE TABLE precise_file (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    indexer TEXT NOT NULL
);
CREATE TABLE precise_call (
    caller TEXT NOT NULL,
    callee TEXT NOT NULL,
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    callee_path TEXT NOT NULL
);
CREATE INDEX precise_call_by_path ON precise_call(path);
CREATE TABLE precise_site (
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    name TEXT NOT NULL
);
CREATE INDEX precise_site_by_path ON precise_site(path);
CREATE TABLE precise_test_link (
    path TEXT NOT NULL,
    test TEXT NOT NULL,
    symbol TEXT NOT NULL
);
CREATE INDEX precise_test_link_by_path ON precise_test_link(path);
-- Symbols of a covered file whose references the indexer could not give.
CREATE TABLE precise_unanswered (
    path TEXT NOT NULL,
    symbol TEXT NOT NULL
);
CREATE INDEX precise_unanswered_by_path ON precise_unanswered(path);
