"""`hindsight token`: revoke matches a literal id prefix or an exact name, refuses more than
one match (listing them), and says in one line when a token is unknown or already revoked;
create refuses an empty agent; list has a header. In-process through cli.main."""

from __future__ import annotations

import json

import asyncpg


async def _revoked(db_url) -> dict[str, bool]:
    conn = await asyncpg.connect(db_url)
    try:
        rows = await conn.fetch("SELECT id, revoked_at FROM hindsight_tokens")
    finally:
        await conn.close()
    return {str(r["id"]): r["revoked_at"] is not None for r in rows}


async def _create(cli, *args: str) -> dict:
    done = await cli("token", "create", "--json", *args)
    assert done.code == 0, done.err
    return json.loads(done.out)


def _one_line(done) -> str:
    assert done.code == 2 and "Traceback" not in done.err, done.err
    lines = done.err.strip().splitlines()
    assert len(lines) == 1, done.err
    return lines[0]


async def test_patterns_are_not_patterns_and_two_alike_are_refused_with_the_candidates(cli, db_url):
    first = await _create(cli, "--name", "laptop")
    second = await _create(cli, "--name", "laptop")
    await _create(cli, "--name", "ci-bot")
    for pattern in ("%%%%%%%%", "________", "%", "laptop%"):
        said = _one_line(await cli("token", "revoke", pattern))
        assert said == (
            f"hindsight token: error: token: no token is named {pattern!r} (or give 8 or more "
            "hexadecimal digits of its id, as `hindsight token list` shows)"
        )
    assert not any((await _revoked(db_url)).values())

    both = _one_line(await cli("token", "revoke", "laptop"))
    assert both == (
        f"hindsight token: error: token: 'laptop' matches 2 tokens: {second['id'][:8]} (laptop, agent default), "
        f"{first['id'][:8]} (laptop, agent default); give more of the id of the one to revoke"
    )
    assert not any((await _revoked(db_url)).values())

    done = await cli("token", "revoke", first["id"][:8].upper())
    assert done.code == 0 and done.out == f"revoked {first['id'][:8]} (laptop)\n", done.err
    state = await _revoked(db_url)
    assert state[first["id"]] and sum(state.values()) == 1
    only = await cli("token", "revoke", "laptop")  # the other laptop token is the one left to revoke
    assert only.code == 0 and only.out == f"revoked {second['id'][:8]} (laptop)\n"
    by_name = await cli("token", "revoke", "ci-bot")  # a short name that is no identifier
    assert by_name.code == 0 and "(ci-bot)" in by_name.out
    assert all((await _revoked(db_url)).values())


async def test_unknown_and_already_revoked_are_one_line(cli, db_url):
    made = await _create(cli, "--name", "laptop")
    assert (await cli("token", "revoke", made["id"])).code == 0
    again = _one_line(await cli("token", "revoke", made["id"]))
    assert again == f"hindsight token: error: token: {made['id'][:8]} (laptop, agent default) is already revoked"
    by_name = _one_line(await cli("token", "revoke", "laptop"))
    assert by_name == again
    unknown = _one_line(await cli("token", "revoke", "nosuchtoken"))
    assert unknown == (
        "hindsight token: error: token: no token is named 'nosuchtoken' (or give 8 or more hexadecimal "
        "digits of its id, as `hindsight token list` shows)"
    )
    no_id = _one_line(await cli("token", "revoke", "0000aaaa-"))
    assert (
        no_id == "hindsight token: error: token: no token has an id starting with '0000aaaa-' or the name '0000aaaa-'"
    )


async def test_an_empty_agent_is_refused_and_list_has_a_header(cli, db_url):
    for agent in ("", "two words"):
        said = _one_line(await cli("token", "create", "--agent", agent))
        assert said == "hindsight token: error: agent: must be 1-128 characters with no spaces or control characters"
    assert await _revoked(db_url) == {}
    empty = await cli("token", "list")
    assert empty.code == 0 and empty.out == "" and empty.err == "(no tokens)\n"
    made = await _create(cli, "--agent", "dev", "--name", "laptop", "--expires", "90d")
    listed = (await cli("token", "list")).out.splitlines()
    assert listed[0].split() == ["ID", "AGENT", "NAME", "STATE", "LAST", "USED"]
    assert listed[1].split()[:4] == [made["id"][:8], "dev", "laptop", "expires"] and listed[1].endswith("never used")
    assert len(listed) == 2
