-- Bearer tokens of the HTTP transport (hindsight/store/tokens.py). Only hashes are stored.

-- name: token_insert
-- A new token: its hash, agent, allowed agents, name and expiry; returns its id.
INSERT INTO hindsight_tokens (token_hash, agent_id, allowed_agents, name, expires_at)
VALUES ($1, $2, $3, $4, $5)
RETURNING id, created_at;

-- name: token_by_hash
-- The token a request presented, if it exists (usable or not: the caller decides).
SELECT id, agent_id, allowed_agents, expires_at, revoked_at, last_used FROM hindsight_tokens WHERE token_hash = $1;

-- name: token_used
-- Note that token $1 was used at $2 (store/tokens.py writes it at most once a minute).
UPDATE hindsight_tokens SET last_used = $2 WHERE id = $1;

-- name: token_list
-- Every token, newest first (never the hash).
SELECT id, name, agent_id, allowed_agents, created_at, last_used, expires_at, revoked_at
FROM hindsight_tokens ORDER BY created_at DESC;

-- name: token_find
-- The tokens whose id starts with $1 (a literal prefix: no pattern; NULL: none) or whose name is $2.
SELECT id, name, agent_id, revoked_at FROM hindsight_tokens
WHERE starts_with(id::text, $1) OR name = $2
ORDER BY created_at DESC;

-- name: token_revoke
-- Revoke token $1 if it is not revoked yet; returns it (nothing when it already was).
UPDATE hindsight_tokens SET revoked_at = now()
WHERE id = $1 AND revoked_at IS NULL
RETURNING id, name, agent_id;
