-- Export and exact restore (hindsight/store/transfer.py): every column a memory has, its state
-- and its history, so `hindsight export | hindsight import` into an empty database gives
-- the same rows.

-- name: export_memories
-- Every column of the agent's live memories, with their state, oldest stored first.
SELECT m.id, m.session_id, m.memory_type, m.content, m.metadata, m.tags, m.importance, m.created_at,
       m.stored_at, m.updated_at, m.expires_at, m.invalidated_at, m.invalidation_reason, m.invalidated_by,
       m.shared, m.slot, m.flags, m.sealed, m.dedup_key, m.strength, m.reinforce_count, m.consolidated_into,
       m.likely_replaces, m.project, s.decay_score, s.access_count, s.last_accessed
FROM memories m JOIN memory_state s USING (agent_id, id)
WHERE m.agent_id = $1
ORDER BY m.stored_at, m.id;

-- name: export_history
-- The agent's whole history (deleted memories' trails too), in order.
SELECT memory_id, action, at, call, reason, related_id, memory_type, content, metadata, importance, slot, expires_at
FROM memory_history WHERE agent_id = $1 ORDER BY seq;

-- name: restore_insert
-- One exported memory, every column as given.
INSERT INTO memories (agent_id, id, session_id, memory_type, content, content_hash, embedding, search_vector,
                      metadata, tags, importance, created_at, stored_at, updated_at, expires_at, invalidated_at,
                      invalidation_reason, invalidated_by, shared, dedup_key, slot, flags, sealed, strength,
                      reinforce_count, consolidated_into, likely_replaces, project)
VALUES ($1, $2, $3, $4, $5, $6, $7, to_tsvector('english', $8), $9, $10, $11, COALESCE($12, now()),
        COALESCE($13, now()), COALESCE($14, now()), $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26,
        COALESCE($27::uuid[], '{}'), $28);

-- name: restore_history
-- One history row as exported (or as an import's timeline dates it).
INSERT INTO memory_history (agent_id, memory_id, action, at, call, reason, related_id, memory_type, content,
                            metadata, importance, slot, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);

-- name: skip_history
-- This transaction restores history as exported: the insert trigger writes none of its own.
SELECT set_config('hindsight.skip_history', 'on', true);

-- name: export_archive
-- Every column of the agent's archived memories, oldest archived first.
SELECT id, session_id, memory_type, content, metadata, tags, importance, created_at, stored_at, updated_at,
       expires_at, invalidated_at, invalidation_reason, invalidated_by, shared, slot, flags, sealed, dedup_key,
       strength, reinforce_count, consolidated_into, decay_score, access_count, last_accessed, doc_len,
       archived_at, archive_reason, project
FROM memories_archive
WHERE agent_id = $1
ORDER BY archived_at, id;

-- name: restore_archive_insert
-- One exported archived memory, back into the archive.
INSERT INTO memories_archive (agent_id, id, session_id, memory_type, content, content_hash, embedding,
                              search_vector, metadata, tags, importance, created_at, stored_at, updated_at,
                              expires_at, invalidated_at, invalidation_reason, invalidated_by, shared, dedup_key,
                              slot, flags, sealed, strength, reinforce_count, consolidated_into, decay_score,
                              access_count, last_accessed, doc_len, archived_at, archive_reason, project, seq)
VALUES ($1, $2, $3, $4, $5, $6, $7, to_tsvector('english', $8), $9, $10, $11, COALESCE($12, now()),
        COALESCE($13, now()), COALESCE($14, now()), $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26,
        $27, $28, $29, $30, $31, $32, $33, nextval('memories_seq'));

-- name: restore_present
-- Which of the exported memory ids ($2) this agent already has: live, archived, or the
-- trail of one that was deleted (a re-import does not bring back what was forgotten).
SELECT id FROM memories WHERE agent_id = $1 AND id = ANY($2::uuid[])
UNION
SELECT id FROM memories_archive WHERE agent_id = $1 AND id = ANY($2::uuid[])
UNION
SELECT memory_id FROM memory_history WHERE agent_id = $1 AND memory_id = ANY($2::uuid[]);

-- name: restore_remove_memories
-- --on-conflict replace: the rows the exported ones take the place of (restore_remove_history follows).
WITH archived AS (
    DELETE FROM memories_archive WHERE agent_id = $1 AND id = ANY($2::uuid[])
)
DELETE FROM memories WHERE agent_id = $1 AND id = ANY($2::uuid[]);

-- name: restore_remove_history
-- --on-conflict replace: the history of the memories the exported ones replace.
DELETE FROM memory_history WHERE agent_id = $1 AND memory_id = ANY($2::uuid[]);
