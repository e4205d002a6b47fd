-- A specialist's knowledge shard (`.nerd/agents/NAME.db`): the atoms its
-- research extracted from its sources, `knowledge(NAME, Concept, Kind, Text,
-- Source)`, with their words (FTS5) and, when the embedding model is present,
-- their all-MiniLM-L6-v2 embeddings. A research run replaces every atom in one
-- transaction, so a shard never holds half of two runs. Spawned children open
-- the file read-only.
CREATE TABLE knowledge (
    id      INTEGER PRIMARY KEY,
    concept TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('concept', 'api', 'pattern', 'anti_pattern', 'example')),
    text    TEXT NOT NULL,
    -- Where it was read: a path (relative to the source it came from) and line, or a URL.
    source  TEXT NOT NULL,
    -- sha256 of kind, concept and text: the same atom read twice is kept once.
    digest  TEXT NOT NULL UNIQUE
) STRICT;

CREATE VIRTUAL TABLE knowledge_words USING fts5(
    concept, text, content = 'knowledge', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER knowledge_words_insert AFTER INSERT ON knowledge BEGIN
    INSERT INTO knowledge_words(rowid, concept, text) VALUES (new.id, new.concept, new.text);
END;
CREATE TRIGGER knowledge_words_delete AFTER DELETE ON knowledge BEGIN
    INSERT INTO knowledge_words(knowledge_words, rowid, concept, text) VALUES ('delete', old.id, old.concept, old.text);
END;

-- 384 little-endian f32, unit length.
CREATE TABLE knowledge_embedding (
    knowledge_id INTEGER PRIMARY KEY REFERENCES knowledge(id) ON DELETE CASCADE,
    vector       BLOB NOT NULL
) STRICT;

-- Each research run: when, what it read, what it kept, and the digest of the
-- knowledge it left (a viva voce counts only for the knowledge it examined).
CREATE TABLE research (
    id        INTEGER PRIMARY KEY,
    at_ns     INTEGER NOT NULL,
    sources   INTEGER NOT NULL,
    files     INTEGER NOT NULL,
    atoms     INTEGER NOT NULL,
    knowledge TEXT NOT NULL
) STRICT;

-- Each viva voce: how many questions, how many passed, the pass mark, the
-- knowledge examined, and each failure as JSON.
CREATE TABLE viva (
    id        INTEGER PRIMARY KEY,
    at_ns     INTEGER NOT NULL,
    asked     INTEGER NOT NULL,
    passed    INTEGER NOT NULL,
    threshold INTEGER NOT NULL,
    knowledge TEXT NOT NULL,
    failures  TEXT NOT NULL
) STRICT;
