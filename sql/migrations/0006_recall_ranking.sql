-- 0006_recall_ranking: what score-aware recall and type-aware decay need.
--
--   seq             the order memories were written. Turns of one conversation often share
--                   a timestamp (an import gives them their session's time); seq breaks the
--                   tie, so "the memory before this one in its session" is defined.
--   context_id,     conversational context: a memory written in the same session at most
--   context_vector  ten minutes after another ("that worked!", "what was it about?") keeps
--                   the earlier one's words in context_vector. The keyword channel counts
--                   them at 0.3 of the memory's own words. Set by a trigger on every write
--                   path; refreshed when the earlier memory changes, dropped when it is
--                   deleted (forgetting a memory forgets its words everywhere).
--   likely_replaces older facts this memory said changed when it was stored (a possible
--                   conflict, not confirmed): recall ranks this one above them. Confirming
--                   (invalidate_memory with replaced_by) makes it a supersession.
--   memory_state.memory_type
--                   decay depends on the layer: facts, preferences and procedures
--                   (semantic, procedural) and important episodes never fade below half
--                   their strength, so they stay recallable however long nobody asks.

CREATE SEQUENCE memories_seq AS bigint;
ALTER TABLE memories ADD COLUMN seq bigint NOT NULL DEFAULT nextval('memories_seq');
ALTER SEQUENCE memories_seq OWNED BY memories.seq;
ALTER TABLE memories ADD COLUMN context_id uuid, ADD COLUMN context_vector tsvector,
                     ADD COLUMN likely_replaces uuid[] NOT NULL DEFAULT '{}';
ALTER TABLE memories_archive ADD COLUMN seq bigint, ADD COLUMN context_id uuid, ADD COLUMN context_vector tsvector,
                             ADD COLUMN likely_replaces uuid[] NOT NULL DEFAULT '{}';
UPDATE memories_archive SET seq = nextval('memories_seq');  -- restore puts it back

-- A memory's neighbours in its session, in the order they happened.
DROP INDEX memories_agent_session;
CREATE INDEX memories_session_order ON memories (agent_id, session_id, created_at, seq)
    WHERE session_id IS NOT NULL;
CREATE INDEX memories_context ON memories (agent_id, context_id) WHERE context_id IS NOT NULL;

-- Term frequencies and lengths are weighted now (context words count 0.3).
ALTER TABLE memories ALTER COLUMN doc_len TYPE real;
ALTER TABLE memories_archive ALTER COLUMN doc_len TYPE real;
ALTER TABLE memory_terms ALTER COLUMN tf TYPE real, ALTER COLUMN doc_len TYPE real;
ALTER TABLE agent_stats ALTER COLUMN total_len TYPE float8;

-- The weight of a context word relative to the memory's own words.
CREATE FUNCTION hindsight_context_weight() RETURNS real LANGUAGE sql IMMUTABLE AS $$ SELECT 0.3::real $$;

-- (lexeme, weighted tf) of a memory: its own words and its context's.
CREATE FUNCTION hindsight_terms(own tsvector, context tsvector) RETURNS TABLE (term text, tf real)
LANGUAGE sql IMMUTABLE AS $$
    SELECT lexeme, sum(n)::real FROM (
        SELECT lexeme, coalesce(array_length(positions, 1), 1)::real AS n FROM unnest(own)
        UNION ALL
        SELECT lexeme, hindsight_context_weight() * coalesce(array_length(positions, 1), 1)
        FROM unnest(coalesce(context, ''::tsvector))
    ) t GROUP BY lexeme
$$;

CREATE OR REPLACE FUNCTION memories_doc_len() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.doc_len := (SELECT coalesce(sum(tf), 0) FROM hindsight_terms(NEW.search_vector, NEW.context_vector));
    RETURN NEW;
END $$;
DROP TRIGGER memories_doc_len ON memories;

-- The context of a new memory: the latest memory of its session written at most ten
-- minutes before it (by created_at, then seq). A restore that names none gets one too.
CREATE FUNCTION memories_context_before_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev record;
BEGIN
    IF NEW.session_id IS NOT NULL AND NEW.context_id IS NULL THEN
        SELECT id, search_vector INTO prev FROM memories
        WHERE agent_id = NEW.agent_id AND session_id = NEW.session_id
          AND created_at <= NEW.created_at AND created_at >= NEW.created_at - interval '10 minutes'
          AND (created_at, seq) < (NEW.created_at, NEW.seq)
        ORDER BY created_at DESC, seq DESC
        LIMIT 1;
        IF FOUND THEN
            NEW.context_id := prev.id;
            NEW.context_vector := prev.search_vector;
        END IF;
    END IF;
    RETURN NEW;
END $$;

-- Trigger names fire in alphabetical order: the context first, then the length.
CREATE TRIGGER memories_a_context BEFORE INSERT ON memories
    FOR EACH ROW EXECUTE FUNCTION memories_context_before_insert();
CREATE TRIGGER memories_doc_len BEFORE INSERT OR UPDATE OF search_vector, context_vector ON memories
    FOR EACH ROW EXECUTE FUNCTION memories_doc_len();

-- When a memory's words change, the memories whose context it is see the new words; when
-- it is deleted, they lose them.
CREATE FUNCTION memories_context_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memories SET context_vector = NEW.search_vector
    WHERE agent_id = NEW.agent_id AND context_id = NEW.id
      AND context_vector IS DISTINCT FROM NEW.search_vector;
    RETURN NULL;
END $$;
CREATE TRIGGER memories_context_update AFTER UPDATE OF search_vector ON memories
    FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector)
    EXECUTE FUNCTION memories_context_after_update();

