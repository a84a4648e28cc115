-- What `hindsight ui` reads (hindsight/ui/data.py), and the one write of its own:
-- dismissing a possible conflict. Every other correction goes through the tools' code.
-- $1 is always the agent the page is about.

-- name: ui_agents
-- Agents that have memories, live or archived (the switcher when any agent is allowed).
SELECT agent_id FROM agent_stats WHERE n_docs > 0
UNION
SELECT DISTINCT agent_id FROM memories_archive
ORDER BY 1
LIMIT 200;

-- name: ui_activity_by_hour
-- What happened to the agent's memories in [$2, $3), by hour (the page counts days in
-- the user's zone): stored, reinforced, corrected (updated, invalidated, superseded,
-- deleted, restored) and maintenance (archived, consolidated).
SELECT date_trunc('hour', at) AS hour,
       count(*) FILTER (WHERE action = 'create') AS stored,
       count(*) FILTER (WHERE action = 'reinforce') AS reinforced,
       count(*) FILTER (WHERE action IN ('update', 'invalidate', 'supersede', 'delete', 'restore')) AS corrected,
       count(*) FILTER (WHERE action IN ('archive', 'consolidate')) AS maintenance
FROM memory_history
WHERE agent_id = $1 AND at >= $2 AND at < $3
GROUP BY 1
ORDER BY 1;

-- name: ui_fading
-- Per coming day (1 to $5): how many of the agent's current memories drop below the recall
-- cut ($4) that day if nobody recalls them, and the first $6 of them (oldest first).
-- hindsight_decay (sql/migrations/0006) at future moments, λ $3; a memory that expires
-- first is not counted. Decay only falls with time: what is above the cut on day $5 never
-- crossed it, so only the others are dated day by day.
WITH live AS (
    SELECT s.id, s.strength, s.access_count, coalesce(s.last_accessed, s.stored_at) AS seen,
           s.importance, s.memory_type, m.expires_at, m.created_at
    FROM memory_state s JOIN memories m USING (agent_id, id)
    WHERE s.agent_id = $1 AND s.current AND (m.expires_at IS NULL OR m.expires_at > $2)
), fading AS (
    SELECT * FROM live
    WHERE hindsight_decay(strength, access_count, seen, importance, memory_type, $2, $3) >= $4
      AND hindsight_decay(strength, access_count, seen, importance, memory_type,
                          $2 + make_interval(days => $5), $3) < $4
), dated AS (
    SELECT f.id, f.expires_at, f.created_at,
           (SELECT min(d) FROM generate_series(1, $5) d
            WHERE hindsight_decay(f.strength, f.access_count, f.seen, f.importance, f.memory_type,
                                  $2 + make_interval(days => d), $3) < $4) AS day
    FROM fading f
)
SELECT day, count(*) AS n, (array_agg(id ORDER BY created_at, id))[1:$6] AS first
FROM dated
WHERE expires_at IS NULL OR expires_at > $2 + make_interval(days => day)
GROUP BY day
ORDER BY day;

-- name: ui_expiring_by_day
-- How many of the agent's current memories reach expires_at on each of the next $3 days.
SELECT ceil(extract(epoch FROM expires_at - $2) / 86400)::int AS day, count(*) AS n
FROM memories
WHERE agent_id = $1 AND invalidated_at IS NULL
  AND expires_at > $2 AND expires_at <= $2 + make_interval(days => $3)
GROUP BY 1 ORDER BY 1;

-- name: ui_memory_links
-- How one memory relates to others: what it said it likely replaces, what replaced it,
-- what it was consolidated into. NULL when the memory is not the agent's own and live.
SELECT likely_replaces, invalidated_by, consolidated_into
FROM memories WHERE agent_id = $1 AND id = $2;

-- name: ui_briefs
-- A line about each of these memories ($2), live or archived.
SELECT id, memory_type, content, created_at, invalidated_at, invalidation_reason, invalidated_by, false AS archived
FROM memories WHERE agent_id = $1 AND id = ANY($2::uuid[])
UNION ALL
SELECT id, memory_type, content, created_at, invalidated_at, invalidation_reason, invalidated_by, true AS archived
FROM memories_archive WHERE agent_id = $1 AND id = ANY($2::uuid[]);

-- name: ui_superseded_by
-- The memories this one ($2) replaced, live or archived, newest first.
SELECT id, memory_type, content, created_at, invalidated_at, invalidation_reason, invalidated_by, false AS archived
FROM memories WHERE agent_id = $1 AND invalidated_by = $2
UNION ALL
SELECT id, memory_type, content, created_at, invalidated_at, invalidation_reason, invalidated_by, true AS archived
FROM memories_archive WHERE agent_id = $1 AND invalidated_by = $2
ORDER BY invalidated_at DESC;

-- name: ui_likely_replaced_by
-- Current newer memories that said this one ($2) probably changed (unconfirmed).
SELECT id, memory_type, content, created_at, invalidated_at, invalidation_reason, false AS archived
FROM memories
WHERE agent_id = $1 AND invalidated_at IS NULL AND likely_replaces <> '{}' AND $2 = ANY(likely_replaces)
ORDER BY created_at DESC;

-- name: ui_open_conflicts
-- Possible conflicts nobody has decided yet: a current memory that said an older current
-- one changed. Newest first, at most $2.
SELECT n.id AS new_id, n.memory_type AS new_type, n.content AS new_content, n.created_at AS new_created,
       o.id AS old_id, o.memory_type AS old_type, o.content AS old_content, o.created_at AS old_created
FROM memories n
CROSS JOIN LATERAL unnest(n.likely_replaces) AS r(old_id)
JOIN memories o ON o.agent_id = n.agent_id AND o.id = r.old_id
WHERE n.agent_id = $1 AND n.invalidated_at IS NULL AND n.likely_replaces <> '{}' AND o.invalidated_at IS NULL
ORDER BY n.created_at DESC, o.created_at DESC
LIMIT $2;

-- name: ui_archive_list
-- The agent's archived memories, most recently archived first: what `restore` can bring back.
SELECT id, memory_type, content, importance, created_at, expires_at, invalidated_at, archived_at,
       archive_reason, sealed IS NOT NULL AS sealed
FROM memories_archive
WHERE agent_id = $1
ORDER BY archived_at DESC, id
LIMIT $2 OFFSET $3;

-- name: ui_archive_count
-- How many memories the agent has in the archive.
SELECT count(*) FROM memories_archive WHERE agent_id = $1;

-- name: ui_archived_memory
-- One archived memory as its page shows it.
SELECT id, agent_id, session_id, memory_type, content, metadata, tags, importance, created_at, stored_at,
       updated_at, expires_at, invalidated_at, invalidation_reason, invalidated_by, shared, slot, flags,
       reinforce_count, strength, consolidated_into, sealed IS NOT NULL AS sealed, decay_score,
       access_count, last_accessed, archived_at, archive_reason, likely_replaces, project
FROM memories_archive WHERE agent_id = $1 AND id = $2;
