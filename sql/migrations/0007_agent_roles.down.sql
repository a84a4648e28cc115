DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['memories', 'memory_state', 'memory_history', 'memory_terms', 'term_stats',
                             'agent_stats', 'memory_tools'] LOOP
        EXECUTE format('DROP POLICY IF EXISTS agent_rows ON %I', t);
    END LOOP;
    FOREACH t IN ARRAY ARRAY['memory_terms', 'term_stats', 'agent_stats', 'memory_tools'] LOOP
        EXECUTE format('DROP POLICY IF EXISTS everything ON %I', t);
        EXECUTE format('ALTER TABLE %I DISABLE ROW LEVEL SECURITY', t);
    END LOOP;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_writer') THEN
        REVOKE ALL ON ALL TABLES IN SCHEMA public FROM hindsight_agent_writer;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM hindsight_agent_writer;
        REVOKE USAGE ON SCHEMA public FROM hindsight_agent_writer;
        EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM hindsight_agent_writer', current_database());
    END IF;
END $$;
DROP POLICY one_agent ON memories;
DROP POLICY one_agent ON memory_state;
DROP POLICY one_agent ON memory_history;
DROP POLICY one_agent ON memories_archive;
CREATE POLICY one_agent ON memories FOR SELECT
    USING (agent_id = current_setting('hindsight.agent_id', true) OR shared);
CREATE POLICY one_agent ON memory_state FOR SELECT USING (agent_id = current_setting('hindsight.agent_id', true)
    OR EXISTS (SELECT 1 FROM memories m WHERE m.agent_id = memory_state.agent_id AND m.id = memory_state.id AND m.shared));
CREATE POLICY one_agent ON memory_history FOR SELECT USING (agent_id = current_setting('hindsight.agent_id', true));
CREATE POLICY one_agent ON memories_archive FOR SELECT USING (agent_id = current_setting('hindsight.agent_id', true));
CREATE OR REPLACE FUNCTION hindsight_scoped() RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM pg_roles r
                   WHERE r.rolname = 'hindsight_agent_scope' AND pg_has_role(r.oid, 'MEMBER'))
$$;
DROP FUNCTION IF EXISTS hindsight_role_agents();
REVOKE ALL ON hindsight_agent_roles FROM PUBLIC;
DROP TABLE IF EXISTS hindsight_agent_roles;
-- The role is cluster-wide and may serve other databases: it is left in place.
