"""The open project from the IDE, end to end: a real MCP client over stdio that declares roots
(the SDK's list_roots_callback) drives the installed server. Writes go to the open project
except what is about the user; recall puts the open project's answer first and follows the
roots when they change mid-session; a git checkout is named after its remote, a plain folder
after itself; a client without roots works as before."""

from __future__ import annotations

import subprocess

import anyio
import asyncpg
from mcp_client import mcp_client, roots_callback, server_env

TESTS = {
    "courier": "courier's tests run with `make test` inside the poetry env; pytest -x -q for a quick pass.",
    "granary": "granary's tests run with `tox -e py311`; the dbt models are tested with `dbt test`.",
}
QUESTION = "How do I run the tests in this repo?"


def _env(db_url: str, **extra: str) -> dict[str, str]:
    return server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="dev", **extra)


def _git_checkout(folder, remote: str) -> None:
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)


async def _wait_for(predicate, seconds: float = 20.0) -> None:
    with anyio.fail_after(seconds):
        while not await predicate():
            await anyio.sleep(0.1)


async def test_writes_follow_the_roots_and_recall_prefers_the_open_project(db_url, tmp_path):
    courier = tmp_path / "work" / "courier-checkout"  # a git checkout: named after its remote
    _git_checkout(courier, "git@gitlab.example.com:delivery/courier.git")
    granary = tmp_path / "src" / "granary"  # a plain folder: named after itself
    granary.mkdir(parents=True)
    roots, asked = [courier.as_uri()], []
    async with mcp_client(_env(db_url), list_roots=roots_callback(roots, asked)) as c:
        stored = await c.call("store_memory", content=TESTS["courier"], memory_type="procedural")
        assert stored["memory"]["project"] == "courier" and asked  # asked after initialized
        pref = await c.call("store_memory", content="I prefer rg over grep for searching code.", memory_type="semantic")
        assert pref["memory"]["project"] is None  # about the user: global
        slot = await c.call(
            "store_memory", content="Reply in short bullet points.", memory_type="semantic", slot="preference:replies"
        )
        assert slot["memory"]["project"] is None
        pinned = await c.call("store_memory", content="The monorepo uses Renovate.", project="")
        assert pinned["memory"]["project"] is None  # the call said: no project

        roots[:] = [granary.as_uri()]
        before = len(asked)
        await c.session.send_roots_list_changed()
        await _wait_for(lambda: _anyio_true(len(asked) > before))
        stored = await c.call("store_memory", content=TESTS["granary"], memory_type="procedural")
        assert stored["memory"]["project"] == "granary"
        found = await c.call("retrieve_memory", query=QUESTION, top_k=3)
        assert found["open_projects"] == ["granary"]
        assert found["memories"][0]["content"] == TESTS["granary"] and found["memories"][0]["project"] == "granary"
        other = next(m for m in found["memories"] if m["project"] == "courier")  # demoted, not hidden
        assert other["score_parts"]["other_project"] == 0.35

        roots[:] = [courier.as_uri()]
        before = len(asked)
        await c.session.send_roots_list_changed()
        await _wait_for(lambda: _anyio_true(len(asked) > before))
        found = await c.call("retrieve_memory", query=QUESTION, top_k=3)
        assert found["memories"][0]["content"] == TESTS["courier"]
        only = await c.call("retrieve_memory", query=QUESTION, top_k=5, project="granary")  # restricts
        assert {m["project"] for m in only["memories"]} == {"granary"}
        listed = await c.call("list_memories", project="")
        assert {m["content"][:12] for m in listed["memories"]} == {"I prefer rg ", "Reply in sho", "The monorepo"}
        shown = await c.call("retrieve_memory", query=QUESTION, top_k=2, format="prompt")
        assert "project courier" in shown["prompt"]
    conn = await asyncpg.connect(db_url)
    try:
        mapped = {r["root"]: (r["project"], r["source"]) for r in await conn.fetch("SELECT * FROM project_roots")}
    finally:
        await conn.close()
    assert mapped == {courier.as_uri(): ("courier", "git remote"), granary.as_uri(): ("granary", "folder")}


async def _anyio_true(value: bool) -> bool:
    return value


async def test_a_client_without_roots_works_as_before_and_hindsight_project_is_the_default(db_url):
    async with mcp_client(_env(db_url)) as c:
        stored = await c.call("store_memory", content=TESTS["courier"], memory_type="procedural")
        assert stored["memory"]["project"] is None
        found = await c.call("retrieve_memory", query=QUESTION)
        assert "open_projects" not in found and "other_project" not in found["memories"][0]["score_parts"]
        named = await c.call("store_memory", content=TESTS["granary"], memory_type="procedural", project="granary")
        assert named["memory"]["project"] == "granary"
        bad = await c.error("store_memory", content="x y z", project=" padded ")
        assert "project" in bad and "surrounding spaces" in bad
    async with mcp_client(_env(db_url, HINDSIGHT_PROJECT="basket")) as c:
        stored = await c.call("store_memory", content="basket deploys with `make release`.", memory_type="procedural")
        assert stored["memory"]["project"] == "basket"


async def test_without_roots_the_project_comes_from_the_folder_the_client_names_or_starts_in(db_url, tmp_path):
    """HINDSIGHT_PROJECT_DIR (or CLAUDE_PROJECT_DIR) names the project folder; the launch
    folder's git checkout counts on protocol 2026-07-28 only (no roots there); a handshake-era
    client without roots started in a checkout stays without a project, as before."""
    from mcp_client import server_command
    from rawrpc import RawServer, structured

    pantry = tmp_path / "src" / "pantry"
    _git_checkout(pantry, "https://github.com/kitchen/pantry.git")
    (pantry / "sub").mkdir()
    plain = tmp_path / "notes"
    plain.mkdir()

    async def stored_project(cwd, env, modern: bool) -> str | None:
        server = RawServer([server_command()], env, cwd=str(cwd))
        if modern:
            await server.start_modern()
        else:
            await server.start()
        try:
            answer = await server.call("store_memory", {"content": f"Pantry notes {cwd.name} {modern} {sorted(env)}"},
                                       meta=server.meta if modern else None)  # fmt: skip
            return structured(answer)["memory"]["project"]
        finally:
            await server.close()

    assert await stored_project(pantry / "sub", _env(db_url), modern=True) == "pantry"
    assert await stored_project(pantry / "sub", _env(db_url), modern=False) is None
    assert await stored_project(tmp_path, _env(db_url, HINDSIGHT_PROJECT_DIR=str(plain)), modern=False) == "notes"
    assert await stored_project(tmp_path, _env(db_url, CLAUDE_PROJECT_DIR=str(pantry)), modern=False) == "pantry"
    home_env = _env(db_url, HINDSIGHT_PROJECT="fallback")
    assert await stored_project(tmp_path, home_env, modern=True) == "fallback", "not a checkout: HINDSIGHT_PROJECT"
    conn = await asyncpg.connect(db_url)
    try:
        recorded = {r["project"]: r["root"] for r in await conn.fetch("SELECT project, root FROM project_roots")}
    finally:
        await conn.close()
    assert recorded["pantry"] == pantry.as_uri() and recorded["notes"] == plain.as_uri()
