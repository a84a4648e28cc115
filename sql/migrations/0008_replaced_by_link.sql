-- 0008: the link from a memory to the one that replaced it, in a form Citus accepts.
--
-- memories (agent_id, invalidated_by) -> memories (agent_id, id) was ON DELETE SET NULL
-- (invalidated_by). Citus refuses SET NULL and SET DEFAULT on a foreign key that includes the
-- distribution column (agent_id), so the key becomes NO ACTION, still checked at commit, and a
-- statement trigger clears the links to the memories a DELETE removed, at the end of that
-- statement, as the referential action did: the same rows change, through the same UPDATE
-- triggers (their history), and a delete of a memory and of the one it replaced together
-- works as before.

CREATE FUNCTION memories_unlink_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memories m SET invalidated_by = NULL
    FROM deleted d
    WHERE m.agent_id = d.agent_id AND m.invalidated_by = d.id;
    RETURN NULL;
END $$;
COMMENT ON FUNCTION memories_unlink_replaced() IS
    'After a DELETE on memories: clear invalidated_by where it named a deleted memory (was ON DELETE SET NULL).';

CREATE TRIGGER memories_unlink_replaced AFTER DELETE ON memories
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION memories_unlink_replaced();

ALTER TABLE memories DROP CONSTRAINT memories_agent_id_invalidated_by_fkey;
ALTER TABLE memories ADD CONSTRAINT memories_agent_id_invalidated_by_fkey
    FOREIGN KEY (agent_id, invalidated_by) REFERENCES memories (agent_id, id)
    DEFERRABLE INITIALLY DEFERRED;
