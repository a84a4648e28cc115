DROP TABLE hindsight_tokens;
