-- Observed coverage (`nerd index --coverage`): which symbols each test's run
-- executed, as one tool last measured it. Replaced whole per tool run; a row
-- is used only while its test and its symbol are both still symbols.
CREATE TABLE coverage_run (
    tool TEXT PRIMARY KEY,
    finished_ns INTEGER NOT NULL,
    tests INTEGER NOT NULL
);
CREATE TABLE covers (
    tool TEXT NOT NULL,
    test TEXT NOT NULL,
    symbol TEXT NOT NULL,
    PRIMARY KEY (tool, test, symbol)
) WITHOUT ROWID;
