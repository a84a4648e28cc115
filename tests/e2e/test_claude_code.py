"""Claude Code, the client users run, driving hindsight-server: installed from the npm
registry (tests/node), its model a scripted stand-in on loopback (model_stub.py) that records
what Claude Code sent it. Each session runs `claude -p` in a temporary HOME, started in a
project folder; the transcripts go to the test's output (pytest -s shows them)."""

from __future__ import annotations

import json
import threading

import anyio
import pytest
from claude_code import HINDSIGHT_TOOLS, ClaudeCode, answer_to, git_checkout, installed, transcript, wire
from conftest import REPO
from mcp_client import server_env
from model_stub import load, text, tool

pytestmark = pytest.mark.skipif(not installed(), reason="Claude Code is not installed: npm ci --prefix tests/node")


@pytest.fixture
def claude(pg_tmp, model):
    env = server_env(HINDSIGHT_HOME=str(pg_tmp / "home"), HINDSIGHT_LOG_LEVEL="INFO")
    env.pop("PATH", None), env.pop("HOME", None)  # Claude Code's own
    return ClaudeCode(pg_tmp / "user", model, env)


def _run(claude, *args, **kwargs):
    return anyio.to_thread.run_sync(lambda: claude.run(*args, **kwargs))


async def test_it_connects_lists_the_tools_and_the_model_sees_them(claude, model, pg_tmp):
    project = git_checkout(pg_tmp / "alpha", "git@github.com:team/alpha.git")
    session = await _run(claude, "What can you remember for me?", project, [
        [load(*HINDSIGHT_TOOLS)],
        [text("I can store and recall memories.")],
    ], mcp_config=claude.mcp_config(pg_tmp))  # fmt: skip
    transcript(session, model)
    assert session.returncode == 0, session.stderr
    assert session.answer == "I can store and recall memories."
    assert session.connected_ms() is not None, session.log_lines()
    assert not any("timed out" in line or "rejected" in line for line in session.log_lines()), session.log_lines()
    offered = model.offered(session.id)
    assert set(HINDSIGHT_TOOLS) <= set(offered), sorted(offered)
    store = offered["mcp__hindsight__store_memory"]
    assert store["description"].startswith("Save one memory worth keeping")
    assert store["input_schema"]["properties"]["importance"]["maximum"] == 5
    assert "content" in store["input_schema"]["required"]


async def test_what_claude_code_received_at_connect(claude, model, pg_tmp):
    """Through a tap on the wire: the protocol it negotiated, every connect step answered by
    the front door at once and then by the SDK in the same words (no mismatch logged), the
    tool list with titles and annotations, and the server's exit on Claude Code's SIGINT."""
    project = git_checkout(pg_tmp / "alpha", "git@github.com:team/alpha.git")
    tap = pg_tmp / "wire.jsonl"
    session = await _run(claude, "List my memories.", project, [
        [load("mcp__hindsight__list_memories")],
        [tool("mcp__hindsight__list_memories", limit=5)],
        [text("Nothing yet.")],
    ], mcp_config=claude.mcp_config(pg_tmp, tap=tap))  # fmt: skip
    transcript(session, model)
    assert session.returncode == 0, session.stderr
    records = wire(tap)
    discover = answer_to(records, "server/discover")
    assert discover["result"]["supportedVersions"] == ["2026-07-28"]
    assert not any(r["msg"].get("method") == "initialize" for r in records if r.get("dir") == "in"), "no fallback"
    listed = answer_to(records, "tools/list")["result"]["tools"]
    assert {t["name"]: t["title"] for t in listed}["store_memory"] == "Store a memory"
    annotations = {t["name"]: t["annotations"] for t in listed}
    assert annotations["retrieve_memory"]["readOnlyHint"] is True
    assert annotations["delete_memory"]["destructiveHint"] is True
    assert [r["name"] for r in model.tool_results(session.id)] == ["ToolSearch", "mcp__hindsight__list_memories"]
    assert json.loads(model.tool_results(session.id)[-1]["text"])["memories"] == []
    assert records[-1] == {"t": records[-1]["t"], "exit": 0}, "the server exited cleanly"
    lines = session.log_lines()
    assert any("Sending SIGINT" in line for line in lines), lines
    assert not any("SIGINT failed" in line or "SIGTERM" in line for line in lines), lines
    logged = tap.with_suffix(".stderr").read_text()
    assert "serving on stdio" in logged and "differs from the SDK" not in logged, logged


