"""Docs that stay true: every CLI command is documented, and the README's commands run."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
from cryptography.fernet import Fernet

from hindsight.cli.parser import parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands() -> list[str]:
    sub = next(a for a in parser()._actions if a.dest == "command")
    return sorted(sub.choices)


def test_every_cli_command_is_in_the_readme():
    missing = [c for c in commands() if f"hindsight {c}" not in README]
    assert missing == []
    assert README.splitlines()[2:12] and "pip install -e . && hindsight-server" in README
    assert "pip install -e '.[test]' && npm ci --prefix tests/node && python -m pytest" in README


async def test_readme_commands_run(cli):
    for client in ("claude-desktop", "cursor", "vscode", "claude-code"):
        out = await cli("mcp-config", "--client", client)
        config = json.loads(out.out)
        server = (config.get("mcpServers") or config["servers"])["hindsight"]
        assert server["command"].endswith("hindsight-server")
    assert len((await cli("keygen")).out.strip()) == 44
    stored = await cli("store", "Prefers polars", "--type", "semantic", "--importance", "4", "--json")
    assert json.loads(stored.out)["status"] == "created"
    recalled = await cli("recall", "--query", "dataframe library?", "--json")
    assert json.loads(recalled.out)["memories"][0]["content"] == "Prefers polars"
    for args in (
        ("migrate",),
        ("stats", "--json"),
        ("maintain", "--dry-run", "--json"),
        ("export",),
        ("list",),
        ("show", json.loads(stored.out)["id"][:8]),
        ("stats",),
    ):
        done = await cli(*args)
        assert done.code == 0, (args, done.err)
    doctor = await cli("doctor")
    assert doctor.code == 0, doctor.out + doctor.err
    assert "stdout clean" in doctor.out and "tools" in doctor.out
    steps = [line for line in doctor.err.splitlines() if line.startswith("hindsight doctor: ")]
    assert steps == [  # each step on stderr as it starts (doctor worked 20 s in silence)
        "hindsight doctor: checking the database…",
        "hindsight doctor: checking pgvector…",
        "hindsight doctor: checking the search settings…",
        "hindsight doctor: loading the embedder e5-small…",
        "hindsight doctor: starting hindsight-server as an IDE would, to check its stdout…",
        "hindsight doctor: reading the schema's revision…",
    ]
    assert "search:   iterative_scan=relaxed_order, ef_search=64, plan_cache_mode=force_custom_plan\n" in doctor.out
    help_ = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [str(Path(sys.executable).parent / "hindsight"), "--help"], capture_output=True, text=True
        )
    )
    assert all(c in help_.stdout for c in commands())


async def test_the_readme_claude_code_line_keeps_the_environment_mcp_config_prints(cli, db_url):
    """Issue 29: the README's `… --entry | claude mcp add-json …` must register the env that
    `mcp-config --client claude-code` prints (tests/e2e/test_claude_code.py runs the whole line
    in Claude Code)."""
    line = next(x.strip() for x in README.splitlines() if "claude mcp add-json" in x and "`" not in x)
    left = shlex.split(line.split("|")[0])
    assert left[:1] == ["hindsight"] and "--entry" in left
    key = Fernet.generate_key().decode()  # set in the shell that runs the line
    entry = await cli(*left[1:], HINDSIGHT_AGENT_ID="alice", HINDSIGHT_ENCRYPTION_KEY=key)
    full = await cli("mcp-config", "--client", "claude-code", HINDSIGHT_AGENT_ID="alice", HINDSIGHT_ENCRYPTION_KEY=key)
    assert entry.code == full.code == 0, entry.err + full.err
    assert json.loads(entry.out) == json.loads(full.out)["mcpServers"]["hindsight"]
    assert json.loads(entry.out)["env"] == {
        "HINDSIGHT_AGENT_ID": "alice",
        "HINDSIGHT_DATABASE_URL": db_url,
        "HINDSIGHT_ENCRYPTION_KEY": "${HINDSIGHT_ENCRYPTION_KEY}",
    }
    assert key not in entry.out + entry.err
