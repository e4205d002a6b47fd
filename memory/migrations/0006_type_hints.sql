-- What files say about the types of names (receiver-aware resolution), and
-- how each call edge was established.
CREATE TABLE type_hint (
    path TEXT NOT NULL,
    scope TEXT NOT NULL,
    var TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    field INTEGER NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX type_hint_by_path ON type_hint(path);
ALTER TABLE call_edge ADD COLUMN provenance TEXT NOT NULL DEFAULT 'exact';
