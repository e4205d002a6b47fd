-- Recall by words reads a memory's subject as well as its text, so a
-- request's memory need not repeat its target in its text to be found by
-- the target's name.
DROP TRIGGER memory_words_insert;
DROP TRIGGER memory_words_delete;
DROP TRIGGER memory_words_update;
DROP TABLE memory_words;
CREATE VIRTUAL TABLE memory_words USING fts5(
    text, subject, content = 'memory', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_words_insert AFTER INSERT ON memory BEGIN
    INSERT INTO memory_words(rowid, text, subject) VALUES (new.id, new.text, new.subject);
END;
CREATE TRIGGER memory_words_delete AFTER DELETE ON memory BEGIN
    INSERT INTO memory_words(memory_words, rowid, text, subject) VALUES ('delete', old.id, old.text, old.subject);
END;
CREATE TRIGGER memory_words_update AFTER UPDATE OF text, subject ON memory BEGIN
    INSERT INTO memory_words(memory_words, rowid, text, subject) VALUES ('delete', old.id, old.text, old.subject);
    INSERT INTO memory_words(rowid, text, subject) VALUES (new.id, new.text, new.subject);
END;
INSERT INTO memory_words(memory_words) VALUES ('rebuild');
