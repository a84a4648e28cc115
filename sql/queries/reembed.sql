-- Re-embedding every memory with another embedder (hindsight/upkeep/reembed.py), while recall
-- keeps using the old vectors: new vectors go to a shadow column, embedding_next, which
-- takes the old column's place at the end. {dimension} is filled with an integer.

-- name: reembed_prepare
-- Start (or resume) a re-embed: the shadow column, and a trigger that clears it when a
-- memory's content changes meanwhile, so that memory is embedded again.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS embedding_next vector({dimension});
CREATE TABLE IF NOT EXISTS reembed_jobs (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    embedder    text        NOT NULL,
    dimension   integer     NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    embedded    bigint      NOT NULL DEFAULT 0
);
CREATE OR REPLACE FUNCTION memories_reembed_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.embedding_next := NULL;
    RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER memories_reembed_stale BEFORE UPDATE OF content ON memories
    FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content) EXECUTE FUNCTION memories_reembed_stale();

-- name: reembed_open_job
-- The unfinished re-embed job, if any.
SELECT id, embedder, dimension, embedded, started_at FROM reembed_jobs WHERE finished_at IS NULL ORDER BY id LIMIT 1;

-- name: reembed_shadow_dimension
-- The shadow column's dimension, or NULL when no re-embed is under way.
SELECT atttypmod FROM pg_attribute
WHERE attrelid = 'memories'::regclass AND attname = 'embedding_next' AND NOT attisdropped;

-- name: reembed_new_job
-- Start a re-embed job for embedder $1 ($2 dimensions).
INSERT INTO reembed_jobs (embedder, dimension) VALUES ($1, $2) RETURNING id, embedded;

-- name: reembed_counts
-- How many memories have no new vector yet, and how many there are.
SELECT count(*) FILTER (WHERE embedding_next IS NULL) AS todo, count(*) AS total FROM memories;

-- name: reembed_batch
-- The next memories without a new vector, in key order.
SELECT agent_id, id, content FROM memories WHERE embedding_next IS NULL ORDER BY agent_id, id LIMIT $1;

-- name: reembed_store
-- Write new vectors; a memory whose content changed since it was read is left for later.
UPDATE memories m SET embedding_next = v.vec::vector
FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[]) AS v(agent_id, id, vec, content)
WHERE m.agent_id = v.agent_id AND m.id = v.id AND m.content = v.content;

-- name: reembed_progress
-- Count $2 more memories embedded by job $1.
UPDATE reembed_jobs SET embedded = embedded + $2 WHERE id = $1;

-- name: reembed_index
-- The vector index of the new column, built without blocking writes.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_embedding_next_hnsw ON memories
    USING hnsw (embedding_next vector_cosine_ops);

-- name: reembed_lock
-- The switch: writes wait for the few seconds it takes.
LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE;

-- name: reembed_switch
-- The new vectors take the old ones' place: column, index and the stale-vector trigger.
DROP TRIGGER memories_reembed_stale ON memories;
DROP FUNCTION memories_reembed_stale();
ALTER TABLE memories DROP COLUMN embedding;
ALTER TABLE memories RENAME COLUMN embedding_next TO embedding;
ALTER TABLE memories ALTER COLUMN embedding SET NOT NULL;
ALTER INDEX memories_embedding_next_hnsw RENAME TO memories_embedding_hnsw;

-- name: reembed_finish
-- Mark re-embed job $1 finished.
UPDATE reembed_jobs SET finished_at = now() WHERE id = $1;
