-- The IDE's lifecycle hooks (hindsight/hooks/): which sessions they served, what each was
-- shown, and the standing preferences a session starts with.

-- name: hook_session_seen
-- A hook of session $2 called, with project $3 open: recorded on first sight, kept current
-- after; returns when its standing preferences were last shown (NULL: due).
INSERT INTO hook_sessions (agent_id, session_id, project) VALUES ($1, $2, $3)
ON CONFLICT (agent_id, session_id) DO UPDATE SET last_seen = now(), project = excluded.project
RETURNING standing_shown_at;

-- name: hook_standing_shown
-- Session $2 was shown its standing preferences now.
UPDATE hook_sessions SET standing_shown_at = now() WHERE agent_id = $1 AND session_id = $2;

-- name: hook_standing_due
-- Session $2's context was compacted: its standing preferences are due again.
UPDATE hook_sessions SET standing_shown_at = NULL WHERE agent_id = $1 AND session_id = $2;

-- name: hook_captured
-- Session $2's hooks stored or reinforced one more memory.
UPDATE hook_sessions SET captured = captured + 1 WHERE agent_id = $1 AND session_id = $2;

-- name: hook_shown_ids
-- The memories session $2 was already shown.
SELECT memory_id FROM hook_shown WHERE agent_id = $1 AND session_id = $2;

-- name: hook_mark_shown
-- Session $2 (already recorded by hook_session_seen) was shown the memories $3.
INSERT INTO hook_shown (agent_id, session_id, memory_id)
SELECT s.agent_id, s.session_id, shown FROM hook_sessions s, unnest($3::uuid[]) AS shown
WHERE s.agent_id = $1 AND s.session_id = $2
ON CONFLICT DO NOTHING;

-- name: hook_standing_candidates
-- The agent's current facts and rules that may be standing preferences or constraints of
-- the user (global) or of project $2, most important and newest first, at most $3; the
-- caller keeps those that state one (rules.injection.is_standing).
SELECT m.id, m.content, m.memory_type, m.created_at, m.project, m.metadata, m.slot, m.flags, m.importance
FROM memories m JOIN memory_state s USING (agent_id, id)
WHERE m.agent_id = $1 AND m.memory_type IN ('semantic', 'procedural')
  AND m.invalidated_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
  AND (m.project IS NULL OR m.project = $2) AND s.decay_score >= $4
ORDER BY m.importance DESC, m.created_at DESC
LIMIT $3;

-- name: hook_forget_sessions
-- Forget the hook sessions last seen before $1, and what they were shown; returns how many.
WITH old AS (DELETE FROM hook_sessions WHERE last_seen < $1 RETURNING agent_id, session_id),
     shown AS (DELETE FROM hook_shown h USING old WHERE h.agent_id = old.agent_id AND h.session_id = old.session_id)
SELECT count(*) FROM old;

-- name: hook_known_fix
-- A current memory of agent $1 that already holds the fix of a failure with this error ($2:
-- {"outcome": "fixed", "error": …}): a failure seen again is not a new lesson.
SELECT id FROM memories
WHERE agent_id = $1 AND invalidated_at IS NULL AND metadata @> $2::jsonb
LIMIT 1;
