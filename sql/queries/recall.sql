-- The recall statements. Each is one statement a DBA can run by hand; hindsight/recall/search.py
-- runs the keyword channels and then recall_rows for what they found while the query is being
-- embedded, then one statement, recall_vector (or recall_vector_hinted), that finds the
-- nearest memories and brings the rows it does not have yet, and ranks what comes back
-- (hindsight/rules/scoring.py).
-- Parameters shared by all (hindsight/recall/request.py: Filters, then the limit):
--   $1 agent          $2 include shared   $3 as_of (what was current then)
--   $4 memory_type    $5 tags (all of)    $6 metadata containment (jsonb)
--   $7 from           $8 until            $9 minimum decay_score
--   $10 project (only its memories; '' the global ones; null any)   $11 how many per channel
-- Statement-specific parameters start at $12.

-- name: recall_filters
-- Fragment (included by the channels): current at $3 and passing the caller's filters.
--@ recall_filters_row
--@ recall_filter_decay

-- name: recall_filters_row
-- Fragment: the filters a memory's own row answers (recall_filters without the decay cut).
AND created_at <= $3
AND (invalidated_at IS NULL OR invalidated_at > $3)
AND (expires_at IS NULL OR expires_at > $3)
AND ($4::text IS NULL OR memory_type = $4)
AND ($5::text[] IS NULL OR tags @> $5)
AND ($6::jsonb IS NULL OR metadata @> $6)
AND ($7::timestamptz IS NULL OR created_at >= $7)
AND ($8::timestamptz IS NULL OR created_at < $8)
AND ($10::text IS NULL OR project IS NOT DISTINCT FROM nullif($10, ''))

-- name: recall_filter_decay
-- Fragment: the decay cut $9, a key lookup in memory_state (0 for none).
AND ($9::real <= 0 OR (SELECT ms.decay_score FROM memory_state ms
                       WHERE ms.agent_id = memories.agent_id AND ms.id = memories.id) >= $9::real)

