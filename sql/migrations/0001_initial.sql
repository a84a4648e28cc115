-- 0001_initial: the memories table, its indexes, and the embedder record.
--
-- Plain SQL: Alembic revision 0001 executes this file, and a DBA can apply it by hand
-- with `psql -f`. Every key includes agent_id so the same schema can be distributed by
-- agent_id on Citus.

CREATE EXTENSION IF NOT EXISTS vector;

-- Which embedder wrote the vectors in `memories.embedding`. One row. The server refuses
-- to start with a different embedder while memories exist (see hindsight/embed_guard.py).
CREATE TABLE hindsight_embedder (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    name        text        NOT NULL,
    dimension   integer     NOT NULL CHECK (dimension > 0),
    recorded_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memories (
    agent_id            text        NOT NULL CHECK (length(agent_id) BETWEEN 1 AND 128),
    id                  uuid        NOT NULL DEFAULT gen_random_uuid(),
    session_id          text,
    memory_type         text        NOT NULL DEFAULT 'episodic'
                        CHECK (memory_type IN ('working', 'episodic', 'semantic', 'procedural')),
    content             text        NOT NULL CHECK (length(content) > 0),
    content_hash        bytea       NOT NULL,            -- sha256 of the normalised content
    embedding           vector(384) NOT NULL,            -- dimension follows hindsight_embedder
    search_vector       tsvector    NOT NULL,            -- keyword channel, built by the app
    metadata            jsonb       NOT NULL DEFAULT '{}'::jsonb
                        CHECK (jsonb_typeof(metadata) = 'object'),
    tags                text[]      NOT NULL DEFAULT '{}',
    importance          smallint    NOT NULL DEFAULT 3 CHECK (importance BETWEEN 1 AND 5),
    access_count        integer     NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    decay_score         real        NOT NULL DEFAULT 1.0 CHECK (decay_score BETWEEN 0 AND 1),
    created_at          timestamptz NOT NULL DEFAULT now(),  -- when it happened (settable on import)
    stored_at           timestamptz NOT NULL DEFAULT now(),  -- when this row was written
    updated_at          timestamptz NOT NULL DEFAULT now(),
    last_accessed       timestamptz,
    expires_at          timestamptz,
    invalidated_at      timestamptz,
    invalidation_reason text,
    invalidated_by      uuid,                              -- the memory that replaced it
    shared              boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (agent_id, id),
    FOREIGN KEY (agent_id, invalidated_by) REFERENCES memories (agent_id, id)
        ON DELETE SET NULL (invalidated_by),
    CHECK ((invalidated_at IS NULL) = (invalidation_reason IS NULL))
);

-- Vector channel: cosine distance (embeddings are L2-normalised).
CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops);
-- Keyword channel.
CREATE INDEX memories_search_vector_gin ON memories USING gin (search_vector);
-- Metadata containment (metadata @> '{"tools_used": ["pip"]}') and tags.
CREATE INDEX memories_metadata_gin ON memories USING gin (metadata jsonb_path_ops);
CREATE INDEX memories_tags_gin ON memories USING gin (tags);
-- Browsing and time windows, per agent.
CREATE INDEX memories_agent_created ON memories (agent_id, created_at DESC);
CREATE INDEX memories_agent_session ON memories (agent_id, session_id, created_at DESC)
    WHERE session_id IS NOT NULL;
-- Exact-duplicate lookups.
CREATE INDEX memories_agent_hash ON memories (agent_id, content_hash);
-- The small set every agent may read.
CREATE INDEX memories_shared ON memories (id) WHERE shared;
