-- 0005_sql_surface: for people who query memories in plain SQL.
--   * comments on every table and column (\d+ in psql shows them);
--   * views: active_memories, agent_overview, memory_timeline;
--   * two roles (created when this database user may create roles):
--       hindsight_readonly     reads everything, writes nothing;
--       hindsight_agent_scope  reads only the rows of the agent named by the session
--                              setting hindsight.agent_id (plus memories shared with all),
--                              enforced by row-level security.
--     Grant them to login roles: GRANT hindsight_readonly TO alice;

COMMENT ON TABLE memories IS 'One row per memory an agent keeps. Current = invalidated_at IS NULL and not expired. The hot numbers (decay, access counts) are in memory_state.';
COMMENT ON COLUMN memories.agent_id IS 'The agent the memory belongs to; every key includes it (Citus distribution column).';
COMMENT ON COLUMN memories.id IS 'The memory id (UUID) the tools return.';
COMMENT ON COLUMN memories.session_id IS 'The conversation or task session it came from, if given.';
COMMENT ON COLUMN memories.memory_type IS 'working (session scratch), episodic (events), semantic (facts, preferences) or procedural (how-to, fixes, failures).';
COMMENT ON COLUMN memories.content IS 'The memory text as stored: secrets and personal data appear redacted ([REDACTED:kind]).';
COMMENT ON COLUMN memories.content_hash IS 'sha256 of the normalised stored content.';
COMMENT ON COLUMN memories.embedding IS 'Vector of the content by the embedder recorded in hindsight_embedder (cosine, HNSW index).';
COMMENT ON COLUMN memories.search_vector IS 'Keyword index text (content and metadata words; Chinese segmented).';
COMMENT ON COLUMN memories.metadata IS 'JSON object; well-known keys: task_type, outcome, tools_used, entities, error. GIN-indexed: use @>.';
COMMENT ON COLUMN memories.tags IS 'Short labels (GIN-indexed).';
COMMENT ON COLUMN memories.importance IS '1 (trivial) to 5 (critical); sets the lifetime when no TTL was given.';
COMMENT ON COLUMN memories.created_at IS 'When it happened (settable on import).';
COMMENT ON COLUMN memories.stored_at IS 'When this row was written.';
COMMENT ON COLUMN memories.updated_at IS 'Last change of the row.';
COMMENT ON COLUMN memories.expires_at IS 'After this the memory is no longer recalled and is archived at the next maintenance run; NULL: never.';
COMMENT ON COLUMN memories.invalidated_at IS 'When it stopped being true (kept as history); NULL: current.';
COMMENT ON COLUMN memories.invalidation_reason IS 'Why it was invalidated.';
COMMENT ON COLUMN memories.invalidated_by IS 'The memory that superseded it.';
COMMENT ON COLUMN memories.shared IS 'Readable by every agent; only the owner changes it.';
COMMENT ON COLUMN memories.doc_len IS 'Number of indexed words (BM25 document length).';
COMMENT ON COLUMN memories.dedup_key IS 'Exact-duplicate key of a live write (unique among current memories); NULL for restored rows.';
COMMENT ON COLUMN memories.slot IS 'Named fact this memory is the current value of (at most one current per slot).';
COMMENT ON COLUMN memories.flags IS 'Guard findings: absolute, needs_review, instruction_like, low_trust, from_tool.';
COMMENT ON COLUMN memories.sealed IS 'Fernet-encrypted original content and metadata (HINDSIGHT_ENCRYPTION_KEY); NULL when nothing was redacted.';
COMMENT ON COLUMN memories.reinforce_count IS 'How often a duplicate write reinforced it.';
COMMENT ON COLUMN memories.strength IS 'Where decay starts and recovers to (1, lower when the guard flagged it).';
COMMENT ON COLUMN memories.consolidated_into IS 'The semantic memory this episode was consolidated into.';

COMMENT ON TABLE memory_state IS 'The numbers that change often, one row per memory (narrow: updates are HOT).';
COMMENT ON COLUMN memory_state.agent_id IS 'The memory''s agent.';
COMMENT ON COLUMN memory_state.id IS 'The memory''s id.';
COMMENT ON COLUMN memory_state.decay_score IS '0-1; recomputed nightly by hindsight_decay(); recall skips memories below 0.3 by default.';
COMMENT ON COLUMN memory_state.access_count IS 'How often recall returned it.';
COMMENT ON COLUMN memory_state.last_accessed IS 'When recall last returned it (or a duplicate write reinforced it).';
COMMENT ON COLUMN memory_state.stored_at IS 'Copy of memories.stored_at (decay counts from it when never accessed).';
COMMENT ON COLUMN memory_state.strength IS 'Copy of memories.strength.';
COMMENT ON COLUMN memory_state.importance IS 'Copy of memories.importance.';
COMMENT ON COLUMN memory_state.current IS 'Copy of memories.invalidated_at IS NULL.';

