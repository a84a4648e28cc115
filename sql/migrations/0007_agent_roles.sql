-- 0007_agent_roles: isolation between agents that the database enforces, keyed by the role
-- a session logged in as, not by anything the session can set.
--   * hindsight_agent_roles (role_name, agent_id): the agents a database role may act for.
--     Only the schema's owner writes it; a mapped role reads its own rows.
--   * hindsight_agent_writer: a NOLOGIN group role holding what a hindsight server needs.
--     Give each agent (or team) its own login role, member of it, mapped to its agents:
--         CREATE ROLE srv_sales LOGIN PASSWORD '...' IN ROLE hindsight_agent_writer;
--         INSERT INTO hindsight_agent_roles VALUES ('srv_sales', 'sales');
--   * Row-level security on every table that holds an agent's data limits members of
--     hindsight_agent_writer and hindsight_agent_scope to the agents mapped to current_user
--     (plus memories shared with all, read-only). SET hindsight.agent_id widens nothing.

CREATE TABLE hindsight_agent_roles (
    role_name text NOT NULL,
    agent_id  text NOT NULL,
    PRIMARY KEY (agent_id, role_name)
);
COMMENT ON TABLE hindsight_agent_roles IS 'Which agents a database role may act for (row-level security of hindsight_agent_writer and hindsight_agent_scope members). Written by the schema owner only.';
COMMENT ON COLUMN hindsight_agent_roles.role_name IS 'A database role (usually a login role, one per agent or team).';
COMMENT ON COLUMN hindsight_agent_roles.agent_id IS 'An agent that role may read and write.';
ALTER TABLE hindsight_agent_roles ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON hindsight_agent_roles FOR SELECT USING (role_name = current_user);
-- Every role may look up its own agents (the read policies below do, for whoever reads).
GRANT SELECT ON hindsight_agent_roles TO PUBLIC;

CREATE FUNCTION hindsight_role_agents() RETURNS text[] LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(agent_id), '{}') FROM hindsight_agent_roles WHERE role_name = current_user
$$;
COMMENT ON FUNCTION hindsight_role_agents() IS 'The agents current_user may act for (hindsight_agent_roles).';

CREATE OR REPLACE FUNCTION hindsight_scoped() RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM pg_roles r
                   WHERE r.rolname IN ('hindsight_agent_scope', 'hindsight_agent_writer')
                     AND pg_has_role(r.oid, 'MEMBER'))
$$;
COMMENT ON FUNCTION hindsight_scoped() IS 'Whether the session acts as hindsight_agent_scope or hindsight_agent_writer (row-level security limits it to its mapped agents).';

-- The read policies of 0005 trusted a session setting; now the role decides.
DROP POLICY one_agent ON memories;
DROP POLICY one_agent ON memory_state;
DROP POLICY one_agent ON memory_history;
DROP POLICY one_agent ON memories_archive;
CREATE POLICY one_agent ON memories FOR SELECT USING (agent_id = ANY (hindsight_role_agents()) OR shared);
CREATE POLICY one_agent ON memory_state FOR SELECT USING (agent_id = ANY (hindsight_role_agents())
    OR EXISTS (SELECT 1 FROM memories m WHERE m.agent_id = memory_state.agent_id AND m.id = memory_state.id AND m.shared));
CREATE POLICY one_agent ON memory_history FOR SELECT USING (agent_id = ANY (hindsight_role_agents()));
CREATE POLICY one_agent ON memories_archive FOR SELECT USING (agent_id = ANY (hindsight_role_agents()));

-- The keyword and tool indexes hold an agent's words too.
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['memory_terms', 'term_stats', 'agent_stats', 'memory_tools'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY everything ON %I FOR SELECT USING (NOT hindsight_scoped())', t);
    END LOOP;
END $$;

DO $$
DECLARE t text;
BEGIN
    IF NOT (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
        RAISE NOTICE 'hindsight: this user may not create roles; skipping hindsight_agent_writer';
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_writer') THEN
        CREATE ROLE hindsight_agent_writer NOLOGIN;
    END IF;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO hindsight_agent_writer', current_database());
    GRANT USAGE ON SCHEMA public TO hindsight_agent_writer;
    GRANT SELECT ON hindsight_embedder, alembic_version, active_memories, agent_overview, memory_timeline
        TO hindsight_agent_writer;
    GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO hindsight_agent_writer;
    FOREACH t IN ARRAY ARRAY['memories', 'memory_state', 'memory_history', 'memory_terms', 'term_stats',
                             'agent_stats', 'memory_tools'] LOOP
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO hindsight_agent_writer', t);
        EXECUTE format('CREATE POLICY agent_rows ON %I TO hindsight_agent_writer '
                       'USING (agent_id = ANY (hindsight_role_agents())) '
                       'WITH CHECK (agent_id = ANY (hindsight_role_agents()))', t);
    END LOOP;
END $$;
