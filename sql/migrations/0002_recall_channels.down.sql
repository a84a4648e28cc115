DROP INDEX IF EXISTS memories_task_type, memories_entities;
DROP TRIGGER IF EXISTS memories_tools_update ON memories;
DROP TRIGGER IF EXISTS memories_tools_insert ON memories;
DROP FUNCTION IF EXISTS memories_tools_after_update(), memories_tools_after_insert(), memory_tool_rows(memories);
DROP TABLE IF EXISTS memory_tools;
DROP TRIGGER IF EXISTS memories_terms_update ON memories;
DROP TRIGGER IF EXISTS memories_terms_delete ON memories;
DROP TRIGGER IF EXISTS memories_terms_insert ON memories;
DROP TRIGGER IF EXISTS memories_doc_len ON memories;
DROP FUNCTION IF EXISTS memories_terms_after_update(), memories_terms_after_delete(),
    memories_terms_after_insert(), memories_doc_len();
DROP TABLE IF EXISTS agent_stats, term_stats, memory_terms;
ALTER TABLE memories DROP COLUMN IF EXISTS doc_len;
ALTER TABLE memories RESET (fillfactor);
