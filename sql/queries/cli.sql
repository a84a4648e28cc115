-- The command line's own reads (hindsight/cli/): ids by prefix, archived memories.

-- name: resolve_id_prefix
-- Memories of agent $1 (live or archived) whose id starts with $2: a prefix typed by hand.
(SELECT id FROM memories WHERE agent_id = $1 AND id::text LIKE $2 || '%' LIMIT 3)
UNION
(SELECT id FROM memories_archive WHERE agent_id = $1 AND id::text LIKE $2 || '%' LIMIT 3)
LIMIT 3;

-- name: show_archived
-- One archived memory, every column but the vector and the sealed original.
SELECT id, agent_id, session_id, memory_type, content, metadata, tags, importance, created_at, stored_at,
       updated_at, expires_at, invalidated_at, invalidation_reason, invalidated_by, shared, slot, flags,
       reinforce_count, strength, consolidated_into, sealed IS NOT NULL AS sealed, decay_score, access_count,
       last_accessed, archived_at, archive_reason
FROM memories_archive WHERE agent_id = $1 AND id = $2;
