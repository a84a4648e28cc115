DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_writer') THEN
        REVOKE SELECT ON memories_archive FROM hindsight_agent_writer;
    END IF;
END $$;
DROP INDEX memories_archive_invalidated_by;
