-- What did we believe on date X? Every memory of an agent as it stood at that moment,
-- rebuilt from memory_history (so later updates, supersessions and deletions do not
-- rewrite the past). Set the agent and the moment, then run:
--
--   SET hindsight.example_agent = 'default';
--   SET hindsight.example_at = '2026-11-01T00:00:00Z';
--   \i sql/examples/beliefs_as_of.sql
--
-- (Or replace the two current_setting(...) calls with literals.)
SELECT memory_id, memory_type, content, importance, slot, at AS as_written
FROM (
    SELECT DISTINCT ON (memory_id) memory_id, action, memory_type, content, importance, slot,
           expires_at, at
    FROM memory_history
    WHERE agent_id = current_setting('hindsight.example_agent')
      AND at <= current_setting('hindsight.example_at')::timestamptz
    ORDER BY memory_id, seq DESC
) latest
WHERE action NOT IN ('invalidate', 'supersede', 'delete')
  AND (expires_at IS NULL OR expires_at > current_setting('hindsight.example_at')::timestamptz)
ORDER BY at;
