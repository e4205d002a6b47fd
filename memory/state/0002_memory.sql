-- Memory that survives sessions: what the user told nerd to remember, and
-- what requests learned and did (their targets, changes, outcomes, answers).
-- `kind` is one of note, preference, request, change, answer, fact; `subject`
-- is the symbol, file or test a memory is about, as the kernel names it.
-- `used_ns`/`uses` count recalls, so rehydration can decay by age and use.
CREATE TABLE memory (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,
    text       TEXT NOT NULL,
    subject    TEXT,
    source     TEXT NOT NULL,
    created_ns INTEGER NOT NULL,
    used_ns    INTEGER NOT NULL,
    uses       INTEGER NOT NULL DEFAULT 0,
    -- 1 once its embedding is stored (the partial index finds the rest at once).
    embedded   INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX memory_by_kind ON memory(kind, id);
CREATE INDEX memory_unembedded ON memory(id) WHERE embedded = 0;
CREATE INDEX memory_by_subject ON memory(subject) WHERE subject IS NOT NULL;

-- Recall by words: BM25 over the memories' text (Porter-stemmed, accents folded).
CREATE VIRTUAL TABLE memory_words USING fts5(
    text, content = 'memory', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_words_insert AFTER INSERT ON memory BEGIN
    INSERT INTO memory_words(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memory_words_delete AFTER DELETE ON memory BEGIN
    INSERT INTO memory_words(memory_words, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memory_words_update AFTER UPDATE OF text ON memory BEGIN
    INSERT INTO memory_words(memory_words, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO memory_words(rowid, text) VALUES (new.id, new.text);
END;

-- Recall by meaning: each embedded memory's all-MiniLM-L6-v2 embedding
-- (384 little-endian f32, unit length) and, in sqlite-vec, its sign bits:
-- the nearest by Hamming distance are found first, then ranked by the
-- cosine of the full vectors. A memory added while the model was absent gets
-- both the next time nerd recalls with the model present.
CREATE TABLE memory_embedding (
    memory_id INTEGER PRIMARY KEY REFERENCES memory(id) ON DELETE CASCADE,
    vector    BLOB NOT NULL
) STRICT;
CREATE VIRTUAL TABLE memory_vectors USING vec0(memory_id INTEGER PRIMARY KEY, coarse bit[384]);

-- Graph memory: `knowledge_link(A, Relation, B)` learned by sessions or told
-- by the user ("X is configured in Y", "the flaky test is T").
CREATE TABLE knowledge_link (
    id         INTEGER PRIMARY KEY,
    a          TEXT NOT NULL,
    relation   TEXT NOT NULL,
    b          TEXT NOT NULL,
    memory     INTEGER REFERENCES memory(id) ON DELETE CASCADE,
    created_ns INTEGER NOT NULL,
    UNIQUE (a, relation, b)
) STRICT;
