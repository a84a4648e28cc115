-- The maintenance job (hindsight/upkeep/maintenance.py): decay, archive, consolidation, runs.
-- Decay and archive are set-based and batched: no row-by-row work in Python.

-- name: maintenance_try_lock
-- One maintenance run at a time across every process (released when the run ends).
SELECT pg_try_advisory_lock(7402);

-- name: maintenance_unlock
-- Release the maintenance lock (taken on the same connection).
SELECT pg_advisory_unlock(7402);

-- name: history_action
-- Tell the history triggers what this transaction's writes mean, until it commits: $1 =
-- 'archive' (a delete moves memories to the archive, it does not forget them) or 'restore'.
SELECT set_config('hindsight.action', $1, true);

-- name: run_start
-- Record that a maintenance run started ($4: running, or skipped when another holds the lock).
INSERT INTO maintenance_runs (as_of, dry_run, trigger, status)
VALUES ($1, $2, $3, $4)
RETURNING id;

-- name: run_finish
-- Record how a maintenance run ended: its status, report and error.
UPDATE maintenance_runs
SET finished_at = clock_timestamp(), status = $2, report = $3, error = $4
WHERE id = $1;

-- name: recent_runs
-- The latest $1 maintenance runs, newest first.
SELECT id, started_at, finished_at, as_of, dry_run, trigger, status, report, error
FROM maintenance_runs ORDER BY id DESC LIMIT $1;

-- name: table_pages
-- How many heap pages memory_state has: decay walks them in ranges.
SELECT (pg_relation_size('memory_state') / current_setting('block_size')::int)::int;

-- name: decay_pages
-- Recompute decay_score (hindsight_decay, see sql/migrations/0006_recall_ranking.sql) for the
-- current memories on heap pages [$3, $4) of memory_state, writing only rows whose score
-- changes. $1 the moment, $2 λ. memory_state is narrow and half empty: HOT updates.
UPDATE memory_state
SET decay_score = hindsight_decay(strength, access_count, coalesce(last_accessed, stored_at), importance, memory_type, $1, $2)
WHERE ctid >= $3::tid AND ctid < $4::tid
  AND current
  AND decay_score <> hindsight_decay(strength, access_count, coalesce(last_accessed, stored_at), importance, memory_type, $1, $2);

-- name: decay_preview
-- What decay would change at $1 with λ $2, without changing it.
SELECT count(*) FILTER (WHERE d <> decay_score) AS changed,
       count(*) FILTER (WHERE d < $3 AND decay_score >= $3) AS sinking,
       count(*) FILTER (WHERE d >= $3 AND decay_score < $3) AS recovering
FROM (SELECT decay_score,
             hindsight_decay(strength, access_count, coalesce(last_accessed, stored_at), importance, memory_type, $1, $2) AS d
      FROM memory_state WHERE current) s;

-- name: archive_batch
-- Move up to $4 memories to the archive: $3 = 'expired' (expires_at passed by $1) or
-- 'superseded' (invalidated more than $2 ago). A memory that an unarchived memory still
-- names as its replacement waits for that one, so supersession chains move together.
WITH picked AS (
    SELECT m.agent_id, m.id FROM memories m
    WHERE CASE WHEN $3 = 'expired' THEN m.expires_at <= $1 AND m.invalidated_at IS NULL
               ELSE m.invalidated_at <= $1 - $2::interval END
      AND NOT EXISTS (SELECT 1 FROM memories r WHERE r.agent_id = m.agent_id AND r.invalidated_by = m.id)
    ORDER BY agent_id, id
    LIMIT $4
    FOR UPDATE SKIP LOCKED
), moved AS (
    DELETE FROM memories m USING picked p, memory_state s
    WHERE m.agent_id = p.agent_id AND m.id = p.id AND s.agent_id = p.agent_id AND s.id = p.id
    RETURNING m.*, s.decay_score, s.access_count, s.last_accessed
)
INSERT INTO memories_archive
SELECT (jsonb_populate_record(NULL::memories_archive,
        to_jsonb(moved) || jsonb_build_object('archived_at', $1, 'archive_reason', $3))).*
FROM moved;

-- name: archive_preview
-- How many memories archive would move at $1 (expired; superseded more than $2 ago), moving none.
SELECT count(*) FILTER (WHERE expires_at <= $1 AND invalidated_at IS NULL) AS expired,
       count(*) FILTER (WHERE invalidated_at <= $1 - $2::interval) AS superseded
FROM memories;

-- name: archived_memory
-- One of the agent's archived memories, with what restoring it needs.
SELECT id, agent_id, content, memory_type, importance, expires_at, invalidated_at, archive_reason,
       archived_at, dedup_key, slot, decay_score, access_count, last_accessed
FROM memories_archive WHERE agent_id = $1 AND id = $2;

-- name: restore_memory
-- Move one memory back from the archive; $3 replaces expires_at (an expired memory
-- brought back gets a fresh lifetime). Returns its id; restore_state follows.
WITH moved AS (
    DELETE FROM memories_archive WHERE agent_id = $1 AND id = $2 RETURNING *
)
INSERT INTO memories
SELECT (jsonb_populate_record(NULL::memories,
        to_jsonb(moved) || jsonb_build_object('expires_at', $3::timestamptz))).*
FROM moved
RETURNING id;

-- name: restore_state
-- An exactly restored memory's counters, as exported ($3 decay_score, $4 access_count,
-- $5 last_accessed).
UPDATE memory_state SET decay_score = $3, access_count = $4, last_accessed = $5
WHERE agent_id = $1 AND id = $2;

