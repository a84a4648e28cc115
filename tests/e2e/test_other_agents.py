"""Codex CLI and Gemini CLI, from the npm registry (tests/node), driving hindsight-server as
`hindsight mcp-config --client codex|gemini` configures it, their models a scripted stand-in
on loopback (model_stub.py). Each stores a memory in one session in a git checkout and
recalls it in the next, and sees a bad argument's error as one line."""

from __future__ import annotations

import anyio
import pytest
from claude_code import (
    HINDSIGHT_TOOLS,
    git_checkout,
)
from mcp_client import server_env
from model_stub import text, tool
from other_agents import CODEX, GEMINI, Codex, Gemini, runs, show

HINDSIGHT = set(HINDSIGHT_TOOLS)
FACT = "The release checklist of this repository lives in docs/RELEASING.md."


def _env(pg_tmp):
    env = server_env(HINDSIGHT_HOME=str(pg_tmp / "home"))
    env.pop("PATH", None), env.pop("HOME", None)
    return env


async def _sessions(agent, project):
    stored = await anyio.to_thread.run_sync(lambda: agent.run("Remember where the release checklist is.", project, [
        [tool("mcp__hindsight__store_memory", content=FACT, memory_type="semantic")],
        [text("Stored.")],
    ]))  # fmt: skip
    recalled = await anyio.to_thread.run_sync(lambda: agent.run("Where is the release checklist?", project, [
        [tool("mcp__hindsight__retrieve_memory", query="Where is the release checklist?")],
        [text("In docs/RELEASING.md.")],
    ]))  # fmt: skip
    # within the schema (these clients check it themselves: Gemini refuses importance 9 before
    # sending it), but not a date: the server's own check, in its words
    refused = await anyio.to_thread.run_sync(lambda: agent.run("What happened in the 13th month?", project, [
        [tool("mcp__hindsight__retrieve_memory", query="deploys", time_range={"start": "2026-13-45"})],
        [text("It was refused.")],
    ]))  # fmt: skip
    return stored, recalled, refused


def _check(label, model, stored, recalled, refused, session_expected: bool):
    for run in (stored, recalled, refused):
        show(run, label)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert HINDSIGHT <= model.offered_names(), sorted(model.offered_names())
    memory = stored.result()["memory"]
    assert stored.result()["status"] == "created" and memory["project"] == "release-tools"
    assert (memory["session_id"] is not None) is session_expected, memory["session_id"]
    assert recalled.result()["memories"][0]["content"] == FACT
    error = refused.calls[-1]["text"]
    line = next(line for line in error.splitlines() if "time_range" in line)
    assert "2026-13-45" in line and "Traceback" not in error and "pydantic" not in error, error
    print(f"{label}: the model saw {line!r}")


@pytest.mark.skipif(not runs(CODEX), reason="Codex CLI is not installed: npm ci --prefix tests/node")
async def test_codex_stores_in_one_session_and_recalls_in_the_next(pg_tmp, model):
    """Codex 0.169 speaks protocol 2025-06-18 without roots; the project comes from the
    folder it starts the server in, the session id from each call's _meta."""
    project = git_checkout(pg_tmp / "release-tools", "git@github.com:team/release-tools.git")
    agent = Codex(pg_tmp / "user", model, _env(pg_tmp))
    print(agent.configure(project).read_text())
    _check("codex", model, *await _sessions(agent, project), session_expected=True)


@pytest.mark.skipif(not runs(GEMINI), reason="Gemini CLI is not installed: npm ci --prefix tests/node")
async def test_gemini_stores_in_one_session_and_recalls_in_the_next(pg_tmp, model):
    """Gemini CLI 0.61 speaks protocol 2025-06-18 and answers roots/list: the project comes
    from its roots. It gives a server no session id."""
    project = git_checkout(pg_tmp / "release-tools", "https://github.com/team/release-tools.git")
    agent = Gemini(pg_tmp / "user", model, _env(pg_tmp))
    print(agent.configure(project).read_text())
    _check("gemini", model, *await _sessions(agent, project), session_expected=False)
