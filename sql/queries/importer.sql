-- Bulk import of plain lines (hindsight/store/importer.py): one transaction, every line written
-- as given, its timeline (slot, supersedes, invalidated_at) rebuilt at the times it happened.

-- name: import_known
-- What the plan must know of the agent's memories: those with an external id (a second
-- import of the same line), current slot holders, and the memory ids lines name ($2).
SELECT id, metadata->>'external_id' AS external_id, slot, created_at,
       invalidated_at IS NULL AS current, false AS archived
FROM memories
WHERE agent_id = $1
  AND (metadata ? 'external_id' OR (slot IS NOT NULL AND invalidated_at IS NULL) OR id = ANY($2::uuid[]))
UNION ALL
SELECT id, metadata->>'external_id', slot, created_at, false, true
FROM memories_archive
WHERE agent_id = $1 AND (metadata ? 'external_id' OR id = ANY($2::uuid[]));

-- name: import_memory
-- One imported memory: created when it happened, with its slot and, if it is no longer
-- true, when and by what it was replaced. No dedup key and no expiry: a restore keeps
-- what it is given.
INSERT INTO memories (agent_id, id, session_id, memory_type, content, content_hash, embedding, search_vector,
                      metadata, tags, importance, created_at, slot, invalidated_at, invalidation_reason,
                      invalidated_by, sealed, project)
VALUES ($1, $2, $3, $4, $5, $6, $7, to_tsvector('english', $8), $9, $10, $11, $12, $13, $14, $15, $16, $17, $18);

-- name: import_supersede
-- A memory the agent already had, replaced by an imported line ($5) created at $3.
UPDATE memories
SET invalidated_at = $3, invalidation_reason = $4, invalidated_by = $5, updated_at = now()
WHERE agent_id = $1 AND id = $2 AND invalidated_at IS NULL
RETURNING id;

-- name: import_history_at
-- The history row the trigger just wrote for that supersession, dated when it happened.
UPDATE memory_history SET at = $3
WHERE agent_id = $1 AND memory_id = $2
  AND seq = (SELECT max(seq) FROM memory_history WHERE agent_id = $1 AND memory_id = $2);

-- name: import_delete_live
-- --on-conflict replace: the memories the imported lines take the place of.
DELETE FROM memories WHERE agent_id = $1 AND id = ANY($2::uuid[]);

-- name: import_delete_archived
-- --on-conflict replace: the archived memories the imported lines take the place of.
DELETE FROM memories_archive WHERE agent_id = $1 AND id = ANY($2::uuid[]);
