"""hindsight's lifecycle hooks inside Claude Code itself (tests/node), set up as the README
says: the server added with `claude mcp add-json`, the hooks with `hindsight hooks install`.
The scripted model (model_stub.py) runs the commands; the hooks capture and inject on their
own, without the model calling a memory tool. Sessions keep their transcripts, as a user's do."""

from __future__ import annotations

import json
import re
import sys

import anyio
import pytest
from claude_code import ClaudeCode, courier_checkout, git_checkout, installed, transcript
from mcp_client import server_env
from model_stub import text, tool
from test_claude_code import _readme_line

pytestmark = pytest.mark.skipif(not installed(), reason="Claude Code is not installed: npm ci --prefix tests/node")


@pytest.fixture
def claude(pg_tmp, model):
    env = server_env(HINDSIGHT_HOME=str(pg_tmp / "home"), HINDSIGHT_LOG_LEVEL="INFO")
    env.pop("PATH", None), env.pop("HOME", None)  # Claude Code's own
    return ClaudeCode(pg_tmp / "user", model, env, transcripts=True)


def _run(claude, *args, **kwargs):
    return anyio.to_thread.run_sync(lambda: claude.run(*args, **kwargs))


def _shell(claude, command, cwd, timeout=180):
    done = claude.shell(command, cwd, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _seen(model, session) -> str:
    """Everything the model was sent in a session, as one text; what hindsight added to its
    context is printed (pytest -s shows it)."""
    seen = "\n".join(json.dumps(body, ensure_ascii=False) for body in model.turns(session.id))
    for block in dict.fromkeys(re.findall(r"From hindsight[^\"]*(?:\\n[^\"]*)*", seen)):
        print("  hindsight added to the context:\n    " + block.replace("\\n", "\n    "), file=sys.stderr)
    return seen


async def test_a_failure_and_its_fix_are_captured_and_brought_back_in_the_next_session(claude, model, pg_tmp):
    project = courier_checkout(pg_tmp / "courier")
    for needle in ("claude mcp add-json", "hooks install"):  # the README's two lines, as written
        await anyio.to_thread.run_sync(lambda n=needle: _shell(claude, _readme_line(n), pg_tmp))
    installed_hooks = json.loads((claude.home / ".claude" / "settings.json").read_text())["hooks"]
    assert set(installed_hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure",
                                    "PreCompact", "Stop"}  # fmt: skip

    first = await _run(claude, "Run the checks and make them pass.", project, [
        [tool("Bash", command="sh check.sh", description="run the checks")],
        [tool("Bash", command="cp .env.example .env.test", description="create the test settings")],
        [tool("Bash", command="sh check.sh", description="run the checks again")],
        [text("The checks pass now: .env.test was missing.")],
    ], allowed=("Bash",))  # fmt: skip
    transcript(first, model)
    assert first.returncode == 0, first.stderr
    assert "hook" not in first.stderr.lower(), first.stderr  # no hook failed, none printed anything

    listed = json.loads(_shell(claude, "hindsight list --json", project).stdout)["memories"]
    by_hook = [m for m in listed if m["metadata"].get("source") == "hook"]
    fix = next(m for m in by_hook if m["metadata"].get("reason") == "error_and_fix")
    assert "sh check.sh" in fix["content"] and ".env.test is missing" in fix["content"], fix
    assert "cp .env.example .env.test" in fix["content"], fix
    assert fix["session_id"] == first.id and fix["project"] == "courier" and fix["memory_type"] == "procedural"
    assert not any(m["metadata"].get("reason") == "tool_failed" for m in by_hook), "the fix superseded the failure"
    outcome = next(m for m in by_hook if m["metadata"].get("reason") == "session_outcome")
    assert outcome["slot"] == f"session:{first.id}" and "Run the checks" in outcome["content"], outcome
    table = _shell(claude, "COLUMNS=160 hindsight list", project).stdout
    assert f"hook PostToolUse, session {first.id[:8]}" in table, table

    second = await _run(claude, "The checks fail again, .env.test is missing. What did we do last time?", project, [
        [text("Last time we copied .env.example to .env.test.")],
    ], allowed=("Bash",))  # fmt: skip
    transcript(second, model)
    assert second.returncode == 0, second.stderr
    seen = _seen(model, second)
    assert "From hindsight" in seen and "cp .env.example .env.test" in seen, seen[-3000:]

    third = await _run(claude, "Suggest a name for a grey cat.", project, [[text("Mist.")]], allowed=("Bash",))
    transcript(third, model)
    assert third.returncode == 0, third.stderr
    seen = _seen(model, third)
    assert "memories of earlier sessions" not in seen, "nothing is injected for an unrelated prompt"
    assert "cp .env.example" not in seen


async def test_a_stated_preference_is_kept_global_and_private_text_never_stored(claude, model, pg_tmp):
    project = git_checkout(pg_tmp / "basket", "https://github.com/team/basket.git")
    for needle in ("claude mcp add-json", "hooks install"):
        await anyio.to_thread.run_sync(lambda n=needle: _shell(claude, _readme_line(n), pg_tmp))
    said = "From now on always use pnpm, never npm. <private>the staging password is hunter2-courier</private>"
    session = await _run(claude, said, project, [[text("Understood.")]], allowed=("Bash",))
    assert session.returncode == 0, session.stderr
    listed = json.loads(_shell(claude, "hindsight list --json", project).stdout)["memories"]
    kept = {m["metadata"]["reason"]: m for m in listed if m["metadata"].get("source") == "hook"}
    preference = kept["preference"]
    assert preference["content"] == "From now on always use pnpm, never npm."
    assert preference["project"] is None and preference["memory_type"] == "semantic"  # about the user: every repository
    outcome = kept["session_outcome"]  # the session, at its Stop: what was decided, in this repository
    assert outcome["project"] == "basket" and outcome["content"].endswith(
        "Decided: From now on always use pnpm, never npm."
    )
    everything = _shell(claude, "hindsight export", project).stdout
    assert "hunter2" not in everything and not re.search(r"staging password", everything)

    other = git_checkout(pg_tmp / "granary", "https://github.com/team/granary.git")
    later = await _run(claude, "Add a dependency for date parsing.", other, [[text("OK.")]], allowed=("Bash",))
    seen = _seen(model, later)
    assert "standing preferences" in seen and "always use pnpm, never npm" in seen, seen[-3000:]
