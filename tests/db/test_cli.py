"""The `hindsight` command line against a real database, run in-process through cli.main
(the function the console script calls); one smoke test runs the installed script."""

import io
import json
import subprocess
import sys
import uuid
from pathlib import Path

import asyncpg
import pytest
from mcp_client import server_env
from rich.console import Console

from hindsight.cli import render
from hindsight.cli.stats import render as render_stats


async def rows(db_url, sql, *params):
    conn = await asyncpg.connect(db_url)
    try:
        return await conn.fetch(sql, *params)
    finally:
        await conn.close()


LINES = [
    {
        "content": "Caroline: I went to the LGBTQ support group yesterday",
        "timestamp": "2023-05-08T13:56:00",
        "id": "D1:3",
        "metadata": {"speaker": "Caroline"},
    },
    {
        "text": "用户希望所有回复都使用中文",
        "timestamp": "2023-05-09T09:00:00Z",
        "id": 7,
        "memory_type": "semantic",
        "importance": 5,
        "tags": ["prefs"],
    },
    {"content": "Melanie: I painted a sunrise over the lake last week", "timestamp": "2023-06-01T10:00:00"},
]


async def test_import_keeps_timestamps_and_external_ids(cli, db_url, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in LINES) + "\n\n", encoding="utf-8")
    done = await cli("import", str(src), "--agent", "conv", HINDSIGHT_EMBED_THREADS="2")
    assert done.code == 0, done.err
    assert "imported 3 memories" in done.err and done.out == ""
    got = {
        r["content"]: r
        for r in await rows(
            db_url,
            "SELECT content, created_at, metadata, memory_type, importance, tags FROM memories WHERE agent_id = 'conv'",
        )
    }
    first = got[LINES[0]["content"]]
    assert first["created_at"].isoformat().startswith("2023-05-08T13:56:00")
    assert json.loads(first["metadata"]) == {"speaker": "Caroline", "external_id": "D1:3"}
    zh = got[LINES[1]["text"]]
    assert (zh["memory_type"], zh["importance"], zh["tags"]) == ("semantic", 5, ["prefs"])
    assert json.loads(zh["metadata"])["external_id"] == "7"

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "\n".join(
            json.dumps(q, ensure_ascii=False)
            for q in [
                {"qid": "q1", "query": "When did Caroline go to the support group?", "k": 1},
                {"qid": "q2", "query": "回复用什么语言？", "k": 2, "as_of": "2023-07-01T00:00:00Z"},
                {"qid": "q3", "query": "what did Melanie paint?", "as_of": "2023-05-20T00:00:00Z"},
            ]
        ),
        encoding="utf-8",
    )
    done = await cli("recall", "--agent", "conv", "--batch", str(queries), "--top-k", "3", "--json")
    assert done.code == 0, done.err
    out = [json.loads(line) for line in done.out.splitlines()]
    assert [o["qid"] for o in out] == ["q1", "q2", "q3"]
    assert len(out[0]["results"]) == 1 and out[0]["results"][0]["metadata"]["external_id"] == "D1:3"
    assert set(out[0]["results"][0]) == {"id", "content", "score", "created_at", "metadata"}
    assert out[1]["results"][0]["metadata"]["external_id"] == "7"
    assert LINES[2]["content"] not in [r["content"] for r in out[2]["results"]]  # not yet written on as_of

    table = await cli("recall", "--agent", "conv", "--query", "support group")
    first, body = table.out.splitlines()[0], " ".join(table.out.split())
    assert table.code == 0 and first.startswith(" 1. ") and "confidence" in first and "episodic" in first
    assert "went to the LGBTQ support group" in body  # the content whole, wrapped
    assert all(len(line) <= 80 for line in table.out.splitlines())