-- name: restore_state_fresh
-- A memory brought back from the archive on purpose is treated as just recalled: its
-- access count as archived ($3), last_accessed now ($4), and decay restarted where
-- hindsight_decay puts a memory seen now (strength + min(0.1 · access_count, 0.5)), so
-- default recall (decay_score >= 0.3) finds it again.
UPDATE memory_state
SET access_count = $3::integer, last_accessed = $4,
    decay_score = round(least(1.0, strength + least(0.1 * $3::integer, 0.5))::numeric, 3)::real
WHERE agent_id = $1 AND id = $2;

-- name: forget_archived
-- "Forget this" for an archived memory: gone from the archive, its history content
-- blanked, a delete row added (what the delete trigger does for live memories).
WITH gone AS (
    DELETE FROM memories_archive WHERE agent_id = $1 AND id = $2
    RETURNING agent_id, id, memory_type, importance, slot
), blanked AS (
    UPDATE memory_history h SET content = NULL, metadata = NULL
    FROM gone WHERE h.agent_id = $1 AND h.memory_id = $2 AND h.memory_id = gone.id  -- one agent's shard
)
INSERT INTO memory_history (agent_id, memory_id, action, call, reason, memory_type, importance, slot)
SELECT agent_id, id, 'delete', hindsight_call(), nullif(current_setting('hindsight.reason', true), ''),
       memory_type, importance, slot
FROM gone
RETURNING memory_id;

-- name: counts
-- Live and archived rows, for the run's reconciliation.
SELECT (SELECT count(*) FROM memories) AS live, (SELECT count(*) FROM memories_archive) AS archived;

-- name: consolidation_candidates
-- Current episodic memories of one agent from the window [$2, $3) not yet consolidated.
SELECT id, content, embedding, metadata, importance, created_at, session_id
FROM memories
WHERE agent_id = $1 AND memory_type = 'episodic' AND invalidated_at IS NULL
  AND consolidated_into IS NULL AND created_at >= $2 AND created_at < $3
  AND (expires_at IS NULL OR expires_at > $3)
ORDER BY created_at DESC
LIMIT $4;

-- name: agents_with_episodes
-- The agents with unconsolidated current episodes created in [$1, $2).
SELECT DISTINCT agent_id FROM memories
WHERE memory_type = 'episodic' AND invalidated_at IS NULL AND consolidated_into IS NULL
  AND created_at >= $1 AND created_at < $2;

-- name: mark_consolidated
-- The episodes ($2) a consolidated memory ($3) now sums up.
UPDATE memories SET consolidated_into = $3
WHERE agent_id = $1 AND id = ANY($2) AND consolidated_into IS NULL;

-- name: stats_by_state
-- Counts by agent, type and state at $1.
SELECT agent_id, memory_type,
       count(*) FILTER (WHERE invalidated_at IS NULL AND (expires_at IS NULL OR expires_at > $1)) AS current,
       count(*) FILTER (WHERE invalidated_at IS NOT NULL) AS invalidated,
       count(*) FILTER (WHERE invalidated_at IS NULL AND expires_at <= $1) AS expired,
       count(*) FILTER (WHERE consolidated_into IS NOT NULL) AS consolidated,
       count(*) FILTER (WHERE invalidated_at IS NULL AND decay_score < $2) AS faded,
       count(*) FILTER (WHERE flags @> '{needs_review}') AS needs_review
FROM memories JOIN (SELECT agent_id, id, decay_score, access_count, last_accessed FROM memory_state) st
     USING (agent_id, id)
WHERE ($3::text IS NULL OR agent_id = $3)
GROUP BY agent_id, memory_type
ORDER BY agent_id, memory_type;

-- name: stats_archived
-- Archived memories by agent and why they were archived ($1: one agent, or all).
SELECT agent_id, archive_reason, count(*) AS n FROM memories_archive
WHERE ($1::text IS NULL OR agent_id = $1)
GROUP BY agent_id, archive_reason ORDER BY agent_id, archive_reason;

-- name: stats_decay_histogram
-- Current memories by decay_score in tenths.
SELECT least(floor(decay_score * 10), 9)::int AS bucket, count(*) AS n
FROM memory_state
WHERE current AND ($1::text IS NULL OR agent_id = $1)
GROUP BY 1 ORDER BY 1;

-- name: memory_decay
-- One memory's decay_score.
SELECT decay_score FROM memory_state WHERE agent_id = $1 AND id = $2;

-- name: agent_row_counts
-- Agents with more than $1 rows, and their row count (hindsight.rules.vector_indexes).
SELECT agent_id, count(*)::bigint AS n FROM memories GROUP BY agent_id HAVING count(*) > $1;

-- name: agent_rows_total
-- Every row of the table, for the agents' shares of it.
SELECT count(*)::bigint FROM memories;

-- name: agent_indexes
-- The agents' own vector indexes that exist, and whether each is valid (an interrupted
-- CREATE INDEX CONCURRENTLY leaves an invalid one behind).
SELECT c.relname AS name, i.indisvalid AS valid
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'memories'::regclass AND c.relname LIKE 'memories\_embedding\_agent\_%';

-- name: agent_index_create
-- The statement that builds index $1 over agent $2's vectors, without blocking writes; the
-- server quotes the name and the agent id (format's %I and %L).
SELECT format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON memories USING hnsw (embedding vector_cosine_ops) WHERE agent_id = %L',
              $1::text, $2::text);

-- name: agent_index_drop
-- The statement that drops index $1 without blocking writes.
SELECT format('DROP INDEX CONCURRENTLY IF EXISTS %I', $1::text);
