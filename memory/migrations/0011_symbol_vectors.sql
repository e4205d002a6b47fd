-- Embeddings of symbols for recall by meaning (all-MiniLM-L6-v2, 384
-- little-endian f32), keyed by a hash of the text embedded (kind, name
-- words, file, signature): a symbol whose text did not change is never
-- embedded again. Derived data, rebuilt like the rest of the index.
CREATE TABLE symbol_vector (
    text_hash INTEGER PRIMARY KEY,
    vector BLOB NOT NULL
);
