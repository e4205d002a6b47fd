-- Rules learned from the user: what they said ("do not add dependencies",
-- "I prefer early returns"), or what three patches they declined had in
-- common. `restriction` is the typed JSON of a restriction (there is no
-- permitting kind: a rule can only restrict); `status` is proposed, accepted
-- or declined, and only accepted rules are enforced; `origin` is `said` or
-- `declined_patches`, with the memory or the number of patches behind it.
CREATE TABLE learned_rule (
    id          INTEGER PRIMARY KEY,
    restriction TEXT NOT NULL,
    text        TEXT NOT NULL,
    origin      TEXT NOT NULL,
    memory      INTEGER,
    evidence    INTEGER NOT NULL DEFAULT 0,
    session     TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_ns  INTEGER NOT NULL,
    decided_ns  INTEGER,
    decided_by  TEXT
) STRICT;
CREATE INDEX learned_rule_by_restriction ON learned_rule(restriction);
CREATE INDEX learned_rule_by_status ON learned_rule(status, id);

-- Patches a person declined, and the restrictions each would have broken:
-- when three declined patches break the same one, a rule is proposed.
CREATE TABLE declined_patch (
    id         INTEGER PRIMARY KEY,
    session    TEXT NOT NULL,
    paths      TEXT NOT NULL,
    created_ns INTEGER NOT NULL
) STRICT;
CREATE TABLE declined_patch_breaks (
    patch       INTEGER NOT NULL REFERENCES declined_patch(id) ON DELETE CASCADE,
    restriction TEXT NOT NULL,
    PRIMARY KEY (patch, restriction)
) STRICT;
CREATE INDEX declined_patch_by_restriction ON declined_patch_breaks(restriction);
