ALTER TABLE memories DROP CONSTRAINT memories_agent_id_invalidated_by_fkey;
ALTER TABLE memories ADD CONSTRAINT memories_agent_id_invalidated_by_fkey
    FOREIGN KEY (agent_id, invalidated_by) REFERENCES memories (agent_id, id)
    ON DELETE SET NULL (invalidated_by) DEFERRABLE INITIALLY DEFERRED;
DROP TRIGGER memories_unlink_replaced ON memories;
DROP FUNCTION memories_unlink_replaced();