def _readme_line(needle: str) -> str:
    """The README's command line holding `needle`, exactly as a user would copy it."""
    lines = [line.strip() for line in (REPO / "README.md").read_text().splitlines() if needle in line]
    commands = [line for line in lines if not line.startswith(("`", "-", "*", "|")) and "`" not in line]
    assert commands, f"the README has no command line with {needle!r}"
    return commands[0].split("  #")[0].strip()


def _memories(claude, home, *args) -> list[dict]:
    done = claude.shell(f"hindsight list --json {' '.join(args)}", home, timeout=180)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["memories"]


async def test_the_readme_setup_then_a_memory_stored_in_one_session_is_recalled_in_the_next(claude, model, pg_tmp):
    project = git_checkout(pg_tmp / "courier", "https://github.com/team/courier.git")
    setup = _readme_line("claude mcp add-json")
    added = await anyio.to_thread.run_sync(lambda: claude.shell(setup, pg_tmp))
    assert added.returncode == 0, added.stdout + added.stderr
    listed = await anyio.to_thread.run_sync(lambda: claude.shell("claude mcp list", project, timeout=180))
    assert "hindsight" in listed.stdout and "Connected" in listed.stdout, listed.stdout + listed.stderr

    fact = "The staging deploy of courier needs the VPN turned on first."
    first = await _run(claude, "Remember how staging deploys work.", project, [
        [load("mcp__hindsight__store_memory")],
        [tool("mcp__hindsight__store_memory", content=fact, memory_type="semantic")],
        [text("Noted.")],
    ])  # fmt: skip
    transcript(first, model)
    assert first.returncode == 0, first.stderr
    stored = json.loads(model.tool_results(first.id)[-1]["text"])
    assert stored["status"] == "created"
    assert stored["memory"]["session_id"] == first.id, "Claude Code's session id is the default session"
    assert stored["memory"]["project"] == "courier", "the project from Claude Code's project folder"

    second = await _run(claude, "What do I need before deploying to staging?", project, [
        [load("mcp__hindsight__retrieve_memory")],
        [tool("mcp__hindsight__retrieve_memory", query="What is needed before a staging deploy?")],
        [text("Turn on the VPN first.")],
    ])  # fmt: skip
    transcript(second, model)
    recalled = json.loads(model.tool_results(second.id)[-1]["text"])
    assert recalled["memories"][0]["content"] == fact
    assert recalled["open_projects"] == ["courier"]
    for session in (first, second):
        assert not any("SIGINT failed" in line for line in session.log_lines()), session.log_lines()


async def test_a_bad_argument_reaches_the_model_as_one_clear_line(claude, model, pg_tmp):
    project = git_checkout(pg_tmp / "alpha", "git@github.com:team/alpha.git")
    session = await _run(claude, "Store something odd.", project, [
        [load("mcp__hindsight__store_memory", "mcp__hindsight__retrieve_memory")],
        [tool("mcp__hindsight__store_memory", content="x", importance=9)],
        [tool("mcp__hindsight__retrieve_memory", query="deploys", time_range={"start": "2026-13-45"})],
        [text("Both were refused.")],
    ], mcp_config=claude.mcp_config(pg_tmp))  # fmt: skip
    transcript(session, model)
    results = model.tool_results(session.id)[1:]
    assert [r["is_error"] for r in results] == [True, True], results
    for result, field in zip(results, ("importance", "time_range")):
        print(f"{result['name']}: {result['text']!r}")
        assert field in result["text"] and "\n" not in result["text"].strip(), result["text"]
        assert "Traceback" not in result["text"] and "pydantic" not in result["text"]


