-- What happened to this memory? Its history, oldest first: every create, update,
-- reinforce, invalidate, supersede, restore and delete, when, by which call, and why.
--
--   SET hindsight.example_agent = 'default';
--   SET hindsight.example_memory = '0b7e3c5e-2f0d-4c1e-9a57-3f1d2c4b5a69';
--   \i sql/examples/memory_timeline.sql
SELECT seq, at, action, call, reason, related_id AS superseded_by, importance, slot, content
FROM memory_history
WHERE agent_id = current_setting('hindsight.example_agent')
  AND memory_id = current_setting('hindsight.example_memory')::uuid
ORDER BY seq;
