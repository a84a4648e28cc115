-- 0010_tokens: bearer tokens for the streamable HTTP transport. A token is shown once when
-- created; only its SHA-256 is kept. It pins the agent a caller acts for, as
-- HINDSIGHT_AGENT_ID and HINDSIGHT_ALLOWED_AGENTS pin a stdio server.

CREATE TABLE hindsight_tokens (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    token_hash     bytea NOT NULL UNIQUE,
    agent_id       text NOT NULL,
    allowed_agents text[] NOT NULL DEFAULT '{}',
    name           text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_used      timestamptz,
    expires_at     timestamptz,
    revoked_at     timestamptz
);
COMMENT ON TABLE hindsight_tokens IS 'Bearer tokens of the HTTP transport (hindsight token create): the hash of each, the agent it acts for.';
COMMENT ON COLUMN hindsight_tokens.id IS 'The token''s id (hindsight token list, revoke).';
COMMENT ON COLUMN hindsight_tokens.token_hash IS 'SHA-256 of the token; the token itself is never stored.';
COMMENT ON COLUMN hindsight_tokens.agent_id IS 'The agent a call with this token acts for by default.';
COMMENT ON COLUMN hindsight_tokens.allowed_agents IS 'Other agents a call may name in agent_id (* for any), as HINDSIGHT_ALLOWED_AGENTS.';
COMMENT ON COLUMN hindsight_tokens.name IS 'What it is for (a laptop, a CI bot).';
COMMENT ON COLUMN hindsight_tokens.created_at IS 'When it was created.';
COMMENT ON COLUMN hindsight_tokens.last_used IS 'When a request last presented it (kept to the minute).';
COMMENT ON COLUMN hindsight_tokens.expires_at IS 'After this it is refused; NULL: no expiry.';
COMMENT ON COLUMN hindsight_tokens.revoked_at IS 'When it was revoked; a revoked token is refused.';
-- Only the schema's owner (the server) reads it: no role is granted it, and row-level
-- security without a policy hides it from every role but the owner.
ALTER TABLE hindsight_tokens ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON hindsight_tokens FROM PUBLIC;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_readonly') THEN
        REVOKE ALL ON hindsight_tokens FROM hindsight_readonly;
    END IF;
END $$;