async def test_bad_import_line_writes_nothing(cli, db_url, tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps(LINES[0]) + "\n" + json.dumps({"content": "x", "importance": 9}) + "\n")
    done = await cli("import", str(src), "--agent", "conv")
    assert done.code == 2
    assert done.err.strip().splitlines()[-1] == (
        "hindsight import: error: line 2: importance: must be a whole number from 1 to 5; "
        "nothing was imported (--skip-bad-lines imports the other lines)"
    )
    assert await rows(db_url, "SELECT 1 FROM memories") == []
    src.write_text('{"content": "ok"}\nnot json\n')
    done = await cli("import", str(src))
    assert done.code == 2 and "line 2" in done.err and "not valid JSON" in done.err


async def test_cli_errors_are_one_line(cli, tmp_path):
    missing = await cli("import", str(tmp_path / "nope.jsonl"))
    assert missing.code == 2 and "Traceback" not in missing.err
    assert "No such file" in missing.err
    both = await cli("recall")
    assert both.code == 2 and "--query or --batch" in both.err
    stored = await cli("store", "remember the milk", "--type", "semantic", "--json")
    assert stored.code == 0 and json.loads(stored.out)["status"] == "created"
    bad = await cli("store", "x", "--importance", "7")
    assert bad.code == 2 and bad.err.strip() == "hindsight store: error: importance: must be a whole number from 1 to 5"
    not_json = await cli("store", "x", "--metadata", "{oops")
    assert not_json.code == 2 and "argument --metadata: not valid JSON" in not_json.err
    for args, said in (
        (("store", "x", "--importance", "4.5"), "argument --importance: invalid int value: '4.5'"),
        (("list", "--type", "nope"), "argument --type: invalid choice: 'nope'"),
        (("token", "make"), "argument action: invalid choice: 'make'"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
    ):
        usage = await cli(*args)  # argparse's own errors: one line too, no usage block
        assert usage.code == 2 and said in usage.err and len(usage.err.strip().splitlines()) == 1, usage.err
        assert "--help)" in usage.err and "usage:" not in usage.err
    empty = await cli("stats")
    assert empty.code == 0 and "last maintenance runs: none yet" in empty.out


async def test_import_is_a_restore_no_filter_no_dedup_no_expiry(cli, db_url, tmp_path):
    """should_store and dedup govern live writes; a restore keeps every record as given."""
    lines = [
        {"content": "ok", "timestamp": "2023-01-01T00:00:00Z"},  # chitchat: kept anyway
        {"content": "Same line twice", "timestamp": "2023-01-02T00:00:00Z", "importance": 1},
        {"content": "Same line twice", "timestamp": "2023-01-03T00:00:00Z", "importance": 1},
    ]
    src = tmp_path / "restore.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    done = await cli("import", str(src), "--agent", "r")
    assert done.code == 0, done.err
    got = await rows(
        db_url, "SELECT content, expires_at, dedup_key FROM memories WHERE agent_id = 'r' ORDER BY created_at"
    )
    assert [r["content"] for r in got] == ["ok", "Same line twice", "Same line twice"]
    assert all(r["expires_at"] is None and r["dedup_key"] is None for r in got)
    history = await rows(db_url, "SELECT action, call FROM memory_history WHERE agent_id = 'r'")
    assert [tuple(h) for h in history] == [("create", "import")] * 3
    # A live write of the same content afterwards is recognised as a duplicate.
    again = await cli("store", "--agent", "r", "--json", "Same line twice")
    assert json.loads(again.out)["status"] == "duplicate", again.err


async def test_list_show_invalidate_forget(cli, db_url):
    ids = {}
    for text in (
        "The user prefers polars over pandas",
        "Deploys go out on Tuesdays",
        "用户希望所有回复都使用中文，并且代码注释也用中文写" * 3,
    ):
        done = await cli("store", text, "--agent", "me", "--type", "semantic")
        ids[text[:6]] = done.out.strip()
    listed = await cli("list", "--agent", "me")
    assert listed.code == 0, listed.err
    lines = listed.out.splitlines()
    assert lines[0].split() == ["ID", "CREATED", "TYPE", "I", "CONTENT"] and len(lines) == 4
    assert all(len(line) <= 80 for line in lines)
    assert {line[:8] for line in lines[1:]} == {i[:8] for i in ids.values()}

    deploys = ids["Deploy"]
    shown = await cli("show", deploys[:8], "--agent", "me")
    assert shown.code == 0, shown.err
    assert shown.out.splitlines()[0].split() == ["id", deploys]
    assert "Deploys go out on Tuesdays" in shown.out and "create" in shown.out and "cli store" in shown.out
    assert all(len(line) <= 80 for line in shown.out.splitlines())

    inval = await cli("invalidate", deploys[:8], "--agent", "me", "--reason", "moved to Thursdays")
    assert inval.code == 0, inval.err
    assert inval.out.startswith(f"invalidated {deploys} at ") and inval.out.rstrip().endswith(": moved to Thursdays")
    current = await cli("list", "--agent", "me", "--json")
    assert deploys not in [m["id"] for m in json.loads(current.out)["memories"]]
    everything = await cli("list", "--agent", "me", "--all")
    assert f"{deploys[:8]}" in everything.out and "[invalidated] Deploys" in everything.out
    history = await rows(
        db_url, "SELECT action, call, reason FROM memory_history WHERE memory_id = $1 ORDER BY seq", uuid.UUID(deploys)
    )
    assert [tuple(h) for h in history] == [
        ("create", "cli store", None),
        ("invalidate", "cli invalidate", "moved to Thursdays"),
    ]

    unasked = await cli("forget", deploys, "--agent", "me")  # no terminal to ask, no --yes: nothing deleted
    assert unasked.code == 2 and "--yes" in unasked.err
    assert (await cli("show", deploys, "--agent", "me")).code == 0
    gone = await cli("forget", deploys, "--agent", "me", "--yes")
    assert gone.code == 0 and gone.out.strip() == f"deleted {deploys}"
    missing = await cli("show", deploys, "--agent", "me")
    assert missing.code == 2 and "no memory with id" in missing.err
    trail = await rows(
        db_url, "SELECT action, content FROM memory_history WHERE memory_id = $1 ORDER BY seq", uuid.UUID(deploys)
    )
    assert [h["action"] for h in trail] == ["create", "invalidate", "delete"] and all(
        h["content"] is None for h in trail
    )


async def test_an_id_prefix_must_be_unambiguous_and_of_this_agent(cli):
    ids = ["abcd0000-0000-4000-8000-000000000001", "abcd0000-0000-4000-8000-000000000002"]
    lines = [
        json.dumps(
            {
                "format": "hindsight-export/1",
                "memory_id": i,
                "content": f"note {n}",
                "timestamp": "2024-01-01T00:00:00Z",
                "memory_type": "episodic",
                "importance": 3,
                "metadata": {},
                "tags": [],
                "session_id": None,
                "restore": {"history": []},
            }
        )
        for n, i in enumerate(ids)
    ]
    assert (await cli("import", "-", "--agent", "p", stdin="\n".join(lines) + "\n")).code == 0
    for prefix in ("abcd", "abcd0000-0000-4000-8000-00000000000"):
        ambiguous = await cli("show", prefix, "--agent", "p")
        assert ambiguous.code == 2 and "is the start of several memories" in ambiguous.err, ambiguous.err
        assert ids[0] in ambiguous.err and ids[1] in ambiguous.err
    one = await cli("show", "abcd0000-0000-4000-8000-000000000002", "--agent", "p")
    assert one.code == 0 and "note 1" in one.out
    other = await cli("show", "abcd", "--agent", "somebody-else")
    assert other.code == 2 and "no memory with id starting with 'abcd'" in other.err
    nonsense = await cli("forget", "xyz", "--agent", "p", "--yes")
    assert nonsense.code == 2 and "is not a memory id or the start of one" in nonsense.err


def test_version_is_the_package_version(capsys, monkeypatch, tmp_path):
    import importlib.metadata

    import pytest

    from hindsight.cli.main import main

    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HINDSIGHT_DATABASE_URL", raising=False)
    for args in (["--version"], ["--help"]):
        with pytest.raises(SystemExit) as stop:
            main(args)
        assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"hindsight {importlib.metadata.version('hindsight')}\n") and "usage: hindsight" in out
    assert not (tmp_path / "home").exists()  # nothing started, nothing created


