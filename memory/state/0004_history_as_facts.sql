-- A session's history is kept as facts: each request's memory (its target,
-- outcome and changes) and the audit trail of every decision and action.
-- The event log kept every event's text as well, answers included, and was
-- read by nothing; it goes.
DROP TABLE IF EXISTS session_event;
