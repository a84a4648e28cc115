-- Back to 0005: unweighted postings, decay without layers, no seq and no context.
CREATE OR REPLACE FUNCTION hindsight_decay(strength real, access_count integer, last_seen timestamptz,
                                           importance smallint, at timestamptz, lambda float8)
RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (round(least(1.0,
        strength * exp(-lambda * (CASE importance WHEN 1 THEN 2.0 WHEN 2 THEN 1.0 WHEN 3 THEN 0.5
                                                  WHEN 4 THEN 0.25 ELSE 0.0 END)
                       * greatest(0.0, extract(epoch FROM at - last_seen)::float8 / 86400.0))
        + least(0.1 * access_count, 0.5)) * 1000.0) / 1000.0)::real
$$;
DROP FUNCTION hindsight_decay(real, integer, timestamptz, smallint, text, timestamptz, float8);

DROP TRIGGER memory_state_update ON memories;
CREATE OR REPLACE FUNCTION memory_state_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_state
    SET strength = NEW.strength, importance = NEW.importance, current = NEW.invalidated_at IS NULL
    WHERE agent_id = NEW.agent_id AND id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER memory_state_update AFTER UPDATE ON memories FOR EACH ROW
    WHEN (OLD.strength IS DISTINCT FROM NEW.strength OR OLD.importance IS DISTINCT FROM NEW.importance
          OR (OLD.invalidated_at IS NULL) <> (NEW.invalidated_at IS NULL))
    EXECUTE FUNCTION memory_state_after_update();
CREATE OR REPLACE FUNCTION memory_state_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_state (agent_id, id, decay_score, stored_at, strength, importance, current)
    SELECT agent_id, id, strength, stored_at, strength, importance, invalidated_at IS NULL FROM inserted;
    RETURN NULL;
END $$;
ALTER TABLE memory_state DROP COLUMN memory_type;

DROP TRIGGER memories_context_delete ON memories;
DROP TRIGGER memories_context_update ON memories;
DROP TRIGGER memories_a_context ON memories;
DROP FUNCTION memories_context_after_delete();
DROP FUNCTION memories_context_after_update();
DROP FUNCTION memories_context_before_insert();
UPDATE memories SET context_id = NULL, context_vector = NULL WHERE context_id IS NOT NULL;

DROP TRIGGER memories_terms_update ON memories;
DROP TRIGGER memories_doc_len ON memories;
CREATE OR REPLACE FUNCTION memories_doc_len() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.doc_len := (SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)
                    FROM unnest(NEW.search_vector));
    RETURN NEW;
END $$;
CREATE TRIGGER memories_doc_len BEFORE INSERT OR UPDATE OF search_vector ON memories
    FOR EACH ROW EXECUTE FUNCTION memories_doc_len();
CREATE OR REPLACE FUNCTION memories_terms_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
    SELECT n.agent_id, t.lexeme, n.id, coalesce(array_length(t.positions, 1), 1), n.doc_len
    FROM inserted n, unnest(n.search_vector) t;
    INSERT INTO term_stats AS s (agent_id, term, df)
    SELECT n.agent_id, t.lexeme, count(*) FROM inserted n, unnest(n.search_vector) t
    GROUP BY n.agent_id, t.lexeme
    ORDER BY 1, 2
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
    FROM (SELECT d.agent_id, t.lexeme AS term, count(*) AS n
          FROM deleted d, unnest(d.search_vector) t GROUP BY 1, 2) d
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
    WHERE agent_id = OLD.agent_id AND term IN (SELECT lexeme FROM unnest(OLD.search_vector));
    INSERT INTO term_stats AS s (agent_id, term, df)
    SELECT NEW.agent_id, lexeme, 1 FROM unnest(NEW.search_vector)
    ON CONFLICT (agent_id, term) DO UPDATE SET df = s.df + 1;
    INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
    SELECT NEW.agent_id, t.lexeme, NEW.id, coalesce(array_length(t.positions, 1), 1), NEW.doc_len
    FROM unnest(NEW.search_vector) t;
    UPDATE agent_stats SET total_len = greatest(total_len + NEW.doc_len - OLD.doc_len, 0)
    WHERE agent_id = NEW.agent_id;
    RETURN NULL;
END $$;
CREATE TRIGGER memories_terms_update AFTER UPDATE OF search_vector ON memories
    FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector)
    EXECUTE FUNCTION memories_terms_after_update();
DROP FUNCTION hindsight_terms(tsvector, tsvector);
DROP FUNCTION hindsight_context_weight();

-- Postings as 0005 wrote them (own words only, whole counts).
DELETE FROM memory_terms;
UPDATE memories SET search_vector = search_vector || ''::tsvector;  -- recomputes doc_len
INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
SELECT m.agent_id, t.lexeme, m.id, coalesce(array_length(t.positions, 1), 1), m.doc_len
FROM memories m, unnest(m.search_vector) t;
DELETE FROM term_stats;
INSERT INTO term_stats (agent_id, term, df) SELECT agent_id, term, count(*) FROM memory_terms GROUP BY 1, 2;
UPDATE agent_stats s SET n_docs = x.n, total_len = x.len
FROM (SELECT agent_id, count(*) AS n, sum(doc_len) AS len FROM memories GROUP BY agent_id) x
WHERE s.agent_id = x.agent_id;
ALTER TABLE agent_stats ALTER COLUMN total_len TYPE bigint USING round(total_len);
ALTER TABLE memory_terms ALTER COLUMN tf TYPE integer USING round(tf), ALTER COLUMN doc_len TYPE integer USING round(doc_len);
ALTER TABLE memories_archive ALTER COLUMN doc_len TYPE integer USING round(doc_len);
ALTER TABLE memories ALTER COLUMN doc_len TYPE integer USING round(doc_len);

DROP INDEX memories_context;
DROP INDEX memories_session_order;
CREATE INDEX memories_agent_session ON memories (agent_id, session_id, created_at DESC)
    WHERE session_id IS NOT NULL;
ALTER TABLE memories_archive DROP COLUMN seq, DROP COLUMN context_id, DROP COLUMN context_vector,
                              DROP COLUMN likely_replaces;
ALTER TABLE memories DROP COLUMN seq, DROP COLUMN context_id, DROP COLUMN context_vector, DROP COLUMN likely_replaces;
