DROP TRIGGER IF EXISTS memories_history_delete ON memories;
DROP TRIGGER IF EXISTS memories_history_update ON memories;
DROP TRIGGER IF EXISTS memories_history_insert ON memories;
DROP FUNCTION IF EXISTS memories_history_delete(), memories_history_update(), memories_history_insert(),
    hindsight_call();
DROP TABLE IF EXISTS memory_history;
ALTER TABLE memories ALTER CONSTRAINT memories_agent_id_invalidated_by_fkey NOT DEFERRABLE;
DROP INDEX IF EXISTS memories_flags, memories_current_slot, memories_current_dedup;
ALTER TABLE memories
    DROP COLUMN IF EXISTS reinforce_count, DROP COLUMN IF EXISTS sealed, DROP COLUMN IF EXISTS flags,
    DROP COLUMN IF EXISTS slot, DROP COLUMN IF EXISTS dedup_key;
