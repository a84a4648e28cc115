-- Read replicas (hindsight/data/replicas.py, docs/replicas.md): the primary's WAL position
-- after a write, and what a replica says of itself. Positions are bytes of WAL (an LSN
-- minus '0/0'), so Python compares plain integers.

-- name: primary_wal_lsn
-- On the primary, after a write committed: where WAL insertion stands (at or past the end of
-- that write's commit record, whatever synchronous_commit says). A replica that replayed
-- this far shows the write.
SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint;

-- name: replica_replay_lsn
-- On a replica: how far it has replayed the primary's WAL (NULL on a server that is not
-- replaying: a primary, or a promoted standby). Polled while a read waits for a write.
SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint;

-- name: replica_state
-- On a replica, every few seconds: is it a standby (in recovery), how far has it replayed,
-- and does it hold hindsight's schema (a replica of another database does not).
SELECT pg_is_in_recovery() AS in_recovery,
       (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint AS replayed,
       to_regclass('memories') IS NOT NULL AS has_schema;
