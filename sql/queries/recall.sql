-- The recall channels. Each is one statement a DBA can run by hand; hindsight/recall.py
-- runs them (the keyword one while the query is being embedded) and fuses their rankings.
-- Parameters shared by every channel:
--   $1 agent          $2 include shared   $3 as_of (what was current then)
--   $4 memory_type    $5 tags (all of)    $6 metadata containment (jsonb)
--   $7 from           $8 until            $9 minimum decay_score     $10 how many
-- Channel-specific parameters start at $11.

-- name: recall_filters
-- Fragment (included by the channels): current at $3 and passing the caller's filters.
AND created_at <= $3
AND (invalidated_at IS NULL OR invalidated_at > $3)
AND (expires_at IS NULL OR expires_at > $3)
AND ($9::real <= 0 OR EXISTS (SELECT 1 FROM memory_state ms WHERE ms.agent_id = memories.agent_id
                                                        AND ms.id = memories.id AND ms.decay_score >= $9::real))
AND ($4::text IS NULL OR memory_type = $4)
AND ($5::text[] IS NULL OR tags @> $5)
AND ($6::jsonb IS NULL OR metadata @> $6)
AND ($7::timestamptz IS NULL OR created_at >= $7)
AND ($8::timestamptz IS NULL OR created_at < $8)

-- name: channel_vector
-- Nearest neighbours of the query embedding ($11) by cosine distance (HNSW index).
SELECT id, 1 - (embedding <=> $11) AS similarity
FROM memories
WHERE (agent_id = $1 OR ($2 AND shared))
  --@ recall_filters
ORDER BY embedding <=> $11
LIMIT $10;

-- name: channel_keyword
-- Okapi BM25 (k1 = 1.2, b = 0.75) from the agent's term statistics. $11 is the query text
-- prepared like stored text. Each query term contributes its $12 strongest postings
-- (impact order: highest tf, then shortest memory); with fewer postings than that, as in
-- most agents, the ranking is exact.
WITH query_terms AS (
    SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', $11))
),
corpus AS (
    SELECT n_docs::float8 AS n, greatest(total_len::float8 / greatest(n_docs, 1), 1) AS avgdl
    FROM agent_stats WHERE agent_id = $1
),
idf AS (
    SELECT s.term, ln(1 + (c.n - s.df + 0.5) / (s.df + 0.5)) AS idf
    FROM term_stats s JOIN query_terms q ON s.term = q.term, corpus c
    WHERE s.agent_id = $1 AND s.df > 0
),
postings AS (
    SELECT i.idf, p.memory_id, p.tf, p.doc_len
    FROM idf i CROSS JOIN LATERAL (
        SELECT t.memory_id, t.tf, t.doc_len FROM memory_terms t
        WHERE t.agent_id = $1 AND t.term = i.term
        ORDER BY t.tf DESC, t.doc_len
        LIMIT $12
    ) p
),
scored AS (
    SELECT p.memory_id,
           sum(p.idf * p.tf * 2.2 / (p.tf + 1.2 * (0.25 + 0.75 * p.doc_len / c.avgdl))) AS score
    FROM postings p, corpus c
    GROUP BY p.memory_id
    ORDER BY score DESC
    LIMIT 200
)
SELECT id, s.score
FROM scored s JOIN memories ON agent_id = $1 AND id = s.memory_id
WHERE $2::boolean IS NOT NULL  -- own memories only: shared ones come from channel_shared_keyword
  --@ recall_filters
ORDER BY s.score DESC
LIMIT $10;

-- name: channel_shared_keyword
-- Full-text matches among memories other agents shared (a small set), by ts_rank_cd.
WITH q AS (
    SELECT NULLIF(replace(plainto_tsquery('english', $11)::text, ' & ', ' | '), '')::tsquery AS q
)
SELECT id, ts_rank_cd(search_vector, q.q) AS score
FROM memories, q
WHERE $2 AND shared AND agent_id <> $1 AND search_vector @@ q.q
  --@ recall_filters
ORDER BY score DESC
LIMIT $10;

-- name: channel_time_window
-- Memories from the window the query names ($12 to $13), most similar first. Exact
-- (the "+ 0" keeps the planner from an HNSW scan that a narrow window would starve).
SELECT id, 1 - (embedding <=> $11) AS similarity
FROM memories
WHERE (agent_id = $1 OR ($2 AND shared)) AND created_at >= $12 AND created_at < $13
  --@ recall_filters
ORDER BY (embedding <=> $11) + 0
LIMIT $10;

-- name: channel_recent_task
-- The most recent memories of the same task type ($11) or session ($12).
SELECT id
FROM memories
WHERE agent_id = $1 AND $2::boolean IS NOT NULL  -- own memories only
  AND (($11::text IS NOT NULL AND metadata ->> 'task_type' = $11)
       OR ($12::text IS NOT NULL AND session_id = $12))
  --@ recall_filters
ORDER BY created_at DESC
LIMIT $10;

-- name: channel_tools
-- The agent's memories that used one of the tools ($11, lower-cased): failures first, then
-- the most recent, from the memory_tools index (the latest 50 of each tool).
SELECT id
FROM (
    SELECT t.memory_id, bool_or(t.failed) AS failed, max(t.created_at) AS used_at
    FROM unnest($11::text[]) AS q(tool)
    CROSS JOIN LATERAL (
        SELECT memory_id, failed, created_at FROM memory_tools
        WHERE agent_id = $1 AND tool = q.tool
        ORDER BY failed DESC, created_at DESC
        LIMIT 50
    ) t
    GROUP BY t.memory_id
) used JOIN memories ON agent_id = $1 AND id = used.memory_id
WHERE $2::boolean IS NOT NULL  -- own memories only
  --@ recall_filters
ORDER BY used.failed DESC, used.used_at DESC
LIMIT $10;

-- name: channel_entities
-- Memories whose metadata.entities or tags hold a name the query mentions ($11), the ones
-- most similar to the query embedding ($12) first (among the latest 2,000 such memories).
SELECT id, 1 - (embedding <=> $12) AS similarity
FROM (
    SELECT id, embedding
    FROM memories
    WHERE (agent_id = $1 OR ($2 AND shared))
      AND ((metadata -> 'entities') ?| $11 OR tags && $11)
      --@ recall_filters
    ORDER BY created_at DESC
    LIMIT 2000
) named
ORDER BY embedding <=> $12
LIMIT $10;

-- name: recall_rows
-- The fused winners ($2), with their similarity to the query embedding ($3).
SELECT id, agent_id, memory_type, content, metadata, tags, importance, decay_score, flags, slot,
       created_at, last_accessed, shared, 1 - (embedding <=> $3) AS similarity
FROM memories JOIN (SELECT agent_id, id, decay_score, access_count, last_accessed FROM memory_state) st
     USING (agent_id, id)
WHERE id = ANY($2) AND (agent_id = $1 OR shared);

-- name: record_access
-- Recall's bookkeeping, batched and off the latency path; memory_state is narrow, so this
-- is a HOT update touching no index. $2 ids, $3 how often each was returned, $4 when.
-- Being recalled restores strength at once (hindsight_decay at zero days since access),
-- so a fading memory recovers.
UPDATE memory_state m
SET access_count = m.access_count + a.n, last_accessed = greatest(m.last_accessed, $4),
    decay_score = greatest(m.decay_score, least(1.0, m.strength + least(0.1 * (m.access_count + a.n), 0.5)))
FROM unnest($2::uuid[], $3::int[]) AS a(id, n)
WHERE m.agent_id = $1 AND m.id = a.id;