async def test_two_sessions_at_once_share_one_embedded_database(claude, model, pg_tmp):
    projects = [git_checkout(pg_tmp / name, f"git@github.com:team/{name}.git") for name in ("alpha", "beta")]
    config = claude.mcp_config(pg_tmp)

    def script(body: dict) -> list:  # one script for both sessions: each stores its folder's fact
        done = sum(1 for m in body["messages"] if m["role"] == "assistant")
        folder = "alpha" if "/alpha" in json.dumps(body) else "beta"  # its working directory
        steps = [
            [load("mcp__hindsight__store_memory")],
            [tool("mcp__hindsight__store_memory", content=f"The {folder} service listens on port 80{len(folder)}.")],
            [text("Stored.")],
        ]
        return steps[min(done, 2)]

    sessions: list = [None, None]

    def one(i: int) -> None:
        sessions[i] = claude.run("Remember the port.", projects[i], script, mcp_config=config)

    def both() -> None:
        threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    await anyio.to_thread.run_sync(both)
    for session in sessions:
        transcript(session, model)
        assert session.returncode == 0, session.stderr
        assert json.loads(model.tool_results(session.id)[-1]["text"])["status"] == "created"
    stored = {m["project"]: m["content"] for m in _memories(claude, pg_tmp)}
    assert stored == {
        "alpha": "The alpha service listens on port 805.",
        "beta": "The beta service listens on port 804.",
    }


async def test_two_repositories_each_get_their_own_answer_first_and_a_preference_stays_global(claude, model, pg_tmp):
    """Sessions started in two git checkouts (remotes …/alpha.git and …/beta.git), no roots:
    what is stored in each belongs to it, a stated preference to every repository, and the
    same question asked in each gets that repository's answer first."""
    alpha = git_checkout(pg_tmp / "work" / "alpha", "git@github.com:team/alpha.git")
    beta = git_checkout(pg_tmp / "work" / "beta", "https://gitlab.example.com/team/beta.git")
    config = claude.mcp_config(pg_tmp)
    facts = {
        alpha: "Run the tests of this repository with `make check`.",
        beta: "Run the tests of this repository with `tox -e py311`.",
    }
    for folder, fact in facts.items():
        session = await _run(claude, "Remember how tests run here.", folder, [
            [load("mcp__hindsight__store_memory")],
            [tool("mcp__hindsight__store_memory", content=fact, memory_type="semantic")],
            [text("Noted.")],
        ], mcp_config=config)  # fmt: skip
        transcript(session, model)
        assert json.loads(model.tool_results(session.id)[-1]["text"])["memory"]["project"] == folder.name
    preference = await _run(claude, "I prefer pytest output without colours.", alpha, [
        [load("mcp__hindsight__store_memory")],
        [tool("mcp__hindsight__store_memory", content="I prefer pytest output without colours.",
              memory_type="semantic")],
        [text("Noted.")],
    ], mcp_config=config)  # fmt: skip
    assert json.loads(model.tool_results(preference.id)[-1]["text"])["memory"]["project"] is None
    for folder, fact in facts.items():
        session = await _run(claude, "How do I run the tests?", folder, [
            [load("mcp__hindsight__retrieve_memory")],
            [tool("mcp__hindsight__retrieve_memory", query="How do I run the tests?")],
            [text("See above.")],
        ], mcp_config=config)  # fmt: skip
        transcript(session, model)
        hits = json.loads(model.tool_results(session.id)[-1]["text"])["memories"]
        print(folder.name, [(h["project"], h["content"]) for h in hits[:3]])
        assert hits[0]["content"] == fact and hits[0]["project"] == folder.name
        assert any(h["project"] is None and "colours" in h["content"] for h in hits), "the preference shows in both"
    seen = {m["project"] for m in _memories(claude, pg_tmp)}
    assert seen == {"alpha", "beta", None}
