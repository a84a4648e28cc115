-- 0002_recall_channels: what the recall channels need.
--
-- Keyword channel = Okapi BM25 computed inside PostgreSQL. ts_rank_cd has no inverse
-- document frequency, so term statistics are kept here:
--   memory_terms  one row per (memory, lexeme): term frequency and the memory's length
--   term_stats    per agent and lexeme: in how many memories it occurs (df, for idf)
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
-- Impact order: a term's strongest postings first, so a query reads only the top of each
-- list (see channel_keyword).
CREATE INDEX memory_terms_impact ON memory_terms (agent_id, term, tf DESC, doc_len);

CREATE TABLE term_stats (
    agent_id text   NOT NULL,
    term     text   NOT NULL,
    df       bigint NOT NULL,
    PRIMARY KEY (agent_id, term)
);

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
    INSERT INTO term_stats AS s (agent_id, term, df)
    SELECT n.agent_id, t.lexeme, count(*) FROM inserted n, unnest(n.search_vector) t
    GROUP BY n.agent_id, t.lexeme
    ORDER BY 1, 2  -- a fixed lock order: concurrent writers cannot deadlock
    ON CONFLICT (agent_id, term) DO UPDATE SET df = s.df + excluded.df;
    INSERT INTO agent_stats AS s (agent_id, n_docs, total_len)
    SELECT agent_id, count(*), sum(doc_len) FROM inserted GROUP BY agent_id
    ON CONFLICT (agent_id) DO UPDATE
        SET n_docs = s.n_docs + excluded.n_docs, total_len = s.total_len + excluded.total_len;
    RETURN NULL;
END $$;

CREATE FUNCTION memories_terms_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE FUNCTION memories_terms_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
INSERT INTO term_stats (agent_id, term, df)
SELECT agent_id, term, count(*) FROM memory_terms GROUP BY agent_id, term
ON CONFLICT (agent_id, term) DO UPDATE SET df = excluded.df;
INSERT INTO agent_stats (agent_id, n_docs, total_len)
SELECT agent_id, count(*), sum(doc_len) FROM memories GROUP BY agent_id
ON CONFLICT (agent_id) DO UPDATE SET n_docs = excluded.n_docs, total_len = excluded.total_len;

-- Tool association: which memories used a tool (metadata.tools_used, lower-cased), failures
-- marked, in an index that answers "the latest failures with pip" without touching the
-- memories themselves. Kept true by triggers, like the term statistics.
CREATE TABLE memory_tools (
    agent_id   text        NOT NULL,
    tool       text        NOT NULL,
    memory_id  uuid        NOT NULL,
    created_at timestamptz NOT NULL,
    failed     boolean     NOT NULL,   -- metadata.outcome failure/failed/error, or metadata.error
    PRIMARY KEY (agent_id, tool, memory_id),
    FOREIGN KEY (agent_id, memory_id) REFERENCES memories (agent_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_tools_latest ON memory_tools (agent_id, tool, failed DESC, created_at DESC);
CREATE INDEX memory_tools_memory ON memory_tools (agent_id, memory_id);

CREATE FUNCTION memory_tool_rows(m memories) RETURNS TABLE (tool text, failed boolean)
LANGUAGE sql IMMUTABLE AS $$
    SELECT DISTINCT lower(t), coalesce(m.metadata ->> 'outcome' IN ('failure', 'failed', 'error'), false)
                              OR m.metadata ? 'error'
    FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(m.metadata -> 'tools_used') = 'array'
                                        THEN m.metadata -> 'tools_used' ELSE '[]'::jsonb END) t
$$;

CREATE FUNCTION memories_tools_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_tools (agent_id, tool, memory_id, created_at, failed)
    SELECT n.agent_id, t.tool, n.id, n.created_at, t.failed
    FROM inserted n, memory_tool_rows(n) t;
    RETURN NULL;
END $$;

CREATE FUNCTION memories_tools_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memory_tools WHERE agent_id = NEW.agent_id AND memory_id = NEW.id;
    INSERT INTO memory_tools (agent_id, tool, memory_id, created_at, failed)
    SELECT NEW.agent_id, t.tool, NEW.id, NEW.created_at, t.failed FROM memory_tool_rows(NEW) t;
    RETURN NULL;
END $$;

CREATE TRIGGER memories_tools_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION memories_tools_after_insert();
CREATE TRIGGER memories_tools_update AFTER UPDATE OF metadata, created_at ON memories
    FOR EACH ROW WHEN (OLD.metadata IS DISTINCT FROM NEW.metadata OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION memories_tools_after_update();

INSERT INTO memory_tools (agent_id, tool, memory_id, created_at, failed)
SELECT m.agent_id, t.tool, m.id, m.created_at, t.failed FROM memories m, memory_tool_rows(m) t;

-- Entities: "which memories mention Caroline".
CREATE INDEX memories_entities ON memories USING gin ((metadata -> 'entities'));
-- Recent memories of one task type.
CREATE INDEX memories_task_type ON memories (agent_id, (metadata ->> 'task_type'), created_at DESC);
