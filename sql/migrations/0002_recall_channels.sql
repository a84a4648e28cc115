-- 0002_recall_channels: what the recall channels need.
--
-- Keyword channel = Okapi BM25 computed inside PostgreSQL. ts_rank_cd has no inverse
-- document frequency, so term statistics are kept here:
--   memory_terms  one row per (memory, lexeme): term frequency and the memory's length
--   agent_stats   per agent: how many memories and their total length (for avgdl)
-- Both are maintained by triggers on `memories`, so every write path (the server, bulk
-- import, a DBA's INSERT) keeps them true.

-- Room on each page for HOT updates of counters and scores (no index re-insertion).
ALTER TABLE memories SET (fillfactor = 90);

-- Number of lexeme occurrences in search_vector (BM25's document length).
ALTER TABLE memories ADD COLUMN doc_len integer NOT NULL DEFAULT 0;

CREATE TABLE memory_terms (
    agent_id  text    NOT NULL,
    term      text    NOT NULL,
    memory_id uuid    NOT NULL,
    tf        integer NOT NULL,
    doc_len   integer NOT NULL,        -- copy of memories.doc_len: scoring needs no join
    PRIMARY KEY (agent_id, term, memory_id),
    FOREIGN KEY (agent_id, memory_id) REFERENCES memories (agent_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_terms_memory ON memory_terms (agent_id, memory_id);

CREATE TABLE agent_stats (
    agent_id  text   PRIMARY KEY,
    n_docs    bigint NOT NULL DEFAULT 0,
    total_len bigint NOT NULL DEFAULT 0
);

CREATE FUNCTION memories_doc_len() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.doc_len := (SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)
                    FROM unnest(NEW.search_vector));
    RETURN NEW;
END $$;

CREATE FUNCTION memories_terms_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
    SELECT n.agent_id, t.lexeme, n.id, coalesce(array_length(t.positions, 1), 1), n.doc_len
    FROM inserted n, unnest(n.search_vector) t;
    INSERT INTO agent_stats AS s (agent_id, n_docs, total_len)
    SELECT agent_id, count(*), sum(doc_len) FROM inserted GROUP BY agent_id
    ON CONFLICT (agent_id) DO UPDATE
        SET n_docs = s.n_docs + excluded.n_docs, total_len = s.total_len + excluded.total_len;
    RETURN NULL;
END $$;

CREATE FUNCTION memories_terms_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE agent_stats s
    SET n_docs = greatest(s.n_docs - d.n, 0), total_len = greatest(s.total_len - d.len, 0)
    FROM (SELECT agent_id, count(*) AS n, sum(doc_len) AS len FROM deleted GROUP BY agent_id) d
    WHERE s.agent_id = d.agent_id;
    RETURN NULL;
END $$;

CREATE FUNCTION memories_terms_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memory_terms WHERE agent_id = NEW.agent_id AND memory_id = NEW.id;
    INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
    SELECT NEW.agent_id, t.lexeme, NEW.id, coalesce(array_length(t.positions, 1), 1), NEW.doc_len
    FROM unnest(NEW.search_vector) t;
    UPDATE agent_stats SET total_len = greatest(total_len + NEW.doc_len - OLD.doc_len, 0)
    WHERE agent_id = NEW.agent_id;
    RETURN NULL;
END $$;

CREATE TRIGGER memories_doc_len BEFORE INSERT OR UPDATE OF search_vector ON memories
    FOR EACH ROW EXECUTE FUNCTION memories_doc_len();
CREATE TRIGGER memories_terms_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION memories_terms_after_insert();
CREATE TRIGGER memories_terms_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION memories_terms_after_delete();
CREATE TRIGGER memories_terms_update AFTER UPDATE OF search_vector ON memories
    FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector)
    EXECUTE FUNCTION memories_terms_after_update();

-- Backfill what 0001 stored.
UPDATE memories SET search_vector = search_vector || ''::tsvector WHERE doc_len = 0;
INSERT INTO memory_terms (agent_id, term, memory_id, tf, doc_len)
SELECT m.agent_id, t.lexeme, m.id, coalesce(array_length(t.positions, 1), 1), m.doc_len
FROM memories m, unnest(m.search_vector) t
ON CONFLICT DO NOTHING;
INSERT INTO agent_stats (agent_id, n_docs, total_len)
SELECT agent_id, count(*), sum(doc_len) FROM memories GROUP BY agent_id
ON CONFLICT (agent_id) DO UPDATE SET n_docs = excluded.n_docs, total_len = excluded.total_len;

-- Tool association and entities: "which memories used pip", "which mention Caroline".
CREATE INDEX memories_tools_used ON memories USING gin ((metadata -> 'tools_used'));
CREATE INDEX memories_entities ON memories USING gin ((metadata -> 'entities'));
-- Recent memories of one task type.
CREATE INDEX memories_task_type ON memories (agent_id, (metadata ->> 'task_type'), created_at DESC);
