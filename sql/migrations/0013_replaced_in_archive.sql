-- 0013_replaced_in_archive: recall ranks a memory that replaced others by the nearest of
-- them (rules/scoring.py, step 1), reading them by their invalidated_by. Maintenance moves
-- memories superseded more than 90 days ago to memories_archive, where the link stays; recall
-- reads them there too, through the index memories already has (memories_invalidated_by),
-- so a server's role (hindsight_agent_writer, 0007) now reads the archive: row-level security
-- (its one_agent policy) limits it to the role's own agents.
CREATE INDEX memories_archive_invalidated_by ON memories_archive (agent_id, invalidated_by)
    WHERE invalidated_by IS NOT NULL;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'hindsight_agent_writer') THEN
        GRANT SELECT ON memories_archive TO hindsight_agent_writer;
    END IF;
END $$;
