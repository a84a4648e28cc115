-- Writes and reads of single memories. $1 is always the calling agent: every statement
-- filters by it (reads also admit memories other agents marked shared).

-- name: memory_columns
-- Fragment: a memory as the write tools return it (the sealed original is never among
-- them). Reads add its state from memory_state (decay_score, access_count, last_accessed).
id, agent_id, session_id, memory_type, content, metadata, tags, importance,
created_at, stored_at, updated_at, expires_at, invalidated_at,
invalidation_reason, invalidated_by, shared, slot, flags, reinforce_count, strength,
consolidated_into, sealed IS NOT NULL AS sealed, project

-- name: call_context
-- Name the call (and why) for the history rows this transaction's triggers write.
SELECT set_config('hindsight.call', $1, true), set_config('hindsight.reason', coalesce($2, ''), true);

-- name: begin_write
-- Start a live write: name the call (and why) for the history rows, and take the agent's
-- write lock — one live write per agent at a time, so duplicate, slot and supersession
-- checks see each other's results. Both end at commit. 7401 is hindsight's lock class.
SELECT set_config('hindsight.call', $2, true), set_config('hindsight.reason', coalesce($3, ''), true),
       pg_advisory_xact_lock(7401, hashtext($1));

-- name: insert_memory
-- Write one memory and return it. A live write whose dedup_key is already current
-- inserts nothing (the unique index decides, even between concurrent writers).
INSERT INTO memories (agent_id, id, session_id, memory_type, content, content_hash, embedding,
                      search_vector, metadata, tags, importance, created_at, expires_at, shared,
                      dedup_key, slot, flags, sealed, strength, project)
VALUES ($1, COALESCE($2, gen_random_uuid()), $3, $4, $5, $6, $7, to_tsvector('english', $8), $9, $10,
        $11, COALESCE($12, now()), $13, $14, $15, $16, COALESCE($17::text[], '{}'), $18, COALESCE($19::real, 1.0),
        $20)
ON CONFLICT (agent_id, memory_type, dedup_key) WHERE dedup_key IS NOT NULL AND invalidated_at IS NULL
DO NOTHING
RETURNING
    --@ memory_columns
;

-- name: find_exact_duplicate
-- The current memory with this dedup key (expired ones too: storing it again renews it).
SELECT id FROM memories
WHERE agent_id = $1 AND memory_type = $2 AND dedup_key = $3 AND invalidated_at IS NULL;

-- name: write_candidates
-- In one round trip: the current memory with the new one's dedup key ($3 in layer $2),
-- flagged exact, then the agent's current memories closest to its embedding ($4), the
-- near-duplicate and conflict candidates ($5 of them).
(SELECT id, memory_type, session_id, content, slot, sealed IS NOT NULL AS sealed, created_at,
        1.0::float8 AS similarity, true AS exact
 FROM memories
 WHERE agent_id = $1 AND memory_type = $2 AND dedup_key = $3 AND invalidated_at IS NULL)
UNION ALL
(SELECT id, memory_type, session_id, content, slot, sealed IS NOT NULL AS sealed, created_at,
        1 - (embedding <=> $4) AS similarity, false AS exact
 FROM memories
 WHERE agent_id = $1 AND invalidated_at IS NULL AND (expires_at IS NULL OR expires_at > now())
 ORDER BY embedding <=> $4
 LIMIT $5);

-- name: mark_likely_replaces
-- The new memory said these older similar facts changed ($3): recall ranks it above them
-- until someone confirms (invalidate_memory with replaced_by) or denies it.
UPDATE memories SET likely_replaces = $3 WHERE agent_id = $1 AND id = $2;

-- name: slot_holder
-- The current memory in a slot, if any.
SELECT id FROM memories WHERE agent_id = $1 AND slot = $2 AND invalidated_at IS NULL;

-- name: reinforce_memory
-- A duplicate write strengthens the memory it repeats: at least as important, living at
-- least as long, its strength raised to the new write's (never above where the guard
-- started it), and it takes the slot if one was named. (reinforce_state does the rest.)
UPDATE memories
SET reinforce_count = reinforce_count + 1,
    importance      = greatest(importance, $3),
    expires_at      = CASE WHEN expires_at IS NULL OR $4::timestamptz IS NULL THEN NULL
                           ELSE greatest(expires_at, $4) END,
    strength        = greatest(strength, $5),
    slot            = COALESCE($6, slot),
    updated_at      = now()
WHERE agent_id = $1 AND id = $2
RETURNING
    --@ memory_columns
;

-- name: reinforce_state
-- Seen again now: decay restarts from the memory's strength (as if just recalled).
UPDATE memory_state
SET last_accessed = now(),
    decay_score = greatest(decay_score, least(1.0, strength + least(0.1 * access_count, 0.5)))
WHERE agent_id = $1 AND id = $2;

