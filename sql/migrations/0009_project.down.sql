DROP TABLE project_roots;
DROP VIEW active_memories;
CREATE VIEW active_memories WITH (security_invoker = true) AS
SELECT m.agent_id, m.id, m.memory_type, m.content, m.metadata, m.tags, m.importance, m.slot, m.flags,
       m.shared, m.session_id, m.created_at, m.expires_at, s.decay_score, s.access_count, s.last_accessed
FROM memories m JOIN memory_state s USING (agent_id, id)
WHERE m.invalidated_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now());
COMMENT ON VIEW active_memories IS 'Current memories (not invalidated, not expired) with their decay and access counts.';
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_readonly') THEN
        GRANT SELECT ON active_memories TO hindsight_readonly;
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_scope') THEN
        GRANT SELECT ON active_memories TO hindsight_agent_scope;
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_writer') THEN
        GRANT SELECT ON active_memories TO hindsight_agent_writer;
    END IF;
END $$;
DROP INDEX memories_agent_project;
ALTER TABLE memories_archive DROP COLUMN project;
ALTER TABLE memories DROP COLUMN project;
