-- 0004_maintenance: what the nightly job needs.
--
-- Decay rewrites one number on most rows every night, and recall bumps counters on every
-- hit. A row of `memories` carries a 1.5 KB vector, so a page holds about four rows and an
-- UPDATE rarely fits on its page: it becomes a new tuple that every index must point to
-- again — the HNSW graph included, a graph search per row. So the numbers that change
-- often live in a narrow table of their own, memory_state (about 100 bytes a row, one
-- index, half of each page left free so updates stay on their page: HOT). memories keeps
-- what changes rarely; triggers keep the copies in memory_state true.

-- Where a memory's strength starts and recovers to (the guard starts some lower).
ALTER TABLE memories ADD COLUMN strength real NOT NULL DEFAULT 1.0 CHECK (strength BETWEEN 0 AND 1);
UPDATE memories SET strength = decay_score WHERE decay_score < 1;
-- A memory folded into a consolidated (semantic) memory points at it.
ALTER TABLE memories ADD COLUMN consolidated_into uuid;
-- Finding what a memory replaced (archive keeps supersession chains together).
CREATE INDEX memories_invalidated_by ON memories (agent_id, invalidated_by) WHERE invalidated_by IS NOT NULL;
CREATE INDEX memories_expiring ON memories (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE memory_state (
    agent_id      text        NOT NULL,
    id            uuid        NOT NULL,
    decay_score   real        NOT NULL DEFAULT 1.0 CHECK (decay_score BETWEEN 0 AND 1),
    access_count  integer     NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    last_accessed timestamptz,
    -- copies of memories' columns that decay reads (kept by triggers), so the nightly
    -- UPDATE never reads the wide table
    stored_at     timestamptz NOT NULL,
    strength      real        NOT NULL,
    importance    smallint    NOT NULL,
    current       boolean     NOT NULL,
    PRIMARY KEY (agent_id, id),
    FOREIGN KEY (agent_id, id) REFERENCES memories (agent_id, id) ON DELETE CASCADE
) WITH (fillfactor = 50);

INSERT INTO memory_state (agent_id, id, decay_score, access_count, last_accessed, stored_at, strength,
                          importance, current)
SELECT agent_id, id, decay_score, access_count, last_accessed, stored_at, strength, importance,
       invalidated_at IS NULL
FROM memories;
ALTER TABLE memories DROP COLUMN decay_score, DROP COLUMN access_count, DROP COLUMN last_accessed;

CREATE FUNCTION memory_state_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_state (agent_id, id, decay_score, stored_at, strength, importance, current)
    SELECT agent_id, id, strength, stored_at, strength, importance, invalidated_at IS NULL FROM inserted;
    RETURN NULL;
END $$;
CREATE FUNCTION memory_state_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_state
    SET strength = NEW.strength, importance = NEW.importance, current = NEW.invalidated_at IS NULL
    WHERE agent_id = NEW.agent_id AND id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER memory_state_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION memory_state_after_insert();
CREATE TRIGGER memory_state_update AFTER UPDATE ON memories FOR EACH ROW
    WHEN (OLD.strength IS DISTINCT FROM NEW.strength OR OLD.importance IS DISTINCT FROM NEW.importance
          OR (OLD.invalidated_at IS NULL) <> (NEW.invalidated_at IS NULL))
    EXECUTE FUNCTION memory_state_after_update();

-- decay = min(1, strength · exp(−λ · days since last access) + min(0.1 · access_count, 0.5))
-- with λ divided by the importance's weight (importance 5 does not decay). Days count
-- from the last access, else from when the memory was stored. A pure function of the
-- row and the moment: running twice on a day changes nothing the second time.
CREATE FUNCTION hindsight_decay(strength real, access_count integer, last_seen timestamptz,
                                importance smallint, at timestamptz, lambda float8)
RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (round(least(1.0,
        strength * exp(-lambda * (CASE importance WHEN 1 THEN 2.0 WHEN 2 THEN 1.0 WHEN 3 THEN 0.5
                                                  WHEN 4 THEN 0.25 ELSE 0.0 END)
                       * greatest(0.0, extract(epoch FROM at - last_seen)::float8 / 86400.0))
        + least(0.1 * access_count, 0.5)) * 1000.0) / 1000.0)::real
$$;

-- Archive: expired memories and memories superseded long ago, the same shape without the
-- vector index. `hindsight restore ID` moves one back. Only delete_memory deletes.
CREATE TABLE memories_archive (
    LIKE memories INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE,
    decay_score    real        NOT NULL,
    access_count   integer     NOT NULL,
    last_accessed  timestamptz,
    archived_at    timestamptz NOT NULL DEFAULT now(),
    archive_reason text        NOT NULL,
    PRIMARY KEY (agent_id, id)
);
CREATE INDEX memories_archive_agent ON memories_archive (agent_id, archived_at DESC);

CREATE TABLE maintenance_runs (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz,
    as_of       timestamptz NOT NULL,          -- the moment the run acted for (--now)
    dry_run     boolean     NOT NULL,
    trigger     text        NOT NULL,          -- cli, scheduler
    status      text        NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
    report      jsonb       NOT NULL DEFAULT '{}',
    error       text
);

-- History learns two more actions: archive (moved out, content kept) and the way back.
ALTER TABLE memory_history DROP CONSTRAINT memory_history_action_check;
ALTER TABLE memory_history ADD CONSTRAINT memory_history_action_check CHECK (action IN
    ('create', 'update', 'reinforce', 'invalidate', 'supersede', 'restore', 'delete', 'archive',
     'consolidate'));

CREATE OR REPLACE FUNCTION memories_history_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hindsight.skip_history', true) = 'on' THEN  -- an exact restore brings its own
        RETURN NULL;
    END IF;
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type,
                                content, metadata, importance, slot, expires_at)
    SELECT n.agent_id, n.id,
           CASE WHEN current_setting('hindsight.action', true) = 'restore' THEN 'restore' ELSE 'create' END,
           hindsight_call(), nullif(current_setting('hindsight.reason', true), ''),
           n.memory_type, n.content, n.metadata, n.importance, n.slot, n.expires_at
    FROM inserted n;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION memories_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hindsight.action', true) = 'archive' THEN
        INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type, importance, slot)
        SELECT d.agent_id, d.id, 'archive', hindsight_call(),
               nullif(current_setting('hindsight.reason', true), ''), d.memory_type, d.importance, d.slot
        FROM deleted d;
        RETURN NULL;
    END IF;
    -- "Forget this" forgets: earlier snapshots lose their content; the trail stays.
    UPDATE memory_history h SET content = NULL, metadata = NULL
    FROM deleted d WHERE h.agent_id = d.agent_id AND h.memory_id = d.id;
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type, importance, slot)
    SELECT d.agent_id, d.id, 'delete', hindsight_call(),
           nullif(current_setting('hindsight.reason', true), ''), d.memory_type, d.importance, d.slot
    FROM deleted d;
    RETURN NULL;
