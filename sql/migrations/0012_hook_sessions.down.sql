DROP TABLE hook_shown;
DROP TABLE hook_sessions;
