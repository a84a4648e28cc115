-- Back to 0003: its history functions and trigger, then drop what 0004 added.
DROP TRIGGER IF EXISTS memories_history_update ON memories;
CREATE OR REPLACE FUNCTION memories_history_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type,
                                content, metadata, importance, slot, expires_at)
    SELECT n.agent_id, n.id, 'create', hindsight_call(),
           nullif(current_setting('hindsight.reason', true), ''),
           n.memory_type, n.content, n.metadata, n.importance, n.slot, n.expires_at
    FROM inserted n;
    RETURN NULL;
END $$;

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
    ELSE
        act := 'update';
    END IF;
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, related_id, memory_type,
                                content, metadata, importance, slot, expires_at)
    VALUES (NEW.agent_id, NEW.id, act, hindsight_call(), why, NEW.invalidated_by, NEW.memory_type,
            NEW.content, NEW.metadata, NEW.importance, NEW.slot, NEW.expires_at);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION memories_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_history h SET content = NULL, metadata = NULL
    FROM deleted d WHERE h.agent_id = d.agent_id AND h.memory_id = d.id;
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type, importance, slot)
    SELECT d.agent_id, d.id, 'delete', hindsight_call(),
           nullif(current_setting('hindsight.reason', true), ''), d.memory_type, d.importance, d.slot
    FROM deleted d;
    RETURN NULL;
END $$;

CREATE TRIGGER memories_history_update AFTER UPDATE ON memories FOR EACH ROW
    WHEN (OLD.content IS DISTINCT FROM NEW.content OR OLD.metadata IS DISTINCT FROM NEW.metadata
          OR OLD.importance IS DISTINCT FROM NEW.importance OR OLD.tags IS DISTINCT FROM NEW.tags
          OR OLD.memory_type IS DISTINCT FROM NEW.memory_type OR OLD.slot IS DISTINCT FROM NEW.slot
          OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.shared IS DISTINCT FROM NEW.shared
          OR OLD.invalidated_at IS DISTINCT FROM NEW.invalidated_at
          OR OLD.reinforce_count IS DISTINCT FROM NEW.reinforce_count)
    EXECUTE FUNCTION memories_history_update();

ALTER TABLE memories ADD COLUMN access_count integer NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    ADD COLUMN decay_score real NOT NULL DEFAULT 1.0 CHECK (decay_score BETWEEN 0 AND 1),
    ADD COLUMN last_accessed timestamptz;
UPDATE memories m SET access_count = s.access_count, decay_score = s.decay_score, last_accessed = s.last_accessed
FROM memory_state s WHERE s.agent_id = m.agent_id AND s.id = m.id;
DROP TRIGGER IF EXISTS memory_state_update ON memories;
DROP TRIGGER IF EXISTS memory_state_insert ON memories;
DROP FUNCTION IF EXISTS memory_state_after_update(), memory_state_after_insert();
DROP TABLE IF EXISTS memory_state;
DROP TABLE IF EXISTS maintenance_runs, memories_archive;
DROP FUNCTION IF EXISTS hindsight_decay(real, integer, timestamptz, smallint, timestamptz, float8);
DROP INDEX IF EXISTS memories_expiring, memories_invalidated_by;
ALTER TABLE memories DROP COLUMN IF EXISTS consolidated_into, DROP COLUMN IF EXISTS strength;
DELETE FROM memory_history WHERE action IN ('archive', 'consolidate');
ALTER TABLE memory_history DROP CONSTRAINT memory_history_action_check;
ALTER TABLE memory_history ADD CONSTRAINT memory_history_action_check CHECK (action IN
    ('create', 'update', 'reinforce', 'invalidate', 'supersede', 'restore', 'delete'));