END $$;

-- A memory being consolidated is recorded too.
CREATE OR REPLACE FUNCTION memories_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    act text;
    why text := nullif(current_setting('hindsight.reason', true), '');
BEGIN
    IF OLD.invalidated_at IS NULL AND NEW.invalidated_at IS NOT NULL THEN
        act := CASE WHEN NEW.invalidated_by IS NOT NULL THEN 'supersede' ELSE 'invalidate' END;
        why := NEW.invalidation_reason;
    ELSIF OLD.invalidated_at IS NOT NULL AND NEW.invalidated_at IS NULL THEN
        act := 'restore';
    ELSIF NEW.reinforce_count > OLD.reinforce_count THEN
        act := 'reinforce';
    ELSIF OLD.consolidated_into IS NULL AND NEW.consolidated_into IS NOT NULL THEN
        act := 'consolidate';
    ELSE
        act := 'update';
    END IF;
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, related_id, memory_type,
                                content, metadata, importance, slot, expires_at)
    VALUES (NEW.agent_id, NEW.id, act, hindsight_call(), why,
            coalesce(NEW.invalidated_by, NEW.consolidated_into), NEW.memory_type,
            NEW.content, NEW.metadata, NEW.importance, NEW.slot, NEW.expires_at);
    RETURN NULL;
END $$;

DROP TRIGGER memories_history_update ON memories;
CREATE TRIGGER memories_history_update AFTER UPDATE ON memories FOR EACH ROW
    WHEN (OLD.content IS DISTINCT FROM NEW.content OR OLD.metadata IS DISTINCT FROM NEW.metadata
          OR OLD.importance IS DISTINCT FROM NEW.importance OR OLD.tags IS DISTINCT FROM NEW.tags
          OR OLD.memory_type IS DISTINCT FROM NEW.memory_type OR OLD.slot IS DISTINCT FROM NEW.slot
          OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.shared IS DISTINCT FROM NEW.shared
          OR OLD.invalidated_at IS DISTINCT FROM NEW.invalidated_at
          OR OLD.reinforce_count IS DISTINCT FROM NEW.reinforce_count
          OR OLD.consolidated_into IS DISTINCT FROM NEW.consolidated_into)
    EXECUTE FUNCTION memories_history_update();
