CREATE INDEX memory_terms_impact_plain ON memory_terms (agent_id, term, tf DESC, doc_len);
DROP INDEX memory_terms_impact;
ALTER INDEX memory_terms_impact_plain RENAME TO memory_terms_impact;
