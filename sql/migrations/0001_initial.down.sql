-- Undo 0001_initial. Drops every memory: only for development databases.
DROP TABLE IF EXISTS memories;
DROP TABLE IF EXISTS hindsight_embedder;