CREATE FUNCTION memories_context_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memories m SET context_id = NULL, context_vector = NULL
    FROM deleted d WHERE m.agent_id = d.agent_id AND m.context_id = d.id;
    RETURN NULL;
END $$;
CREATE TRIGGER memories_context_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION memories_context_after_delete();

-- Postings and statistics from own and context words.
CREATE OR REPLACE FUNCTION memories_terms_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
    SELECT n.agent_id, t.term, n.id, t.tf, n.doc_len
    FROM inserted n, hindsight_terms(n.search_vector, n.context_vector) t;
    INSERT INTO term_stats AS s (agent_id, term, df)
    SELECT n.agent_id, t.term, count(*) FROM inserted n, hindsight_terms(n.search_vector, n.context_vector) t
    GROUP BY n.agent_id, t.term
    ORDER BY 1, 2  -- a fixed lock order: concurrent writers cannot deadlock
    ON CONFLICT (agent_id, term) DO UPDATE SET df = s.df + excluded.df;
    INSERT INTO agent_stats AS s (agent_id, n_docs, total_len)
    SELECT agent_id, count(*), sum(doc_len) FROM inserted GROUP BY agent_id
    ON CONFLICT (agent_id) DO UPDATE
        SET n_docs = s.n_docs + excluded.n_docs, total_len = s.total_len + excluded.total_len;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION memories_terms_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE term_stats s SET df = greatest(s.df - d.n, 0)
    FROM (SELECT d.agent_id, t.term, count(*) AS n
          FROM deleted d, hindsight_terms(d.search_vector, d.context_vector) t GROUP BY 1, 2) d
    WHERE s.agent_id = d.agent_id AND s.term = d.term;
    UPDATE agent_stats s
    SET n_docs = greatest(s.n_docs - d.n, 0), total_len = greatest(s.total_len - d.len, 0)
    FROM (SELECT agent_id, count(*) AS n, sum(doc_len) AS len FROM deleted GROUP BY agent_id) d
    WHERE s.agent_id = d.agent_id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION memories_terms_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memory_terms WHERE agent_id = NEW.agent_id AND memory_id = NEW.id;
    UPDATE term_stats SET df = greatest(df - 1, 0)
    WHERE agent_id = OLD.agent_id AND term IN (SELECT term FROM hindsight_terms(OLD.search_vector, OLD.context_vector));
    INSERT INTO term_stats AS s (agent_id, term, df)
    SELECT NEW.agent_id, term, 1 FROM hindsight_terms(NEW.search_vector, NEW.context_vector)
    ON CONFLICT (agent_id, term) DO UPDATE SET df = s.df + 1;
    INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
    SELECT NEW.agent_id, t.term, NEW.id, t.tf, NEW.doc_len FROM hindsight_terms(NEW.search_vector, NEW.context_vector) t;
    UPDATE agent_stats SET total_len = greatest(total_len + NEW.doc_len - OLD.doc_len, 0)
    WHERE agent_id = NEW.agent_id;
    RETURN NULL;
END $$;
DROP TRIGGER memories_terms_update ON memories;
CREATE TRIGGER memories_terms_update AFTER UPDATE OF search_vector, context_vector ON memories
    FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector
                       OR OLD.context_vector IS DISTINCT FROM NEW.context_vector)
    EXECUTE FUNCTION memories_terms_after_update();

-- Type-aware decay -------------------------------------------------------------------
ALTER TABLE memory_state ADD COLUMN memory_type text NOT NULL DEFAULT 'episodic';
UPDATE memory_state s SET memory_type = m.memory_type FROM memories m
WHERE m.agent_id = s.agent_id AND m.id = s.id AND s.memory_type <> m.memory_type;
ALTER TABLE memory_state ALTER COLUMN memory_type DROP DEFAULT;
COMMENT ON COLUMN memory_state.memory_type IS 'Copy of memories.memory_type (decay depends on the layer).';

