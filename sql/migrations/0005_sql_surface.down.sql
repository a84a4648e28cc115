DROP POLICY IF EXISTS everything ON memories;
DROP POLICY IF EXISTS one_agent ON memories;
DROP POLICY IF EXISTS everything ON memory_state;
DROP POLICY IF EXISTS one_agent ON memory_state;
DROP POLICY IF EXISTS everything ON memory_history;
DROP POLICY IF EXISTS one_agent ON memory_history;
DROP POLICY IF EXISTS everything ON memories_archive;
DROP POLICY IF EXISTS one_agent ON memories_archive;
ALTER TABLE memories DISABLE ROW LEVEL SECURITY;
ALTER TABLE memory_state DISABLE ROW LEVEL SECURITY;
ALTER TABLE memory_history DISABLE ROW LEVEL SECURITY;
ALTER TABLE memories_archive DISABLE ROW LEVEL SECURITY;
DROP FUNCTION IF EXISTS hindsight_scoped();
DROP VIEW IF EXISTS memory_timeline, agent_overview, active_memories;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_readonly') THEN
        REVOKE ALL ON ALL TABLES IN SCHEMA public FROM hindsight_readonly;
        REVOKE USAGE ON SCHEMA public FROM hindsight_readonly;
        EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM hindsight_readonly', current_database());
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_scope') THEN
        REVOKE ALL ON ALL TABLES IN SCHEMA public FROM hindsight_agent_scope;
        REVOKE USAGE ON SCHEMA public FROM hindsight_agent_scope;
        EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM hindsight_agent_scope', current_database());
    END IF;
END $$;
-- The roles are cluster-wide and may serve other databases: they are left in place.
