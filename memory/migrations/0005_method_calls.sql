-- Calls written in method syntax (`value.name()`), which only methods can answer.
ALTER TABLE raw_call ADD COLUMN method INTEGER NOT NULL DEFAULT 0;
