-- name: vector_settings
-- The vector search settings in force on this connection (hindsight doctor; a test reads
-- them back on pooled connections: they must survive the pool's RESET ALL).
SELECT current_setting('hnsw.iterative_scan', true) AS iterative_scan,
       current_setting('hnsw.ef_search', true) AS ef_search,
       current_setting('plan_cache_mode') AS plan_cache_mode;

-- name: server_version_num
-- The server's version as a number (150000 and up for PostgreSQL 15).
SHOW server_version_num;

-- name: schema_lock
-- Wait for the advisory lock $1 (hindsight's schema lock) until the transaction ends: one
-- process at a time creates the extension or migrates.
SELECT pg_advisory_xact_lock($1);

-- name: create_pgvector
-- Install pgvector in this database (needs a role allowed to; run under schema_lock).
CREATE EXTENSION IF NOT EXISTS vector;

-- name: alembic_version_exists
-- Whether Alembic has migrated this database at all.
SELECT to_regclass('alembic_version') IS NOT NULL;

-- name: alembic_version
-- The schema revision Alembic last applied.
SELECT version_num FROM alembic_version;

-- name: pgvector_version
-- The installed pgvector version, or NULL.
SELECT extversion FROM pg_extension WHERE extname = 'vector';

-- name: embedder_get
-- Which embedder wrote the stored vectors.
SELECT name, dimension FROM hindsight_embedder;

-- name: embedder_lock
-- Hold the embedder record while it is checked and changed: one process at a time adopts
-- an embedder (writers of the record wait; readers do not).
LOCK TABLE hindsight_embedder IN EXCLUSIVE MODE;

-- name: embedder_record
-- Record the embedder that writes vectors from now on.
INSERT INTO hindsight_embedder (singleton, name, dimension, recorded_at)
VALUES (true, $1, $2, now())
ON CONFLICT (singleton) DO UPDATE SET name = excluded.name, dimension = excluded.dimension,
                                      recorded_at = excluded.recorded_at;

-- name: memories_exist
-- Whether any memory is stored at all.
SELECT EXISTS (SELECT 1 FROM memories);

-- name: embedding_dimension
-- The dimension the embedding column is declared with.
SELECT atttypmod FROM pg_attribute
WHERE attrelid = 'memories'::regclass AND attname = 'embedding';

-- name: embedding_set_dimension
-- Re-declare the embedding column for another dimension. Only ever run on an empty
-- table; {dimension} is filled with an integer (Session.execute_sized).
ALTER TABLE memories ALTER COLUMN embedding TYPE vector({dimension});

-- name: role_agents
-- Whether this session's role is limited to some agents by row-level security (a member of
-- hindsight_agent_writer or hindsight_agent_scope), and which (hindsight_agent_roles).
-- Superusers, BYPASSRLS roles and the tables' owner are not limited.
SELECT r.rolname AS role, hindsight_role_agents() AS agents,
       hindsight_scoped() AND NOT r.rolsuper AND NOT r.rolbypassrls
       AND r.oid <> (SELECT relowner FROM pg_class WHERE oid = 'memories'::regclass) AS scoped
FROM pg_roles r WHERE r.rolname = current_user;

-- name: health_check
-- The database answers (GET /healthz).
SELECT 1;