COMMENT ON TABLE memory_history IS 'Every create, update, reinforce, invalidate, supersede, archive, restore, consolidate and delete, written by triggers.';
COMMENT ON COLUMN memory_history.agent_id IS 'The memory''s agent.';
COMMENT ON COLUMN memory_history.seq IS 'Order of events.';
COMMENT ON COLUMN memory_history.memory_id IS 'The memory it happened to.';
COMMENT ON COLUMN memory_history.action IS 'create, update, reinforce, invalidate, supersede, archive, restore, consolidate or delete.';
COMMENT ON COLUMN memory_history.at IS 'When (transaction time).';
COMMENT ON COLUMN memory_history.call IS 'Which call did it: store_memory, record_interaction, update_memory, cli store, import, maintain, restore, sql, ...';
COMMENT ON COLUMN memory_history.reason IS 'Why, when known.';
COMMENT ON COLUMN memory_history.related_id IS 'The superseding or consolidated memory.';
COMMENT ON COLUMN memory_history.memory_type IS 'Its layer at that moment.';
COMMENT ON COLUMN memory_history.content IS 'Its stored content at that moment; NULL after the memory was deleted.';
COMMENT ON COLUMN memory_history.metadata IS 'Its metadata at that moment; NULL after the memory was deleted.';
COMMENT ON COLUMN memory_history.importance IS 'Its importance at that moment.';
COMMENT ON COLUMN memory_history.slot IS 'Its slot at that moment.';
COMMENT ON COLUMN memory_history.expires_at IS 'Its expiry at that moment.';

COMMENT ON TABLE memories_archive IS 'Expired memories and memories superseded long ago, moved by maintenance (same columns, no vector index); hindsight restore ID brings one back.';
COMMENT ON COLUMN memories_archive.decay_score IS 'memory_state.decay_score when archived.';
COMMENT ON COLUMN memories_archive.access_count IS 'memory_state.access_count when archived.';
COMMENT ON COLUMN memories_archive.last_accessed IS 'memory_state.last_accessed when archived.';
COMMENT ON COLUMN memories_archive.archived_at IS 'When maintenance moved it here.';
COMMENT ON COLUMN memories_archive.archive_reason IS 'expired or superseded.';
DO $$
DECLARE c record;
BEGIN  -- the archive's other columns mean what they mean in memories
    FOR c IN SELECT a.attname, d.description FROM pg_attribute a
             JOIN pg_description d ON d.objoid = 'memories'::regclass AND d.objsubid = a.attnum
             WHERE a.attrelid = 'memories'::regclass AND a.attnum > 0 AND NOT a.attisdropped LOOP
        EXECUTE format('COMMENT ON COLUMN memories_archive.%I IS %L', c.attname, c.description);
    END LOOP;
END $$;

COMMENT ON TABLE maintenance_runs IS 'One row per maintenance run (hindsight maintain or the scheduler) with its report.';
COMMENT ON COLUMN maintenance_runs.id IS 'Run number.';
COMMENT ON COLUMN maintenance_runs.started_at IS 'When it started.';
COMMENT ON COLUMN maintenance_runs.finished_at IS 'When it ended.';
COMMENT ON COLUMN maintenance_runs.as_of IS 'The moment it acted for (--now).';
COMMENT ON COLUMN maintenance_runs.dry_run IS 'Only reported, changed nothing.';
COMMENT ON COLUMN maintenance_runs.trigger IS 'cli or scheduler.';
COMMENT ON COLUMN maintenance_runs.status IS 'running, succeeded, failed or skipped (another run held the lock).';
COMMENT ON COLUMN maintenance_runs.report IS 'What changed: decay, archive, consolidation, reconciled counts.';
COMMENT ON COLUMN maintenance_runs.error IS 'Why it failed.';

COMMENT ON TABLE hindsight_embedder IS 'Which embedder wrote the vectors (one row).';
COMMENT ON COLUMN hindsight_embedder.singleton IS 'Always true: one row.';
COMMENT ON COLUMN hindsight_embedder.name IS 'e5-small, or openai:<model>.';
COMMENT ON COLUMN hindsight_embedder.dimension IS 'Vector dimension.';
COMMENT ON COLUMN hindsight_embedder.recorded_at IS 'When it was recorded.';

