"""A history from another tool brought in with its timeline: created_at, slot, supersedes,
invalidated_at; a second import of the same lines skips or replaces them."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone

import asyncpg
import pytest

from hindsight.errors import InvalidInput
from hindsight.store.import_lines import parse_line
from hindsight.store.importer import Known, plan

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def lines(*objs) -> list[dict]:
    return [parse_line(json.dumps(o), n) for n, o in enumerate(objs, 1)]


def test_a_slot_keeps_its_latest_line_current_whatever_the_file_order():
    p = plan(
        lines(
            {"id": "b", "content": "CI: GitHub Actions", "created_at": "2024-06-01T00:00:00Z", "slot": "ci"},
            {"id": "a", "content": "CI: Jenkins", "created_at": "2024-01-01T00:00:00Z", "slot": "ci"},
        ),
        [],
        "skip",
        NOW,
    )
    b, a = p.rows
    assert b["invalidated_at"] is None
    assert a["invalidated_by"] == b["id"] and a["invalidated_at"] == datetime(2024, 6, 1, tzinfo=timezone.utc)


def test_supersedes_names_an_external_id_and_passes_the_slot_on():
    p = plan(
        lines(
            {"id": 1, "content": "Deploys on Tuesdays", "timestamp": "2024-02-01T00:00:00Z", "slot": "deploy"},
            {"id": 2, "content": "Deploys on Thursdays", "timestamp": "2024-05-01T00:00:00Z", "supersedes": 1},
        ),
        [],
        "skip",
        NOW,
    )
    old, new = p.rows
    assert new["slot"] == "deploy" and old["invalidated_by"] == new["id"]
    assert old["invalidated_at"] == new["created_at"]


def test_a_memory_already_stored_is_superseded_at_the_time_the_line_was_created():
    held = Known(uuid.uuid4(), None, "editor", datetime(2023, 1, 1, tzinfo=timezone.utc), True, False)
    p = plan(
        lines({"content": "Editor: helix", "created_at": "2024-03-01T00:00:00Z", "slot": "editor"}), [held], "skip", NOW
    )
    assert p.supersede == [(held.id, datetime(2024, 3, 1, tzinfo=timezone.utc), p.rows[0]["id"])]
    later = Known(uuid.uuid4(), None, "editor", datetime(2025, 1, 1, tzinfo=timezone.utc), True, False)
    p = plan(
        lines({"content": "Editor: vim", "created_at": "2024-03-01T00:00:00Z", "slot": "editor"}), [later], "skip", NOW
    )
    assert p.supersede == [] and p.rows[0]["invalidated_by"] == later.id  # history before what is current


def test_lines_seen_before_are_skipped_or_replaced_in_place():
    seen = Known(uuid.uuid4(), "x1", None, datetime(2024, 1, 1, tzinfo=timezone.utc), True, False)
    rows = lines({"id": "x1", "content": "again"}, {"id": "x2", "content": "new"})
    skip = plan(rows, [seen], "skip", NOW)
    assert skip.skipped == 1 and [r["external_id"] for r in skip.rows] == ["x2"]
    replace = plan(rows, [seen], "replace", NOW)
    assert replace.replaced == 1 and replace.delete_live == [seen.id] and replace.rows[0]["id"] == seen.id


@pytest.mark.parametrize(
    "objs, message",
    [
        ([{"id": "a", "content": "x"}, {"id": "a", "content": "y"}], "line 2: id: 'a' is also the id of line 1"),
        ([{"content": "x", "supersedes": "nope"}], "line 1: supersedes: 'nope' is neither"),
        (
            [
                {"id": "a", "content": "x", "created_at": "2024-05-01T00:00:00Z"},
                {"content": "y", "created_at": "2024-01-01T00:00:00Z", "supersedes": "a"},
            ],
            "was created after this line",
        ),
        (
            [{"id": "a", "content": "x"}, {"content": "y", "supersedes": "a"}, {"content": "z", "supersedes": "a"}],
            "line 3: supersedes: 'a' is already superseded by line 2",
        ),
    ],
)
def test_a_timeline_that_cannot_be_is_refused_before_anything_is_written(objs, message):
    with pytest.raises(InvalidInput, match=message):
        plan(lines(*objs), [], "skip", NOW)


@pytest.mark.parametrize(
    "obj, message",
    [
        (
            {"content": "x", "created_at": "2024-01-02T00:00:00Z", "invalidated_at": "2024-01-01T00:00:00Z"},
            "invalidated_at: is before the memory was created",
        ),
        (
            {"content": "x", "timestamp": "2024-01-01T00:00:00Z", "created_at": "2024-02-01T00:00:00Z"},
            "created_at: differs from timestamp",
        ),
        ({"content": "x", "invalidation_reason": "why"}, "invalidation_reason: needs invalidated_at"),
        ({"content": "x", "slot": " padded "}, "slot: must be"),
    ],
)
def test_bad_timeline_fields_name_the_line_and_field(obj, message):
    with pytest.raises(InvalidInput, match=f"line 1: {message}"):
        parse_line(json.dumps(obj), 1)


async def test_a_migrated_history_recalls_as_it_stood_then(cli, db_url, tmp_path):
    src = tmp_path / "history.jsonl"
    src.write_text(
        "\n".join(
            json.dumps(o)
            for o in [
                {
                    "id": "ci-1",
                    "content": "The team uses Jenkins for CI",
                    "created_at": "2024-01-10T09:00:00Z",
                    "memory_type": "semantic",
                    "slot": "tool:ci",
                },
                {
                    "id": "ci-2",
                    "content": "The team moved CI to GitHub Actions",
                    "created_at": "2024-06-01T09:00:00Z",
                    "memory_type": "semantic",
                    "slot": "tool:ci",
                },
                {
                    "id": "vpn",
                    "content": "The staging VPN is vpn-old.example.com",
                    "created_at": "2024-03-01T00:00:00Z",
                    "invalidated_at": "2024-04-01T00:00:00Z",
                    "invalidation_reason": "VPN retired",
                },
            ]
        )
        + "\n"
    )
    done = await cli("import", str(src), "--agent", "m")
    assert done.code == 0, done.err
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "\n".join(
            json.dumps(q)
            for q in [
                {"qid": "then", "query": "which CI system does the team use?", "k": 1, "as_of": "2024-03-15T00:00:00Z"},
                {"qid": "now", "query": "which CI system does the team use?", "k": 1},
                {"qid": "vpn-then", "query": "staging VPN host", "k": 3, "as_of": "2024-03-15T00:00:00Z"},
                {"qid": "vpn-now", "query": "staging VPN host", "k": 3},
            ]
        )
        + "\n"
    )
    answers = {
        a["qid"]: [r["metadata"]["external_id"] for r in a["results"]]
        for a in map(
            json.loads, (await cli("recall", "--agent", "m", "--batch", str(queries), "--json")).out.splitlines()
        )
    }
    assert answers["then"] == ["ci-1"] and answers["now"] == ["ci-2"]
    assert "vpn" in answers["vpn-then"] and "vpn" not in answers["vpn-now"]

    conn = await asyncpg.connect(db_url)
    try:
        trail = [
            tuple(r)
            for r in await conn.fetch(
                "SELECT m.metadata->>'external_id', h.action, h.at::date::text, h.call FROM memory_history h "
                "JOIN memories m ON m.agent_id = h.agent_id AND m.id = h.memory_id "
                "WHERE h.agent_id = 'm' ORDER BY h.at, h.seq"
            )
        ]
    finally:
        await conn.close()
    assert trail == [
        ("ci-1", "create", "2024-01-10", "import"),
        ("vpn", "create", "2024-03-01", "import"),
        ("vpn", "invalidate", "2024-04-01", "import"),
        ("ci-2", "create", "2024-06-01", "import"),
        ("ci-1", "supersede", "2024-06-01", "import"),
    ]

    again = await cli("import", str(src), "--agent", "m")
    assert "imported 0 memories" in again.err and "; 3 lines skipped (already present)" in again.err
    assert "memories/s" not in again.err  # no rate when nothing was imported (it said 0.0 memories/s)
    later = tmp_path / "later.jsonl"
    later.write_text(
        json.dumps(
            {
                "id": "ci-3",
                "content": "CI now runs on Buildkite",
                "memory_type": "semantic",
                "created_at": "2025-02-01T00:00:00Z",
                "supersedes": "ci-2",
            }
        )
        + "\n"
    )
    assert (await cli("import", str(later), "--agent", "m")).code == 0
    current = json.loads((await cli("list", "--agent", "m", "--json")).out)["memories"]
    assert [(m["metadata"]["external_id"], m["slot"]) for m in current] == [("ci-3", "tool:ci")]


async def test_a_line_can_supersede_a_memory_stored_live_by_its_id(cli, db_url, tmp_path):
    live = (await cli("store", "Reviews need one approval", "--agent", "m", "--type", "semantic")).out.strip()
    src = tmp_path / "x.jsonl"
    src.write_text(
        json.dumps(
            {
                "content": "Reviews need two approvals",
                "memory_type": "semantic",
                "created_at": "2030-01-01T00:00:00Z",
                "supersedes": live,
            }
        )
        + "\n"
    )
    assert (await cli("import", str(src), "--agent", "m")).code == 0
    shown = json.loads((await cli("show", live, "--agent", "m", "--json")).out)
    assert shown["memory"]["invalidated_at"].startswith("2030-01-01")
    assert [h["action"] for h in shown["history"]] == ["create", "supersede"]
    assert shown["history"][1]["at"].startswith("2030-01-01") and shown["history"][1]["call"] == "import"
