-- Calls known to reach outside the project (builtins, standard types, dependencies).
CREATE TABLE external_call (
    caller TEXT NOT NULL,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX external_call_by_path ON external_call(path);