-- name: get_memory
-- One memory by id, if it is the agent's own or shared; any state (history included).
SELECT
    --@ memory_columns
    , decay_score, access_count, last_accessed
FROM memories JOIN (SELECT agent_id, id, decay_score, access_count, last_accessed FROM memory_state) st
     USING (agent_id, id)
WHERE id = $2 AND (agent_id = $1 OR shared);

-- name: get_sealed
-- The encrypted original of a memory the agent may read.
SELECT sealed FROM memories WHERE id = $2 AND (agent_id = $1 OR shared);

-- name: own_memory_state
-- Whether the agent owns this memory, and what an update or invalidation needs to know.
SELECT content, metadata, tags, memory_type, session_id, slot, sealed, flags, invalidated_at,
       invalidation_reason, invalidated_by
FROM memories WHERE agent_id = $1 AND id = $2;

-- name: update_memory
-- Change what was given (NULL keeps the old value) and return the memory.
UPDATE memories
SET content       = COALESCE($3, content),
    content_hash  = COALESCE($4, content_hash),
    embedding     = COALESCE($5, embedding),
    search_vector = CASE WHEN $6::text IS NULL THEN search_vector
                         ELSE to_tsvector('english', $6) END,
    importance    = COALESCE($7, importance),
    metadata      = COALESCE($8, metadata),
    tags          = COALESCE($9, tags),
    dedup_key     = CASE WHEN $10::bytea IS NULL THEN dedup_key ELSE $10 END,
    sealed        = CASE WHEN $11 THEN $12 ELSE sealed END,
    flags         = COALESCE($13, flags),
    updated_at    = now()
WHERE agent_id = $1 AND id = $2
RETURNING
    --@ memory_columns
;

-- name: invalidate_memory
-- Mark a current memory as no longer true; it stays as history. $4: what replaced it.
UPDATE memories
SET invalidated_at = now(), invalidation_reason = $3, invalidated_by = $4, updated_at = now()
WHERE agent_id = $1 AND id = $2 AND invalidated_at IS NULL
RETURNING
    --@ memory_columns
;

-- name: delete_memory
-- Forget one memory for good.
DELETE FROM memories WHERE agent_id = $1 AND id = $2 RETURNING id;

-- name: list_memories
-- Browse the agent's memories (and, if asked, shared ones), newest first; $10: one project's
-- only ('' for the global ones, null for all). The agent's own and others' shared are read
-- apart, each newest first by its index, as far as the page reaches: one condition
-- `agent_id = $1 OR shared` read and sorted every row of the table (148 ms at 100,000).
-- Their state (memory_state, one row per memory, kept by a trigger) is joined once, to those.
SELECT listed.*, st.decay_score, st.access_count, st.last_accessed
FROM (
    (SELECT
        --@ memory_columns
     FROM memories
     WHERE agent_id = $1
       --@ list_filters
     ORDER BY created_at DESC, id
     LIMIT $8::int + $9::int)
    UNION ALL
    (SELECT
        --@ memory_columns
     FROM memories
     WHERE $2 AND shared AND agent_id <> $1
       --@ list_filters
     ORDER BY created_at DESC, id
     LIMIT $8::int + $9::int)
) listed
JOIN memory_state st USING (agent_id, id)
ORDER BY listed.created_at DESC, listed.id
LIMIT $8 OFFSET $9;

-- name: list_filters
-- Fragment: list_memories' filters.
AND ($3::text IS NULL OR memory_type = $3)
AND ($4::text IS NULL OR session_id = $4)
AND ($5::text[] IS NULL OR tags @> $5)
AND ($6::jsonb IS NULL OR metadata @> $6)
AND ($7 OR (invalidated_at IS NULL AND (expires_at IS NULL OR expires_at > now())))
AND ($10::text IS NULL OR project IS NOT DISTINCT FROM nullif($10, ''))

-- name: memory_history
-- What happened to one memory, oldest first.
SELECT seq, action, at, call, reason, related_id, memory_type, content, importance, slot, expires_at
FROM memory_history
WHERE agent_id = $1 AND memory_id = $2
ORDER BY seq;

-- name: project_root_seen
-- A root folder the client declared ($2, its URI) and the project name it maps to ($3, from
-- $4: 'git remote' or 'folder'): recorded on first sight, its last sighting kept current.
INSERT INTO project_roots (agent_id, root, project, source) VALUES ($1, $2, $3, $4)
ON CONFLICT (agent_id, root) DO UPDATE SET project = excluded.project, source = excluded.source, last_seen = now();

-- name: dismiss_conflict
-- "It does not replace it": drop $3 from memory $2's likely_replaces, so recall stops
-- ranking $3 under $2. Not a history event (memory_history records content and validity).
UPDATE memories SET likely_replaces = array_remove(likely_replaces, $3)
WHERE agent_id = $1 AND id = $2 AND $3 = ANY(likely_replaces)
RETURNING id;
