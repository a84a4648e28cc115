-- name: recall_hybrid
-- Vector and keyword channels fused by reciprocal rank (k = 60).
--   $1 agent  $2 query embedding  $3 include shared  $4 memory_type  $5 tags (all of)
--   $6 metadata containment  $7 candidates per channel  $8 keyword query text  $9 top k
WITH vector AS (
    SELECT agent_id, id, row_number() OVER (ORDER BY distance) AS rank
    FROM (
        SELECT agent_id, id, embedding <=> $2 AS distance
        FROM memories
        WHERE (agent_id = $1 OR ($3 AND shared))
          AND invalidated_at IS NULL AND (expires_at IS NULL OR expires_at > now())
          AND ($4::text IS NULL OR memory_type = $4)
          AND ($5::text[] IS NULL OR tags @> $5)
          AND ($6::jsonb IS NULL OR metadata @> $6)
        ORDER BY embedding <=> $2
        LIMIT $7
    ) nearest
),
keyword_query AS (
    -- any of the query's words, not all of them
    SELECT NULLIF(replace(plainto_tsquery('english', $8)::text, ' & ', ' | '), '')::tsquery AS q
),
keyword AS (
    SELECT agent_id, id, row_number() OVER (ORDER BY score DESC) AS rank
    FROM (
        SELECT m.agent_id, m.id, ts_rank_cd(m.search_vector, k.q) AS score
        FROM memories m, keyword_query k
        WHERE k.q IS NOT NULL AND m.search_vector @@ k.q
          AND (m.agent_id = $1 OR ($3 AND m.shared))
          AND m.invalidated_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
          AND ($4::text IS NULL OR m.memory_type = $4)
          AND ($5::text[] IS NULL OR m.tags @> $5)
          AND ($6::jsonb IS NULL OR m.metadata @> $6)
        ORDER BY score DESC
        LIMIT $7
    ) matched
),
fused AS (
    SELECT agent_id, id, sum(1.0 / (60 + rank)) AS score, array_agg(channel ORDER BY channel) AS channels
    FROM (SELECT agent_id, id, rank, 'vector' AS channel FROM vector
          UNION ALL
          SELECT agent_id, id, rank, 'keyword' AS channel FROM keyword) hits
    GROUP BY agent_id, id
)
SELECT m.id, m.agent_id, m.memory_type, m.content, m.metadata, m.tags, m.importance,
       m.created_at, m.shared, f.score, f.channels
FROM fused f JOIN memories m USING (agent_id, id)
ORDER BY f.score DESC, m.created_at DESC
LIMIT $9;
