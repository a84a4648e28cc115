-- 0009_project: which project (repository) a memory belongs to, and the folders the IDE
-- declared (MCP roots) with the project name each was given.
--   * memories.project: NULL is global: what is about the user rather than the code, or
--     anything written while no project was open. memories_archive keeps it (archive and
--     restore copy rows by column name).
--   * project_roots: per agent, each root folder seen and the name derived from it (the git
--     remote's repository name, else the folder's name), so the mapping can be read back.

ALTER TABLE memories ADD COLUMN project text
    CONSTRAINT memories_project_name CHECK (project IS NULL OR (project <> '' AND length(project) <= 200));
ALTER TABLE memories_archive ADD COLUMN project text;
COMMENT ON COLUMN memories.project IS 'The project (repository) the memory belongs to; NULL: global (about the user, or written with no project open).';
COMMENT ON COLUMN memories_archive.project IS 'The project the memory belonged to (memories.project).';
CREATE INDEX memories_agent_project ON memories (agent_id, project, created_at DESC) WHERE project IS NOT NULL;

CREATE TABLE project_roots (
    agent_id   text NOT NULL,
    root       text NOT NULL,
    project    text NOT NULL,
    source     text NOT NULL CHECK (source IN ('git remote', 'folder')),
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, root)
);
COMMENT ON TABLE project_roots IS 'Root folders an IDE declared to the server (MCP roots) and the project name each maps to.';
COMMENT ON COLUMN project_roots.agent_id IS 'The agent whose client declared the root.';
COMMENT ON COLUMN project_roots.first_seen IS 'When a client first declared it.';
COMMENT ON COLUMN project_roots.last_seen IS 'When a client last declared it.';
COMMENT ON COLUMN project_roots.root IS 'The root as the client sent it (a file:// URI).';
COMMENT ON COLUMN project_roots.project IS 'The name memories written under this root carry (memories.project).';
COMMENT ON COLUMN project_roots.source IS 'Where the name came from: the git remote''s repository name, or the folder''s name.';

CREATE OR REPLACE VIEW active_memories WITH (security_invoker = true) AS
SELECT m.agent_id, m.id, m.memory_type, m.content, m.metadata, m.tags, m.importance, m.slot, m.flags,
       m.shared, m.session_id, m.created_at, m.expires_at, s.decay_score, s.access_count, s.last_accessed,
       m.project
FROM memories m JOIN memory_state s USING (agent_id, id)
WHERE m.invalidated_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now());

ALTER TABLE project_roots ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON project_roots FOR SELECT USING (NOT hindsight_scoped());
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_readonly') THEN
        GRANT SELECT ON project_roots TO hindsight_readonly;
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_writer') THEN
        GRANT SELECT, INSERT, UPDATE ON project_roots TO hindsight_agent_writer;
        CREATE POLICY agent_rows ON project_roots TO hindsight_agent_writer
            USING (agent_id = ANY (hindsight_role_agents())) WITH CHECK (agent_id = ANY (hindsight_role_agents()));
    END IF;
END $$;