-- name: channel_keyword
-- Okapi BM25 (k1 = 1.2, b = 0.75) from the agent's term statistics. $12 is the query text
-- prepared like stored text. Each query term contributes its $13 strongest postings
-- (impact order: highest tf, then shortest memory); with fewer postings than that, as in
-- most agents, the ranking is exact. A memory's context words count 0.3 (see 0006).
-- $14 is the query's words in the other language (hindsight/rules/bilingual.py), each
-- counted at $15 of a query word; one the agent's memories do not hold costs nothing. $16 is
-- the tools of each kind of tool the query asks which one of (rules/tools.py: "linter" → ruff
-- flake8 …; $12 then leaves the kind's name out), each counted at $17.
WITH query_terms AS (
    SELECT term, max(weight) AS weight FROM (
        SELECT lexeme AS term, 1.0::float8 AS weight FROM unnest(to_tsvector('english', $12))
        UNION ALL
        SELECT lexeme, $15::float8 FROM unnest(to_tsvector('english', $14))
        UNION ALL
        SELECT lexeme, $17::float8 FROM unnest(to_tsvector('english', $16))
    ) terms
    GROUP BY term
),
corpus AS (
    SELECT n_docs::float8 AS n, greatest(total_len::float8 / greatest(n_docs, 1), 1) AS avgdl
    FROM agent_stats WHERE agent_id = $1
),
idf AS MATERIALIZED (  -- once per term, in float8: inlined, it was computed again for each
    -- posting, in numeric (df + 0.5); the same scores, a third less time (benchmarks/README.md)
    SELECT s.term, q.weight * ln(1 + (c.n - s.df + 0.5) / (s.df::float8 + 0.5)) AS idf
    FROM term_stats s JOIN query_terms q ON s.term = q.term, corpus c
    WHERE s.agent_id = $1 AND s.df > 0
),
postings AS (
    SELECT i.idf, p.memory_id, p.tf, p.doc_len
    FROM idf i CROSS JOIN LATERAL (
        SELECT t.memory_id, t.tf, t.doc_len FROM memory_terms t
        WHERE t.agent_id = $1 AND t.term = i.term
        ORDER BY t.tf DESC, t.doc_len
        LIMIT $13
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
LIMIT $11;

-- name: query_terms_known
-- Not the channels' parameters: for each of a question's words ($2: the word with its
-- inflections and whole translations, as one text: bilingual.term_groups), whether a memory
-- of agent $1 holds any of them, and in how many memories its most common form is (with the
-- agent's memory count): a question that names things never stored, or a memory that lacks
-- its rarest words, is one recall may call not relevant (hindsight/rules/relevance.py).
SELECT g.n, coalesce(bool_or(s.df > 0), false) AS known, coalesce(max(s.df), 0) AS df,
       (SELECT n_docs FROM agent_stats WHERE agent_id = $1) AS docs
FROM unnest($2::text[]) WITH ORDINALITY AS g(forms, n)
LEFT JOIN LATERAL unnest(to_tsvector('english', g.forms)) AS l ON true
LEFT JOIN term_stats s ON s.agent_id = $1 AND s.term = l.lexeme
GROUP BY g.n
ORDER BY g.n;

-- name: channel_shared_keyword
-- Full-text matches among memories other agents shared (a small set), by ts_rank_cd.
WITH q AS (
    SELECT NULLIF(replace(plainto_tsquery('english', $12)::text, ' & ', ' | '), '')::tsquery AS q
)
SELECT agent_id, id, ts_rank_cd(search_vector, q.q) AS score
FROM memories, q
WHERE $2 AND shared AND agent_id <> $1 AND search_vector @@ q.q
  --@ recall_filters
ORDER BY score DESC
LIMIT $11;

-- name: candidate_vector
-- Fragment: the nearest neighbours of the query embedding ($12) among what the agent may
-- recall, nearest first. $13 says how they are found (hindsight.rules.plans.vector_plan):
-- true, an exact scan of the agent's rows, for an agent whose rows are a small share of a
-- shared HNSW index (a filtered index scan starves there and misses its nearest); false, an
-- HNSW index scanned on until $11 rows pass the filters (hnsw.iterative_scan): the agent's
-- own (rules.vector_indexes) when it has one, else the shared one. Other agents' shared
-- memories (with $2) are a branch of their own, scanned exactly: they are few, and the
-- agent's own branch then names one agent, which is what lets its index serve it. Plans
-- are custom, so the branches not chosen are folded away when the statement is planned.
vector AS (
    SELECT agent_id, id, distance, row_number() OVER (ORDER BY distance) AS rank FROM (
        SELECT agent_id, id, distance FROM (
            (SELECT agent_id, id, embedding <=> $12 AS distance FROM memories
             WHERE NOT $13::boolean AND agent_id = $1
               --@ recall_filters
             ORDER BY embedding <=> $12
             LIMIT $11)
            UNION ALL
            (SELECT agent_id, id, distance FROM (  -- all the agent's rows by distance (not the
                SELECT agent_id, id, embedding <=> $12 AS distance FROM memories  -- index's form)
                WHERE $13::boolean AND agent_id = $1
                  --@ recall_filters_row
                ORDER BY (embedding <=> $12) + 0
                OFFSET 0  -- the decay cut is looked up nearest first, only until $11 rows pass
             ) memories
             WHERE true
               --@ recall_filter_decay
             LIMIT $11)
            UNION ALL
            (SELECT agent_id, id, distance FROM (  -- other agents' shared memories, exactly
                SELECT agent_id, id, embedding <=> $12 AS distance FROM memories
                WHERE $2 AND shared AND agent_id <> $1
                  --@ recall_filters_row
                ORDER BY (embedding <=> $12) + 0
                OFFSET 0
             ) memories
             WHERE true
               --@ recall_filter_decay
             LIMIT $11)
        ) found
        ORDER BY distance
        LIMIT $11
    ) nearest
)

-- name: candidate_rows
-- Fragment: for the seeds (agent_id, id, strong, similarity), their rows with everything ranking needs;
-- and, for the strong ones (the best 20 of the vector and keyword channels, the caller's
-- session), the memory just before and just after each in its session, with the minutes
-- between them (the context ranking borrows from), and the keys of the ones two before and
-- two after (prev2, next2: a speaker's own turn across the other's reply; not fetched).
-- Each row also brings the embeddings and the start of the text of the memories it replaced
-- (`replaced`, `replaced_text`: a slot's earlier values, invalidate_memory's replaced_by),
-- whose nearness to the question ranking lends it (rules/scoring.py, step 1); two index
-- lookups (memories, the archive) that find nothing for most rows.
-- Rows are reached by their key (agent_id, id) so that each is an index lookup.
seed AS (
    SELECT agent_id, id, bool_or(strong) AS strong, max(similarity) AS similarity FROM seeds GROUP BY agent_id, id
), around AS (  -- each seed, and the neighbours in its session of the strong ones
    SELECT s.agent_id, s.id AS seed, s.strong, s.similarity, p.ids[1] AS prev, p.at AS prev_at, p.ids[2] AS prev2,
           n.ids[1] AS next, n.at AS next_at, n.ids[2] AS next2
    FROM seed s
    LEFT JOIN LATERAL (SELECT agent_id, session_id, created_at, seq FROM memories  -- a key lookup,
                       WHERE s.strong AND agent_id = s.agent_id AND id = s.id LIMIT 1) m ON true  -- strong seeds only
    LEFT JOIN LATERAL (  -- the two before it, nearest first (one index scan)
        SELECT array_agg(id ORDER BY created_at DESC, seq DESC) AS ids, max(created_at) AS at FROM (
            SELECT id, created_at, seq FROM memories
            WHERE s.strong AND m.session_id IS NOT NULL AND agent_id = m.agent_id AND session_id = m.session_id
              AND (created_at, seq) < (m.created_at, m.seq) AND created_at <= $3
            ORDER BY created_at DESC, seq DESC LIMIT 2) two) p ON true
    LEFT JOIN LATERAL (  -- the two after it
        SELECT array_agg(id ORDER BY created_at, seq) AS ids, min(created_at) AS at FROM (
            SELECT id, created_at, seq FROM memories
            WHERE s.strong AND m.session_id IS NOT NULL AND agent_id = m.agent_id AND session_id = m.session_id
              AND (created_at, seq) > (m.created_at, m.seq) AND created_at <= $3
            ORDER BY created_at, seq LIMIT 2) two) n ON true
), wanted AS (  -- seeds with their neighbours named, then the nearest neighbours themselves
    SELECT DISTINCT ON (agent_id, id) agent_id, id, strong, similarity, prev, prev_at, prev2, next, next_at, next2
    FROM (
        SELECT agent_id, seed AS id, strong, similarity, prev, prev_at, prev2, next, next_at, next2, 0 AS pick
        FROM around
        UNION ALL SELECT agent_id, prev, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1 FROM around
                  WHERE prev IS NOT NULL
        UNION ALL SELECT agent_id, next, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1 FROM around
                  WHERE next IS NOT NULL
    ) all_rows
    ORDER BY agent_id, id, pick
)
SELECT memories.id, memories.agent_id, session_id, memory_type, content, metadata, tags, importance, flags, slot,
       created_at, shared, likely_replaces, st.decay_score, st.last_accessed, embedding, project,
       w.prev, extract(epoch FROM created_at - w.prev_at) / 60 AS prev_minutes,
       w.next, extract(epoch FROM w.next_at - created_at) / 60 AS next_minutes, w.prev2, w.next2,
       w.strong, w.similarity, rp.replaced, rp.replaced_text
FROM wanted w
CROSS JOIN LATERAL (SELECT * FROM memories WHERE agent_id = w.agent_id AND id = w.id LIMIT 1) memories
CROSS JOIN LATERAL (SELECT decay_score, last_accessed FROM memory_state ms
                    WHERE ms.agent_id = memories.agent_id AND ms.id = memories.id) st
LEFT JOIN LATERAL (  -- what it replaced (their invalidated_by), the latest four by $3 (as_of), in
    -- memories or in the archive (superseded long ago); another agent's shared memory lends
    -- only from what it shared too
    SELECT array_agg(embedding::real[] ORDER BY invalidated_at DESC) AS replaced,
           array_agg(left(content, 400) ORDER BY invalidated_at DESC) AS replaced_text FROM (
        SELECT embedding, content, invalidated_at FROM (
            SELECT m1.embedding, m1.content, m1.invalidated_at, m1.shared FROM memories m1
            WHERE m1.agent_id = memories.agent_id AND m1.invalidated_by = memories.id
            UNION ALL
            SELECT a1.embedding, a1.content, a1.invalidated_at, a1.shared FROM memories_archive a1
            WHERE a1.agent_id = memories.agent_id AND a1.invalidated_by = memories.id
        ) r
        WHERE r.invalidated_at <= $3 AND (memories.agent_id = $1 OR r.shared)
        ORDER BY invalidated_at DESC LIMIT 4) r) rp ON true
WHERE (memories.agent_id = $1 OR ($2 AND shared))
  --@ recall_filters_row
  AND ($9::real <= 0 OR st.decay_score >= $9::real)  -- recall_filter_decay, from the row in hand

-- name: recall_rows
-- The rows ranking needs for the seeds $12 (agents), $13 (ids), $14 (strong: their session
-- neighbours too), with everything ranking reads (candidate_rows). Recall asks it twice: for
-- what the keyword channels found, while the query is being embedded, and then for what
-- recall_vector (or recall_vector_hinted) found that it does not have yet.
WITH seeds AS (
    SELECT agent_id, id, strong, NULL::float8 AS similarity
    FROM unnest($12::text[], $13::uuid[], $14::boolean[]) AS s(agent_id, id, strong)
    WHERE $11::int IS NOT NULL  -- the channels' limit does not apply here; named so $11 is typed
),
  --@ candidate_rows
;

-- name: found_rows
-- Fragment: after `found` (agent_id, id, strong, similarity: what the vector channel and the
-- hints found) and $14-$16 (the keys of the rows in hand, from the keyword channels, and
-- whether their neighbours came too): the rows ranking needs of what is not in hand
-- (candidate_rows; `similarity` the cosine to the query where the vector channel found it),
-- then each find already in hand as its key alone (no content) with that cosine.
held AS (
    SELECT agent_id, id, strong FROM unnest($14::text[], $15::uuid[], $16::boolean[]) AS h(agent_id, id, strong)
), finds AS (
    SELECT agent_id, id, bool_or(strong) AS strong, max(similarity) AS similarity FROM found GROUP BY agent_id, id
), seeds AS (  -- not in hand, or in hand without the neighbours a strong find brings
    SELECT f.agent_id, f.id, f.strong, f.similarity FROM finds f
    WHERE NOT EXISTS (SELECT 1 FROM held h WHERE h.agent_id = f.agent_id AND h.id = f.id AND (h.strong OR NOT f.strong))
),
  --@ candidate_rows
UNION ALL
SELECT f.id, f.agent_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, f.strong, f.similarity, NULL, NULL
FROM finds f
WHERE EXISTS (SELECT 1 FROM held h WHERE h.agent_id = f.agent_id AND h.id = f.id AND (h.strong OR NOT f.strong))

-- name: recall_vector
-- The one statement once the query is embedded ($12; $13 the plan): the vector channel's
-- nearest memories (strong: among the best 20, so their session neighbours come too) and,
-- in the same round trip, the rows of those not in hand yet (found_rows; $14-$16 the rows
-- in hand).
WITH
  --@ candidate_vector
, found AS (
    SELECT agent_id, id, rank <= 20 AS strong, 1 - distance AS similarity FROM vector
),
  --@ found_rows
;

-- name: recall_vector_hinted
-- recall_vector, plus what the hints bring (strong: their session neighbours come too):
--   window   the memories of the time window the query names ($17 to $18), most similar
--            first, among its latest 5,000 (exact: a narrow window would starve HNSW; the
--            decay cut applies to the most similar, not to the 5,000); with $22 (a window
--            of more than 5,000 of the agent's rows, when its vector plan is the index:
--            hindsight.rules.plans.window_plan) the agent's own come from the HNSW index,
--            scanned on until $11 rows of the window pass the filters (the latest 5,000 by
--            time took 20 ms to order at 100,000 rows, and left the rest of the window out);
--   tools    memories that used a tool the caller names ($19, lower-cased), most similar
--            first, among the latest 200 of each tool;
--   recent   the latest memories of the caller's session ($20) or task type ($21).
WITH
  --@ candidate_vector
, window_ AS (  -- the agent's own rows and others' shared ones apart (one condition `agent_id
    -- = $1 OR shared` read every row of the table, in no index's order); the decay cut is
    -- looked up nearest first, only until $11 rows pass
    (SELECT agent_id, id FROM (
        SELECT agent_id, id FROM (
            SELECT agent_id, id, embedding FROM (
                (SELECT agent_id, id, embedding, created_at FROM memories
                 WHERE $17::timestamptz IS NOT NULL AND NOT $22::boolean AND agent_id = $1
                   AND created_at >= $17 AND created_at < $18
                   --@ recall_filters_row
                 ORDER BY created_at DESC
                 LIMIT 5000)
                UNION ALL
                (SELECT agent_id, id, embedding, created_at FROM memories
                 WHERE $17::timestamptz IS NOT NULL AND $2 AND shared AND agent_id <> $1
                   AND created_at >= $17 AND created_at < $18
                   --@ recall_filters_row
                 ORDER BY created_at DESC
                 LIMIT 5000)
            ) latest
            ORDER BY created_at DESC
            LIMIT 5000
        ) w
        ORDER BY (embedding <=> $12) + 0
        OFFSET 0
    ) memories
    WHERE true
      --@ recall_filter_decay
    LIMIT $11)
    UNION ALL
    (SELECT agent_id, id FROM memories  -- a wide window: the agent's own by the index
     WHERE $17::timestamptz IS NOT NULL AND $22::boolean AND agent_id = $1
       AND created_at >= $17 AND created_at < $18
       --@ recall_filters
     ORDER BY embedding <=> $12
     LIMIT $11)
), tool AS (
    SELECT agent_id, id FROM (
        SELECT DISTINCT t.memory_id FROM unnest($19::text[]) AS q(tool)
        CROSS JOIN LATERAL (
            SELECT memory_id FROM memory_tools
            WHERE agent_id = $1 AND tool = q.tool
            ORDER BY failed DESC, created_at DESC
            LIMIT 200
        ) t
    ) used JOIN memories ON agent_id = $1 AND id = used.memory_id
    WHERE true
      --@ recall_filters
    ORDER BY (embedding <=> $12) + 0
    LIMIT $11
), recent AS (
    SELECT agent_id, id FROM memories
    WHERE agent_id = $1 AND (($20::text IS NOT NULL AND session_id = $20)
                             OR ($21::text IS NOT NULL AND metadata ->> 'task_type' = $21))
      --@ recall_filters
    ORDER BY created_at DESC
    LIMIT $11
), found AS (
    SELECT agent_id, id, rank <= 20 AS strong, 1 - distance AS similarity FROM vector
    UNION ALL SELECT agent_id, id, false, NULL FROM window_
    UNION ALL SELECT agent_id, id, false, NULL FROM tool
    UNION ALL SELECT agent_id, id, true, NULL FROM recent
),
  --@ found_rows
;

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

-- name: decay_computed_at
-- When decay_score was last recomputed (the latest maintenance run that changed things).
-- A question about a time before it is not judged by today's fading.
SELECT max(as_of) FROM maintenance_runs WHERE status = 'succeeded' AND NOT dry_run;

-- name: window_rows
-- How many of agent $1's rows were written in the window $2 to $3, counted up to $4 (an
-- index-only count, whatever their state): whether recall_vector_hinted finds the window's
-- nearest by the index (hindsight.rules.plans.window_plan). Run while the query is being
-- embedded.
SELECT count(*) FROM (SELECT 1 FROM memories WHERE agent_id = $1 AND created_at >= $2 AND created_at < $3
                      LIMIT $4) capped;

-- name: vector_plan_inputs
-- What hindsight.rules.plans.vector_plan decides from: the agent's memories, counted up
-- to $2 (an index-only count), and about how many rows the table holds. Run while the
-- query is being embedded.
SELECT (SELECT count(*) FROM (SELECT 1 FROM memories WHERE agent_id = $1 LIMIT $2) capped) AS agent_rows,
       (SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'memories'::regclass) AS all_rows;

-- name: type_names
-- The names of the types $1 (oids), in their order, as SQL writes them (hindsight.data.ahead
-- casts each argument it writes into a statement's text to its parameter's type).
SELECT format_type(t.oid, NULL) AS name FROM unnest($1::oid[]) WITH ORDINALITY AS t(oid, n) ORDER BY t.n;
