"""hindsight's lifecycle hooks in Gemini CLI (tests/node), which has command hooks only:
`hindsight hooks install --client gemini` writes them, each runs `hindsight-hook`, which hands
the event to the hindsight server the same Gemini CLI runs (its hook socket). The scripted
model runs the commands; nothing asks the model to call a memory tool."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest
from claude_code import courier_checkout
from mcp_client import server_command, server_env
from model_stub import text, tool
from other_agents import GEMINI, Gemini, runs, show


def _hindsight(home: Path, *args: str) -> str:
    env = {**os.environ, **server_env(HINDSIGHT_HOME=str(home.parent / "home")), "HOME": str(home)}
    env["PATH"] = os.pathsep.join([str(Path(server_command()).parent), env.get("PATH", "")])
    done = subprocess.run(["hindsight", *args], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.skipif(not runs(GEMINI), reason="Gemini CLI is not installed: npm ci --prefix tests/node")
async def test_gemini_hooks_capture_a_fix_and_bring_it_back_in_the_next_session(pg_tmp, model):
    project = courier_checkout(pg_tmp / "courier")
    env = server_env(HINDSIGHT_HOME=str(pg_tmp / "home"))
    env.pop("PATH", None), env.pop("HOME", None)
    agent = Gemini(pg_tmp / "user", model, env)
    agent.configure(project)
    _hindsight(agent.home, "hooks", "install", "--client", "gemini")
    hooks = json.loads((agent.home / ".gemini" / "settings.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent"}

    first = await anyio.to_thread.run_sync(lambda: agent.run("Run the checks and make them pass.", project, [
        [tool("run_shell_command", command="sh check.sh")],
        [tool("run_shell_command", command="cp .env.example .env.test")],
        [tool("run_shell_command", command="sh check.sh")],
        [text("The checks pass now.")],
    ]))  # fmt: skip
    show(first, "gemini")
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    listed = json.loads(_hindsight(agent.home, "list", "--json"))["memories"]
    fix = next(m for m in listed if m["metadata"].get("source") == "hook")
    assert fix["metadata"]["reason"] == "error_and_fix" and fix["project"] == "courier", fix
    assert ".env.test is missing" in fix["content"] and "cp .env.example .env.test" in fix["content"], fix

    since = len(model.requests)
    again = "The checks fail again, .env.test is missing. What did we do last time?"
    second = await anyio.to_thread.run_sync(lambda: agent.run(again, project, [[text("We copied .env.example.")]]))
    assert second.returncode == 0, second.stderr[-2000:]
    seen = "\n".join(json.dumps(r["body"], ensure_ascii=False) for r in model.requests[since:])
    assert "From hindsight" in seen and "cp .env.example .env.test" in seen, seen[-3000:]
