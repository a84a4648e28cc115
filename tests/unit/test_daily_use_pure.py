"""The pure parts behind daily use (no database): redaction that can run twice, cutting
long tool output, splitting bulk work between cores, logging, IDE configs, settings."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from hindsight import logs
from hindsight.cli.ide_config import config_for
from hindsight.config import Settings
from hindsight.embedders.bulk import Parallel, shares
from hindsight.errors import ConfigError
from hindsight.rules import privacy
from hindsight.rules.clipping import clip, utf8_size
from hindsight.upkeep.schedule import summary


@pytest.mark.parametrize(
    "text",
    [
        "my api key is sk-abcdefghijklmnopqrstuvwx1234",
        "password: hunter2-x and token=abcdefgh12345678",
        "mail ada@example.com or call +44 20 7946 0958",
        "数据库密码是 Tr0ub4dor-3",
    ],
)
def test_redacting_twice_changes_nothing_more(text):
    once, kinds = privacy.redact(text)
    assert kinds and "[REDACTED:" in once
    assert privacy.redact(once) == (once, [])


def test_a_placeholder_is_not_a_secret_but_does_not_hide_one():
    assert privacy.redact("my api key is [REDACTED:api_key]") == ("my api key is [REDACTED:api_key]", [])
    hidden, kinds = privacy.redact("password: [REDACTED:x]hunter2-real")
    assert "hunter2" not in hidden and kinds == ["password"]


def test_long_output_keeps_head_tail_and_error_lines_within_the_limit():
    lines = [f"[{i:05d}] compiling module_{i}" for i in range(5000)]
    lines[2500] = "[02500] Traceback (most recent call last): boom"
    lines[3000] = "[03000] 编译失败：找不到模块"
    text = "\n".join(lines)
    kept, cut = clip(text, 32 * 1024)
    assert utf8_size(kept) <= 32 * 1024 and cut > 0
    assert kept.startswith("[00000] compiling") and kept.endswith("[04999] compiling module_4999")
    assert "Traceback (most recent call last): boom" in kept and "编译失败" in kept
    assert f"[… {cut:,} bytes cut: head, tail and error lines kept …]" in kept
    assert clip("short", 10) == ("short", 0)


def test_one_long_line_keeps_both_ends():
    kept, cut = clip("a" * 3000 + "MIDDLE" + "z" * 3000, 1000, len, "characters")
    assert kept.startswith("aaa") and kept.endswith("zzz") and "MIDDLE" not in kept and len(kept) <= 1000


def test_bulk_work_is_split_in_near_equal_contiguous_shares():
    assert shares(5, 2) == [(0, 3), (3, 5)]
    assert shares(1, 2) == [(0, 1)]
    assert shares(0, 2) == []
    assert shares(64, 3) == [(0, 22), (22, 43), (43, 64)]


class Counting:
    name, dimension = "fake", 2

    def __init__(self, tag: float):
        self.tag, self.calls = tag, []

    def passages(self, texts):
        self.calls.append(list(texts))
        return np.array([[self.tag, len(t)] for t in texts], dtype=np.float32)

    def query(self, text):
        return np.array([self.tag, len(text)], dtype=np.float32)


def test_parallel_gives_each_worker_its_share_and_keeps_the_order():
    a, b = Counting(1), Counting(2)
    out = Parallel([a, b]).passages(["x", "yy", "zzz"])
    assert out.tolist() == [[1, 1], [1, 2], [2, 3]]
    assert a.calls == [["x", "yy"]] and b.calls == [["zzz"]]


def test_parallel_e5_engines_give_the_same_vectors_as_one(embedder):
    from hindsight.embedders.e5 import E5Small

    texts = ["The user prefers polars", "部署前先跑测试", "pip needs PIP_CERT behind the proxy", "ok", "x" * 300]
    together = Parallel([E5Small(1), E5Small(1)]).passages(texts)
    assert np.allclose(together, embedder.passages(texts), atol=1e-6)


def test_logging_is_quiet_for_libraries_and_honours_the_level(capsys):
    logs.setup("INFO")
    logging.getLogger("alembic.runtime.plugins").info("setup plugin alembic.autogenerate.schemas")
    logging.getLogger("hindsight.scheduler").info("next maintenance run at 2026-12-01 03:00 UTC")
    logging.getLogger("hindsight.scheduler").debug("details")
    err = capsys.readouterr().err
    assert "setup plugin" not in err and "next maintenance run" in err and "details" not in err
    logs.setup("DEBUG")
    logging.getLogger("alembic.runtime.plugins").info("setup plugin alembic.autogenerate.schemas")
    assert "setup plugin" in capsys.readouterr().err
    logs.setup("WARNING")
    logging.getLogger("hindsight.scheduler").info("next maintenance run")
    assert capsys.readouterr().err == ""
    assert len([h for h in logging.getLogger().handlers if isinstance(h, logs._Handler)]) == 1
    assert logs.level_from_env({"HINDSIGHT_LOG_LEVEL": "loud"}) == "INFO"


def test_ide_config_selects_the_same_database_and_never_holds_a_secret(tmp_path):
    key = "gEdXVL8FO6BY-elPaw1D9qs0_PZ3kopSRRQz5HcOMI8="
    env = {
        "HINDSIGHT_HOME": str(tmp_path / "h"),
        "HINDSIGHT_AGENT_ID": "me",
        "HINDSIGHT_ENCRYPTION_KEY": key,
        "HINDSIGHT_DEDUP_THRESHOLD": "0.97",
    }
    settings = Settings.from_env(env)
    for client in ("claude-desktop", "cursor", "vscode", "claude-code"):
        config, notes = config_for(client, "/venv/bin/hindsight-server", settings, env)
        assert key not in repr(config) + repr(notes)
        block = (config.get("mcpServers") or config["servers"])["hindsight"]["env"]
        assert block["HINDSIGHT_HOME"] == str((tmp_path / "h").resolve()) and block["HINDSIGHT_AGENT_ID"] == "me"
        assert block["HINDSIGHT_DEDUP_THRESHOLD"] == "0.97" and "HINDSIGHT_DATABASE_URL" not in block
        assert any("HINDSIGHT_ENCRYPTION_KEY" in n for n in notes)
    url = "postgresql://hs:s3cret@db.example:5432/memories"
    config, notes = config_for("cursor", "hindsight-server", Settings.from_env({"HINDSIGHT_DATABASE_URL": url}), {})
    assert config["mcpServers"]["hindsight"]["env"]["HINDSIGHT_DATABASE_URL"] == url
    assert notes == ["the config holds HINDSIGHT_DATABASE_URL with its password: keep the file private"]


def test_the_openai_embedder_error_names_the_missing_variable_in_its_example():
    with pytest.raises(ConfigError) as only_model:
        Settings.from_env({"HINDSIGHT_EMBEDDER": "openai", "HINDSIGHT_EMBED_URL": "http://localhost:8000/v1"})
    assert str(only_model.value) == (
        "HINDSIGHT_EMBEDDER=openai needs HINDSIGHT_EMBED_MODEL (e.g. HINDSIGHT_EMBED_MODEL=text-embedding-3-small)"
    )
    with pytest.raises(
        ConfigError,
        match=r"needs HINDSIGHT_EMBED_URL and HINDSIGHT_EMBED_MODEL \(e.g. "
        r"HINDSIGHT_EMBED_URL=http://localhost:8000/v1 HINDSIGHT_EMBED_MODEL=",
    ):
        Settings.from_env({"HINDSIGHT_EMBEDDER": "openai"})


def test_a_run_report_becomes_one_line():
    report = {
        "status": "succeeded",
        "seconds": 1.5,
        "decay": {"changed": 10, "sank_below": 2, "recovered": 1, "threshold": 0.3},
        "archive": {"archived_expired": 3, "archived_superseded": 1},
        "consolidation": {"clusters": 1, "created": 1},
        "counts": {"after": {"live": 100, "archived": 4}, "reconciled": True},
    }
    assert summary(report) == (
        "maintenance succeeded in 1.5 s: decay changed 10 (2 sank below 0.3, 1 recovered); "
        "archived 3 expired and 1 superseded; consolidation made 1 memories from 1 clusters; "
        "100 live, 4 archived"
    )
    assert summary({"status": "skipped", "reason": "another maintenance run holds the lock"}) == (
        "maintenance skipped: another maintenance run holds the lock"
    )


def test_readme_says_which_python_and_to_use_a_virtualenv():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    head = "\n".join(readme.splitlines()[:30])
    assert "Python 3.11" in head and "python3 -m venv" in head and "externally-managed-environment" in head
