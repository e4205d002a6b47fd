-- The durable state moved to its own database (`.nerd/state.db`, schema in
-- `memory/state/`): this file is now a cache that nerd may delete and rebuild.
-- The copy into the state database happens before this migration runs.

DROP TABLE IF EXISTS session_event;
DROP TABLE IF EXISTS session;
DROP TABLE IF EXISTS file_checkpoint;
DROP TABLE IF EXISTS audit_record;
DROP TABLE IF EXISTS commit_override;
