-- Whether a precise file's sites hold every name its indexer resolved there
-- (a SCIP index: 1), or only the references of the symbols nerd asked about
-- (gopls: 0). Where every name is known, a site missing from them is one the
-- indexer had no answer for.
ALTER TABLE precise_file ADD COLUMN every_name INTEGER NOT NULL DEFAULT 0;