def test_stats_tables_fit_80_columns_with_whole_headers():
    from datetime import datetime, timezone

    data = {
        "by_state": [
            {
                "agent_id": "default",
                "memory_type": "procedural",
                "current": 12345,
                "invalidated": 3,
                "expired": 1,
                "consolidated": 2,
                "faded": 4,
                "needs_review": 5,
            }
        ],
        "archived": [{"agent_id": "default", "archive_reason": "superseded", "n": 7}],
        "decay_histogram": {"0.2-0.3": 4, "0.9-1.0": 12000},
        "runs": [
            {
                "id": 12,
                "started_at": datetime.now(timezone.utc),
                "as_of": datetime.now(timezone.utc),
                "status": "succeeded",
                "dry_run": False,
                "trigger": "scheduler",
                "report": {"seconds": 1.25},
            }
        ],
    }
    buf = io.StringIO()
    render_stats(data, 80, file=buf)
    text = buf.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    for header in (
        "agent",
        "type",
        "current",
        "invalid",
        "expired",
        "consol",
        "faded",
        "review",
        "started",
        "as of",
        "status",
        "trigger",
        "12345",
        "12000",
        "scheduler",
    ):
        assert header in text, header


def test_memory_table_cuts_content_not_columns():
    memories = [
        {
            "id": "0b7e3c5e-2f0d-4c1e-9a57-3f1d2c4b5a69",
            "created_at": "2024-03-10T14:30:00+00:00",
            "memory_type": "procedural",
            "importance": 4,
            "content": "pip install fails " * 20,
            "invalidated_at": "2024-04-01T00:00:00+00:00",
            "invalidated_by": None,
        }
    ]
    lines = render.memory_table(memories, 80)
    assert lines[1].startswith("0b7e3c5e  2024-03-10  procedural 4  [invalidated] pip install fails")
    assert len(lines[1]) == 80 and lines[1].endswith("…")
    Console(width=80, file=io.StringIO())  # rich is importable: the stats view depends on it


