-- 0012_hook_sessions: what the IDE's lifecycle hooks (hindsight hooks install) showed each
-- session, so that a session is never shown the same memory twice and gets its standing
-- preferences once (and again after its context was compacted).
--   * hook_sessions: per agent and session, when the hooks first and last saw it, its
--     project, when its standing preferences were last shown, and what the hooks kept.
--   * hook_shown: per agent and session, each memory a prompt's block showed.
-- Maintenance forgets sessions not seen for 30 days (and what they were shown).

CREATE TABLE hook_sessions (
    agent_id      text NOT NULL,
    session_id    text NOT NULL,
    project       text,
    first_seen    timestamptz NOT NULL DEFAULT now(),
    last_seen     timestamptz NOT NULL DEFAULT now(),
    standing_shown_at timestamptz,
    captured      integer NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_id, session_id)
);
COMMENT ON TABLE hook_sessions IS 'Sessions of an IDE whose lifecycle hooks call hindsight: when they were seen, and what the hooks did for them.';
COMMENT ON COLUMN hook_sessions.agent_id IS 'The agent the session''s hooks act for.';
COMMENT ON COLUMN hook_sessions.session_id IS 'The IDE''s session id (Claude Code''s session_id).';
COMMENT ON COLUMN hook_sessions.project IS 'The project open in the session when it was last seen (NULL: none).';
COMMENT ON COLUMN hook_sessions.first_seen IS 'When a hook of the session first called.';
COMMENT ON COLUMN hook_sessions.last_seen IS 'When a hook of the session last called.';
COMMENT ON COLUMN hook_sessions.standing_shown_at IS 'When the standing preferences and constraints were last added to its context (NULL: not yet, or again due after a compaction).';
COMMENT ON COLUMN hook_sessions.captured IS 'How many memories the session''s hooks stored or reinforced.';

CREATE TABLE hook_shown (
    agent_id   text NOT NULL,
    session_id text NOT NULL,
    memory_id  uuid NOT NULL,
    shown_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, session_id, memory_id)
);
COMMENT ON TABLE hook_shown IS 'Memories a session''s prompt hook added to its context: each is shown to a session once.';
COMMENT ON COLUMN hook_shown.agent_id IS 'The agent the session''s hooks act for.';
COMMENT ON COLUMN hook_shown.session_id IS 'The IDE''s session id.';
COMMENT ON COLUMN hook_shown.memory_id IS 'The memory shown (memories.id; kept when the memory is deleted, as a record of what was shown).';
COMMENT ON COLUMN hook_shown.shown_at IS 'When it was shown.';

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['hook_sessions', 'hook_shown'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY everything ON %I FOR SELECT USING (NOT hindsight_scoped())', t);
        IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_readonly') THEN
            EXECUTE format('GRANT SELECT ON %I TO hindsight_readonly', t);
        END IF;
        IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_writer') THEN
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO hindsight_agent_writer', t);
            EXECUTE format('CREATE POLICY agent_rows ON %I TO hindsight_agent_writer '
                           'USING (agent_id = ANY (hindsight_role_agents())) '
                           'WITH CHECK (agent_id = ANY (hindsight_role_agents()))', t);
        END IF;
    END LOOP;
END $$;
