-- Writes and reads of single memories. $1 is always the calling agent: every statement
-- filters by it (reads also admit memories other agents marked shared).

-- name: insert_memory
-- Write one memory and return it.
INSERT INTO memories (agent_id, session_id, memory_type, content, content_hash, embedding,
                      search_vector, metadata, tags, importance, created_at, expires_at, shared)
VALUES ($1, $2, $3, $4, $5, $6, to_tsvector('english', $7), $8, $9, $10,
        COALESCE($11, now()), $12, $13)
RETURNING id, agent_id, session_id, memory_type, content, metadata, tags, importance,
          access_count, decay_score, created_at, stored_at, updated_at, last_accessed,
          expires_at, invalidated_at, invalidation_reason, invalidated_by, shared;

-- name: get_memory
-- One memory by id, if it is the agent's own or shared; any state (history included).
SELECT id, agent_id, session_id, memory_type, content, metadata, tags, importance,
       access_count, decay_score, created_at, stored_at, updated_at, last_accessed,
       expires_at, invalidated_at, invalidation_reason, invalidated_by, shared
FROM memories
WHERE id = $2 AND (agent_id = $1 OR shared);

-- name: own_memory_state
-- Whether the agent owns this memory, its text, and if it is already invalidated.
SELECT content, metadata, invalidated_at, invalidation_reason FROM memories WHERE agent_id = $1 AND id = $2;

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
    updated_at    = now()
WHERE agent_id = $1 AND id = $2
RETURNING id, agent_id, session_id, memory_type, content, metadata, tags, importance,
          access_count, decay_score, created_at, stored_at, updated_at, last_accessed,
          expires_at, invalidated_at, invalidation_reason, invalidated_by, shared;

-- name: invalidate_memory
-- Mark a current memory as no longer true; it stays as history.
UPDATE memories
SET invalidated_at = now(), invalidation_reason = $3, invalidated_by = $4, updated_at = now()
WHERE agent_id = $1 AND id = $2 AND invalidated_at IS NULL
RETURNING id, agent_id, session_id, memory_type, content, metadata, tags, importance,
          access_count, decay_score, created_at, stored_at, updated_at, last_accessed,
          expires_at, invalidated_at, invalidation_reason, invalidated_by, shared;

-- name: delete_memory
-- Forget one memory for good.
DELETE FROM memories WHERE agent_id = $1 AND id = $2 RETURNING id;

-- name: list_memories
-- Browse the agent's memories (and, if asked, shared ones), newest first.
SELECT id, agent_id, session_id, memory_type, content, metadata, tags, importance,
       access_count, decay_score, created_at, stored_at, updated_at, last_accessed,
       expires_at, invalidated_at, invalidation_reason, invalidated_by, shared
FROM memories
WHERE (agent_id = $1 OR ($2 AND shared))
  AND ($3::text IS NULL OR memory_type = $3)
  AND ($4::text IS NULL OR session_id = $4)
  AND ($5::text[] IS NULL OR tags @> $5)
  AND ($6::jsonb IS NULL OR metadata @> $6)
  AND ($7 OR (invalidated_at IS NULL AND (expires_at IS NULL OR expires_at > now())))
ORDER BY created_at DESC, id
LIMIT $8 OFFSET $9;