def test_the_installed_script_runs(db_url, tmp_path):
    """One smoke test through the console script, as a user runs it."""
    exe = Path(sys.executable).parent / "hindsight"
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_EMBED_THREADS="1")
    stored = subprocess.run(
        [str(exe), "store", "The CI runs on GitHub Actions", "--agent", "smoke"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert stored.returncode == 0, stored.stderr
    listed = subprocess.run(
        [str(exe), "list", "--agent", "smoke"], capture_output=True, text=True, env=env, timeout=300
    )
    assert listed.returncode == 0 and stored.stdout.strip()[:8] in listed.stdout
    assert listed.stderr == "", listed.stderr  # quiet by default: no library logs


async def test_plain_store_says_what_it_flagged(cli):
    first = await cli("store", "The staging server is staging-01.example.com.", "--type", "semantic")
    assert first.code == 0 and first.err == ""
    second = await cli("store", "The staging server is now staging-02.example.com.", "--type", "semantic")
    assert second.code == 0 and len(second.out.strip()) == 36  # the id alone on stdout
    assert f"likely outdated by this one: {first.out.strip()[:8]}" in second.err
    assert f"--replaced-by {second.out.strip()}" in second.err


async def test_import_names_every_bad_line_and_imports_nothing_unless_told(cli):
    good = json.dumps({"content": "Deploys go out on Tuesdays", "timestamp": "2024-01-01T00:00:00Z"})
    lines = [good, "{not json", json.dumps({"content": "x", "importance": 9}), json.dumps(["a list"]), good]
    text = "\n".join(lines) + "\n"
    refused = await cli("import", "-", "--agent", "bad-lines", stdin=text)
    assert refused.code == 2 and "error: 3 bad lines: nothing was imported" in refused.err
    for n in (2, 3, 4):
        assert f"line {n}" in refused.err
    assert "(no memories" in (await cli("list", "--agent", "bad-lines")).err
    skipped = await cli("import", "-", "--agent", "bad-lines", "--skip-bad-lines", stdin=text)
    assert skipped.code == 0 and "skipping 3 bad line(s)" in skipped.err and "line 3: importance" in skipped.err
    listed = json.loads((await cli("list", "--agent", "bad-lines", "--json")).out)["memories"]
    assert [m["content"] for m in listed] == ["Deploys go out on Tuesdays"] * 2  # the good lines, as given


async def test_cli_recall_only_looks_and_counts_no_access(cli):
    stored = json.loads((await cli("store", "Deploys go out on Tuesdays", "--agent", "looker", "--json")).out)
    for _ in range(2):
        assert (await cli("recall", "--query", "when do deploys go out?", "--agent", "looker")).code == 0
    shown = await cli("show", stored["id"][:8], "--agent", "looker", "--json")
    assert json.loads(shown.out)["memory"]["access_count"] == 0  # as the README says: the CLI looks, agents use


async def test_a_secret_in_project_is_refused_by_store_and_import(cli, db_url, tmp_path):
    key = "AKIAIOSFODNN7EXAMPLE"
    stored = await cli("store", "The deploy runbook moved to the wiki", "--project", key)
    assert stored.code == 2 and stored.out == ""
    assert stored.err == (
        "hindsight store: error: project: looks like it holds an API key; secrets and personal data are not "
        "allowed in project — put them in content, where they are redacted (or encrypted with "
        "HINDSIGHT_ENCRYPTION_KEY)\n"
    )
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"content": "x", "project": key}) + "\n")
    imported = await cli("import", str(src))
    assert imported.code == 2 and "line 1: project: looks like it holds an API key" in imported.err
    assert key not in stored.err + imported.err
    assert await rows(db_url, "SELECT 1 FROM memories") == []


