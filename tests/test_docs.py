"""Docs that stay true: every CLI command is documented, and the README's commands run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio

from hindsight.cli import parser
from test_cli import run as cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands() -> list[str]:
    sub = next(a for a in parser()._actions if a.dest == "command")
    return sorted(sub.choices)


def test_every_cli_command_is_in_the_readme():
    missing = [c for c in commands() if f"hindsight {c}" not in README]
    assert missing == []
    assert README.splitlines()[2:12] and "pip install -e . && hindsight-server" in README
    assert "pip install -e '.[test]' && python -m pytest" in README


async def test_readme_commands_run(db_url):
    for client in ("claude-desktop", "cursor", "vscode", "claude-code"):
        out = await cli(db_url, "mcp-config", "--client", client)
        config = json.loads(out.stdout)
        server = (config.get("mcpServers") or config["servers"])["hindsight"]
        assert server["command"].endswith("hindsight-server")
    assert len((await cli(db_url, "keygen")).stdout.strip()) == 44
    stored = await cli(db_url, "store", "Prefers polars", "--type", "semantic", "--importance", "4", "--json")
    assert json.loads(stored.stdout)["status"] == "created"
    recalled = await cli(db_url, "recall", "--query", "dataframe library?", "--json")
    assert json.loads(recalled.stdout)["memories"][0]["content"] == "Prefers polars"
    for args in (("migrate",), ("stats", "--json"), ("maintain", "--dry-run", "--json"), ("export",)):
        done = await cli(db_url, *args)
        assert done.returncode == 0, (args, done.stderr)
    doctor = await cli(db_url, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "stdout clean" in doctor.stdout and "tools" in doctor.stdout
    help_ = await anyio.to_thread.run_sync(lambda: subprocess.run(
        [str(Path(sys.executable).parent / "hindsight"), "--help"], capture_output=True, text=True))
    assert all(c in help_.stdout for c in commands())