COMMENT ON TABLE memory_terms IS 'Keyword postings: one row per memory and word (BM25), kept by triggers.';
COMMENT ON COLUMN memory_terms.agent_id IS 'The memory''s agent.';
COMMENT ON COLUMN memory_terms.term IS 'A stemmed word.';
COMMENT ON COLUMN memory_terms.memory_id IS 'The memory.';
COMMENT ON COLUMN memory_terms.tf IS 'How often the word occurs in it.';
COMMENT ON COLUMN memory_terms.doc_len IS 'The memory''s length in words.';
COMMENT ON TABLE term_stats IS 'Per agent and word: in how many memories it occurs (BM25 idf), kept by triggers.';
COMMENT ON COLUMN term_stats.agent_id IS 'The agent.';
COMMENT ON COLUMN term_stats.term IS 'A stemmed word.';
COMMENT ON COLUMN term_stats.df IS 'Memories containing it.';
COMMENT ON TABLE agent_stats IS 'Per agent: memories and total indexed length (BM25), kept by triggers.';
COMMENT ON COLUMN agent_stats.agent_id IS 'The agent.';
COMMENT ON COLUMN agent_stats.n_docs IS 'Memories.';
COMMENT ON COLUMN agent_stats.total_len IS 'Total indexed words.';
COMMENT ON TABLE memory_tools IS 'Which memories used which tool (metadata.tools_used), failures marked, kept by triggers.';
COMMENT ON COLUMN memory_tools.agent_id IS 'The agent.';
COMMENT ON COLUMN memory_tools.tool IS 'Tool name, lower-cased.';
COMMENT ON COLUMN memory_tools.memory_id IS 'The memory.';
COMMENT ON COLUMN memory_tools.created_at IS 'The memory''s created_at.';
COMMENT ON COLUMN memory_tools.failed IS 'The memory records a failure with this tool.';

CREATE VIEW active_memories WITH (security_invoker = true) AS
SELECT m.agent_id, m.id, m.memory_type, m.content, m.metadata, m.tags, m.importance, m.slot, m.flags,
       m.shared, m.session_id, m.created_at, m.expires_at, s.decay_score, s.access_count, s.last_accessed
FROM memories m JOIN memory_state s USING (agent_id, id)
WHERE m.invalidated_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now());
COMMENT ON VIEW active_memories IS 'Current memories (not invalidated, not expired) with their decay and access counts.';

CREATE VIEW agent_overview WITH (security_invoker = true) AS
SELECT m.agent_id,
       count(*) FILTER (WHERE m.invalidated_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())) AS current,
       count(*) FILTER (WHERE m.invalidated_at IS NOT NULL) AS invalidated,
       count(*) FILTER (WHERE s.decay_score < 0.3 AND m.invalidated_at IS NULL) AS faded,
       count(*) FILTER (WHERE m.flags @> '{needs_review}') AS needs_review,
       max(m.stored_at) AS last_write
FROM memories m JOIN memory_state s USING (agent_id, id)
GROUP BY m.agent_id;
COMMENT ON VIEW agent_overview IS 'Per agent: current, invalidated, faded (decay < 0.3) and flagged memories, last write.';

CREATE VIEW memory_timeline WITH (security_invoker = true) AS
SELECT agent_id, memory_id, seq, at, action, call, reason, related_id, importance, slot, content
FROM memory_history;
COMMENT ON VIEW memory_timeline IS 'What happened to each memory: filter by agent_id and memory_id, order by seq.';

DO $$
BEGIN
    IF NOT (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
        RAISE NOTICE 'hindsight: this user may not create roles; skipping hindsight_readonly and hindsight_agent_scope';
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_readonly') THEN
        CREATE ROLE hindsight_readonly NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_scope') THEN
        CREATE ROLE hindsight_agent_scope NOLOGIN;
    END IF;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO hindsight_readonly, hindsight_agent_scope', current_database());
    GRANT USAGE ON SCHEMA public TO hindsight_readonly, hindsight_agent_scope;
    GRANT SELECT ON ALL TABLES IN SCHEMA public TO hindsight_readonly;
    GRANT SELECT ON memories, memory_state, memory_history, memories_archive, active_memories, memory_timeline
        TO hindsight_agent_scope;
END $$;

-- Row-level security: applies to roles that do not own the tables (the server's own role
-- owns them and is not limited). hindsight_readonly sees every row; hindsight_agent_scope
-- only its session's agent (SET hindsight.agent_id = '...'), plus shared memories.
CREATE FUNCTION hindsight_scoped() RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM pg_roles r
                   WHERE r.rolname = 'hindsight_agent_scope' AND pg_has_role(r.oid, 'MEMBER'))
$$;
COMMENT ON FUNCTION hindsight_scoped() IS 'Whether the session acts as hindsight_agent_scope (row-level security limits it to one agent).';
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE memories_archive ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON memories FOR SELECT USING (NOT hindsight_scoped());
CREATE POLICY one_agent ON memories FOR SELECT
    USING (agent_id = current_setting('hindsight.agent_id', true) OR shared);
CREATE POLICY everything ON memory_state FOR SELECT USING (NOT hindsight_scoped());
CREATE POLICY one_agent ON memory_state FOR SELECT USING (agent_id = current_setting('hindsight.agent_id', true)
    OR EXISTS (SELECT 1 FROM memories m WHERE m.agent_id = memory_state.agent_id AND m.id = memory_state.id AND m.shared));
CREATE POLICY everything ON memory_history FOR SELECT USING (NOT hindsight_scoped());
CREATE POLICY one_agent ON memory_history FOR SELECT USING (agent_id = current_setting('hindsight.agent_id', true));
CREATE POLICY everything ON memories_archive FOR SELECT USING (NOT hindsight_scoped());
CREATE POLICY one_agent ON memories_archive FOR SELECT USING (agent_id = current_setting('hindsight.agent_id', true));