def _mcp_refusal(tool_name: str, arguments: dict) -> str | None:
    """What the MCP boundary says when a tool's arguments fail its schema (HindsightServer.call_tool
    explains the SDK's ValidationError so); None: the schema lets them through to our validators."""
    from pydantic import ValidationError

    from hindsight.server.arguments import explain, strict_tool
    from hindsight.server.tools import TOOLS

    tool = strict_tool(next(fn for fn in TOOLS if fn.__name__ == tool_name))
    try:
        tool.fn_metadata.arg_model.model_validate(tool.fn_metadata.pre_parse_json(arguments))
    except ValidationError as exc:
        return explain(tool, exc)
    return None


async def test_a_limit_is_worded_the_same_by_every_path(cli, memories, db_url, tmp_path):
    """Issue 29: 'at most 32768 characters' (a tool) vs '60000 bytes … (UTF-8)' (the CLI);
    'out of range; allowed: 1 to 5' (the CLI) vs 'must be a whole number from 1 to 5' (a tool)."""
    from hindsight.errors import InvalidInput

    importance = "importance: must be a whole number from 1 to 5"
    assert _mcp_refusal("store_memory", {"content": "x", "importance": 7}) == importance
    assert (await cli("store", "x", "--importance", "7")).err == f"hindsight store: error: {importance}\n"
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"content": "x", "importance": 9}) + "\n")
    assert f"line 1: {importance};" in (await cli("import", str(src))).err

    big = "é" * 30_000  # 30,000 characters, 60,000 bytes
    size = "content: is 60000 bytes; at most 32768 bytes (UTF-8) are allowed"
    assert _mcp_refusal("store_memory", {"content": big}) is None  # the tool hands it to the write path:
    with pytest.raises(InvalidInput) as err:
        await memories.store("a", big)
    assert str(err.value) == size
    assert (await cli("store", big)).err == f"hindsight store: error: {size}\n"
    src.write_text(json.dumps({"content": big}, ensure_ascii=False) + "\n")
    assert f"line 1: {size};" in (await cli("import", str(src))).err

    top_k = "top_k: must be a whole number from 1 to 50"
    assert _mcp_refusal("retrieve_memory", {"query": "x", "top_k": 99}) == top_k
    assert (await cli("recall", "--query", "x", "--top-k", "99")).err == f"hindsight recall: error: {top_k}\n"
    assert _mcp_refusal("retrieve_memory", {"query": "x" * 2500}) is None
    long_query = (await cli("recall", "--query", "x" * 2500)).err
    assert long_query == "hindsight recall: error: query: is 2500 characters; at most 2000 characters are allowed\n"
    assert await rows(db_url, "SELECT 1 FROM memories") == []