CREATE OR REPLACE FUNCTION memory_state_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_state (agent_id, id, decay_score, stored_at, strength, importance, current, memory_type)
    SELECT agent_id, id, strength, stored_at, strength, importance, invalidated_at IS NULL, memory_type FROM inserted;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION memory_state_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_state
    SET strength = NEW.strength, importance = NEW.importance, current = NEW.invalidated_at IS NULL,
        memory_type = NEW.memory_type
    WHERE agent_id = NEW.agent_id AND id = NEW.id;
    RETURN NULL;
END $$;
DROP TRIGGER memory_state_update ON memories;
CREATE TRIGGER memory_state_update AFTER UPDATE ON memories FOR EACH ROW
    WHEN (OLD.strength IS DISTINCT FROM NEW.strength OR OLD.importance IS DISTINCT FROM NEW.importance
          OR (OLD.invalidated_at IS NULL) <> (NEW.invalidated_at IS NULL)
          OR OLD.memory_type IS DISTINCT FROM NEW.memory_type)
    EXECUTE FUNCTION memory_state_after_update();

-- decay = max(floor, min(1, strength · exp(−λ · w(importance) · days) + min(0.1 · access_count, 0.5)))
-- floor = strength / 2 for semantic and procedural memories and for episodes of importance
-- 4 and 5 (above the 0.3 recall cut unless the guard weakened them), else 0. w = 2, 1,
-- 0.5, 0.25, 0 for importance 1-5. Days since the last recall, else since it was stored.
CREATE FUNCTION hindsight_decay(strength real, access_count integer, last_seen timestamptz,
                                importance smallint, memory_type text, at timestamptz, lambda float8)
RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (round(greatest(
        CASE WHEN memory_type IN ('semantic', 'procedural') OR importance >= 4 THEN strength / 2.0 ELSE 0.0 END,
        least(1.0,
            strength * exp(-lambda * (CASE importance WHEN 1 THEN 2.0 WHEN 2 THEN 1.0 WHEN 3 THEN 0.5
                                                      WHEN 4 THEN 0.25 ELSE 0.0 END)
                           * greatest(0.0, extract(epoch FROM at - last_seen)::float8 / 86400.0))
            + least(0.1 * access_count, 0.5))) * 1000.0) / 1000.0)::real
$$;
COMMENT ON FUNCTION hindsight_decay(real, integer, timestamptz, smallint, text, timestamptz, float8) IS
    'A memory''s decay_score at a moment: exponential fading by importance, a bonus for recalls, a floor for facts, procedures and important episodes.';
DROP FUNCTION hindsight_decay(real, integer, timestamptz, smallint, timestamptz, float8);

-- Give what was written before its context (the update triggers rebuild its postings).
WITH pairs AS (
    SELECT m.agent_id, m.id,
           (SELECT q.id FROM memories q
            WHERE q.agent_id = m.agent_id AND q.session_id = m.session_id
              AND q.created_at <= m.created_at AND q.created_at >= m.created_at - interval '10 minutes'
              AND (q.created_at, q.seq) < (m.created_at, m.seq)
            ORDER BY q.created_at DESC, q.seq DESC LIMIT 1) AS prev_id
    FROM memories m WHERE m.session_id IS NOT NULL
)
UPDATE memories m SET context_id = p.id, context_vector = p.search_vector
FROM pairs x JOIN memories p ON p.agent_id = x.agent_id AND p.id = x.prev_id
WHERE m.agent_id = x.agent_id AND m.id = x.id;

COMMENT ON COLUMN memories.seq IS 'Write order (breaks ties of created_at: a conversation''s turns imported with their session''s time).';
COMMENT ON COLUMN memories.context_id IS 'The memory written just before it in its session (at most 10 minutes earlier), whose words are its context.';
COMMENT ON COLUMN memories.context_vector IS 'That memory''s keyword text: counted at 0.3 of the memory''s own words by the keyword channel.';
COMMENT ON COLUMN memories_archive.seq IS 'Write order (see memories.seq).';
COMMENT ON COLUMN memories_archive.context_id IS 'See memories.context_id.';
COMMENT ON COLUMN memories_archive.context_vector IS 'See memories.context_vector.';
COMMENT ON FUNCTION hindsight_terms(tsvector, tsvector) IS 'A memory''s keyword postings: its own words and its context''s (weighted 0.3).';
COMMENT ON COLUMN memories.likely_replaces IS 'Older current facts this memory said had changed when it was stored (possible conflicts, unconfirmed): recall ranks it above them.';
COMMENT ON COLUMN memories_archive.likely_replaces IS 'See memories.likely_replaces.';
