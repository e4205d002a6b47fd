-- The agent loop: checkpoints grouped by turn so `nerd undo` restores a whole
-- turn, and sessions that survive the process so they can be resumed.

ALTER TABLE file_checkpoint ADD COLUMN turn TEXT;

-- One conversation with the agent; `state` is the loop's resumable state as JSON.
CREATE TABLE session (
    id         TEXT PRIMARY KEY,
    created_ns INTEGER NOT NULL,
    updated_ns INTEGER NOT NULL,
    state      TEXT NOT NULL
) STRICT;

-- Every event the session emitted, in order: requests, decisions, actions, answers.
CREATE TABLE session_event (
    session TEXT NOT NULL REFERENCES session(id),
    seq     INTEGER NOT NULL,
    at_ns   INTEGER NOT NULL,
    event   TEXT NOT NULL,
    PRIMARY KEY (session, seq)
) STRICT;