async def test_recall_says_when_nothing_relevant_is_remembered(cli):
    for fact in ("Kwame is the Vault admin", "The user prefers polars over pandas", "Deploys go out on Thursdays"):
        assert (await cli("store", fact, "--type", "semantic")).code == 0
    question = "What is the Wi-Fi password of the Lisbon office?"
    as_json = json.loads((await cli("recall", "--query", question, "--json")).out)
    assert as_json["nothing_relevant"] is True and as_json["memories"]
    table = await cli("recall", "--query", question)
    assert table.code == 0
    assert table.err == (
        "(nothing relevant remembered for this question: the memories shown are only the nearest, "
        "none of them relevant)\n"
    )
    lines = table.out.splitlines()
    assert [line for line in lines if line.startswith("    [")] == ["    [not relevant]"] * len(as_json["memories"])
    known = await cli("recall", "--query", "Who is the Vault admin?")
    assert known.err == "" and "Kwame" in known.out.splitlines()[1]
    said = await cli("recall", "Who is the Vault admin?")  # the question as the argument, as store takes its text
    assert said.code == 0 and said.out == known.out
    twice = await cli("recall", "Who is the Vault admin?", "--query", "Who deploys?")
    assert (
        twice.code == 2 and twice.err == "hindsight recall: error: query: give it once: as the argument or as --query\n"
    )
    assert "not relevant" not in known.out.splitlines()[2]  # the Vault admin is; the others are marked


async def test_slow_first_steps_are_said_on_stderr_as_they_start(cli, empty_db_url, pg_tmp):
    """Issue 29: the first `token create` worked 15 s in silence (the embedded database's first
    start, then the migrations). Later runs, with nothing slow to do, say nothing."""
    from hindsight.data import pg_embedded as embedded

    first = await cli("token", "list", url=empty_db_url)
    assert first.code == 0 and first.err == "hindsight token: bringing the database schema up to date…\n(no tokens)\n"
    assert (await cli("token", "list", url=empty_db_url)).err == "(no tokens)\n"
    home = pg_tmp / "home"
    try:
        started = await cli("token", "list", HINDSIGHT_DATABASE_URL="", HINDSIGHT_HOME=str(home))
        assert started.code == 0, started.err
        assert started.err.splitlines() == [
            f"hindsight token: starting the embedded database in {home} for the first time…",
            "hindsight token: bringing the database schema up to date…",
            "(no tokens)",
        ]
        later = await cli("token", "list", HINDSIGHT_DATABASE_URL="", HINDSIGHT_HOME=str(home))
        assert later.err == "(no tokens)\n"  # its usual start, or joining it: nothing slow to say
    finally:
        embedded.release(home=home)
