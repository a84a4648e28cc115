-- 0011_covering_postings: the keyword channel reads each query term's strongest postings
-- from memory_terms_impact (see channel_keyword). The index now carries memory_id too, so
-- those reads are index-only scans: no visit to the table's pages for each posting. At
-- 100,000 memories of one agent this took the channel from 13.3 to 9.1 ms (median, with
-- the same results; benchmarks/README.md). Building it locks writes to memory_terms for as
-- long as the build takes (3 s for 1,063,722 postings on the 2-core development machine).
CREATE INDEX memory_terms_impact_covering ON memory_terms (agent_id, term, tf DESC, doc_len) INCLUDE (memory_id);
DROP INDEX memory_terms_impact;
ALTER INDEX memory_terms_impact_covering RENAME TO memory_terms_impact;
