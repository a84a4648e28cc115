"""Settings from the environment: unknown values are refused, naming the variable."""

import pytest


def test_settings_refuse_unknown_values():
    from hindsight.config import Settings
    from hindsight.errors import ConfigError

    assert Settings.from_env({}).agent_id == "default"
    assert (
        Settings.from_env({"HINDSIGHT_DATABASE_URL": "", "DATABASE_URL": "postgresql://x/y"}).database_url
        == "postgresql://x/y"
    )
    for env, name in (
        ({"HINDSIGHT_EMBEDDER": "bert"}, "HINDSIGHT_EMBEDDER"),
        ({"HINDSIGHT_LOG_LEVEL": "loud"}, "HINDSIGHT_LOG_LEVEL"),
        ({"HINDSIGHT_EMBED_THREADS": "0"}, "HINDSIGHT_EMBED_THREADS"),
        ({"HINDSIGHT_TIMEZONE": "Mars/Olympus"}, "HINDSIGHT_TIMEZONE"),
        ({"HINDSIGHT_DATABASE_URL": "sqlite:///x.db"}, "HINDSIGHT_DATABASE_URL"),
    ):
        with pytest.raises(ConfigError, match=name):
            Settings.from_env(env)


def test_the_http_read_timeout_is_seconds_within_bounds():
    from hindsight.config import Settings
    from hindsight.errors import ConfigError

    assert Settings.from_env({}).http_read_timeout == 30.0
    assert Settings.from_env({"HINDSIGHT_HTTP_READ_TIMEOUT": "2.5"}).http_read_timeout == 2.5
    for raw in ("0", "-1", "soon", "nan", "inf", "3601"):
        with pytest.raises(
            ConfigError, match=r"HINDSIGHT_HTTP_READ_TIMEOUT=.* must be a number of seconds from 1 to 3600"
        ):
            Settings.from_env({"HINDSIGHT_HTTP_READ_TIMEOUT": raw})
