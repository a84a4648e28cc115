-- 0003_write_policy: what keeps memory true over time.
--
--   dedup_key      exact-duplicate key of a live write (sha256 or keyed HMAC of the
--                  normalised content; working memories also by session). NULL for rows
--                  written by a restore (`hindsight import`), which keeps records as given.
--   slot           a named fact ("preference:dataframe_library"): at most one current
--                  memory per agent and slot; a new one supersedes the old.
--   flags          guard findings: absolute, instruction_like, low_trust, needs_review.
--   sealed         the original content and sensitive metadata, encrypted (Fernet) with
--                  HINDSIGHT_ENCRYPTION_KEY; `content` then holds the redacted form.
--   reinforce_count how often a duplicate write reinforced this memory.
--
-- memory_history: one row per create, update, reinforce, invalidate, supersede and delete,
-- written by triggers, so every write path (server, CLI, import, a DBA's UPDATE) is
-- recorded. Which call did it comes from the transaction setting hindsight.call.

ALTER TABLE memories
    ADD COLUMN dedup_key       bytea,
    ADD COLUMN slot            text CHECK (length(slot) BETWEEN 1 AND 200),
    ADD COLUMN flags           text[]  NOT NULL DEFAULT '{}',
    ADD COLUMN sealed          bytea,
    ADD COLUMN reinforce_count integer NOT NULL DEFAULT 0 CHECK (reinforce_count >= 0);

-- Eight identical concurrent writes make one row: the database refuses the other seven.
CREATE UNIQUE INDEX memories_current_dedup ON memories (agent_id, memory_type, dedup_key)
    WHERE dedup_key IS NOT NULL AND invalidated_at IS NULL;
-- One current memory per slot.
CREATE UNIQUE INDEX memories_current_slot ON memories (agent_id, slot)
    WHERE slot IS NOT NULL AND invalidated_at IS NULL;
CREATE INDEX memories_flags ON memories USING gin (flags) WHERE flags <> '{}';

-- A superseding memory and the invalidation of the old one are written in one
-- transaction; the link is checked at commit.
ALTER TABLE memories ALTER CONSTRAINT memories_agent_id_invalidated_by_fkey
    DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE memory_history (
    agent_id    text        NOT NULL,
    seq         bigint      GENERATED ALWAYS AS IDENTITY,
    memory_id   uuid        NOT NULL,
    action      text        NOT NULL CHECK (action IN
                ('create', 'update', 'reinforce', 'invalidate', 'supersede', 'restore', 'delete')),
    at          timestamptz NOT NULL DEFAULT now(),
    call        text        NOT NULL,       -- e.g. store_memory, record_interaction, import, sql
    reason      text,
    related_id  uuid,                       -- the memory that superseded this one
    memory_type text,
    content     text,                       -- as stored (redacted); NULL once deleted
    metadata    jsonb,
    importance  smallint,
    slot        text,
    expires_at  timestamptz,
    PRIMARY KEY (agent_id, seq)
);
CREATE INDEX memory_history_memory ON memory_history (agent_id, memory_id, seq);
CREATE INDEX memory_history_at ON memory_history (agent_id, at);

CREATE FUNCTION hindsight_call() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('hindsight.call', true), ''), 'sql')
$$;

CREATE FUNCTION memories_history_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type,
                                content, metadata, importance, slot, expires_at)
    SELECT n.agent_id, n.id, 'create', hindsight_call(),
           nullif(current_setting('hindsight.reason', true), ''),
           n.memory_type, n.content, n.metadata, n.importance, n.slot, n.expires_at
    FROM inserted n;
    RETURN NULL;
END $$;

CREATE FUNCTION memories_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- "Forget this" forgets: the memory's earlier snapshots lose their content; the trail of
-- what happened (and when, and by which call) stays.
CREATE FUNCTION memories_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_history h SET content = NULL, metadata = NULL
    FROM deleted d WHERE h.agent_id = d.agent_id AND h.memory_id = d.id;
    INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type, importance, slot)
    SELECT d.agent_id, d.id, 'delete', hindsight_call(),
           nullif(current_setting('hindsight.reason', true), ''), d.memory_type, d.importance, d.slot
    FROM deleted d;
    RETURN NULL;
END $$;

CREATE TRIGGER memories_history_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION memories_history_insert();
-- Recall's access bookkeeping and the nightly decay touch none of these columns.
CREATE TRIGGER memories_history_update AFTER UPDATE ON memories FOR EACH ROW
    WHEN (OLD.content IS DISTINCT FROM NEW.content OR OLD.metadata IS DISTINCT FROM NEW.metadata
          OR OLD.importance IS DISTINCT FROM NEW.importance OR OLD.tags IS DISTINCT FROM NEW.tags
          OR OLD.memory_type IS DISTINCT FROM NEW.memory_type OR OLD.slot IS DISTINCT FROM NEW.slot
          OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.shared IS DISTINCT FROM NEW.shared
          OR OLD.invalidated_at IS DISTINCT FROM NEW.invalidated_at
          OR OLD.reinforce_count IS DISTINCT FROM NEW.reinforce_count)
    EXECUTE FUNCTION memories_history_update();
CREATE TRIGGER memories_history_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION memories_history_delete();

-- Memories written before this revision get their creation on record.
INSERT INTO memory_history (agent_id, memory_id, action, at, call, reason, memory_type, content,
                            metadata, importance, expires_at)
SELECT agent_id, id, 'create', stored_at, 'migration 0003', 'recorded when history began',
       memory_type, content, metadata, importance, expires_at
FROM memories;
