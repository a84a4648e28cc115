"""A question that asks which tool of a kind ("Which linter …?", 用哪个时区) is answered by a note
that names the tool and not the kind ("Prefers ruff over flake8."): the keyword query carries the
tools of each kind asked (rules/tools.py, hindsight/data/devkinds.txt), and the note holds the
question's word for the relevance decision. A question that names a kind without asking which
one keeps its order."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)


async def _notes(memories) -> dict:
    stored = {}
    for key, text in (
        ("ruff", "granary's Python is checked with ruff in pre-commit now; flake8 was dropped."),
        (
            "uv",
            "granary uses uv for Python: `uv sync`, `uv run pytest`, `uv add`; nothing goes into the system Python.",
        ),
        ("module", "A new Python module in granary goes under src/granary/ with its own tests folder."),
        ("utc", "Timestamps and schedules in the data platform are UTC; only dashboards show Singapore time."),
        ("schedule", "The new pipeline's schedule: dbt_build_daily now starts when the orders dataset is updated."),
        ("load", "Load-tested courier on staging with k6 at 800 rps: p99 62 ms."),
        ("rotation", "Staging's Nomad clients get new AMIs on the first Tuesday of the month; courier restarts then."),
    ):
        stored[key] = (await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=3)))[
            "id"
        ]
    return stored


async def test_a_question_that_asks_which_tool_of_a_kind_finds_the_note_that_names_the_tool(memories, recall):
    ids = await _notes(memories)
    linter = await recall.retrieve("a", "Which linter should I set up for a new Python module in granary?", as_of=NOW)
    first = linter["memories"][0]
    assert first["id"] == ids["ruff"], [(m["content"][:30], m["score_parts"]) for m in linter["memories"][:3]]
    assert first["evidence"]["coverage"] > 0 and not linter.get("nothing_relevant")
    zone = await recall.retrieve("a", "新 pipeline 的调度应该用哪个时区？", as_of=NOW)
    assert zone["memories"][0]["id"] == ids["utc"], [m["content"] for m in zone["memories"][:3]]


async def test_only_a_question_that_asks_which_one_is_widened(memories, recall):
    """Asked how to set up the module (no kind) or when a load test is a bad idea (a kind named,
    none asked for), no note ranks by naming a tool; asked which load-test tool, the note that
    names k6 does, and comes first."""
    ids = await _notes(memories)
    for question in (
        "How do I set up a new Python module in granary?",
        "When is it a bad time to load test courier on staging?",
        "什么时候不适合在 staging 上给 courier 做压测？",
    ):
        asked = await recall.retrieve("a", question, as_of=NOW, top_k=10)
        assert not any("value" in m["score_parts"] for m in asked["memories"]), question
    module = await recall.retrieve("a", "How do I set up a new Python module in granary?", as_of=NOW)
    assert module["memories"][0]["id"] == ids["module"]
    for question in ("Which load test tool do we use for courier?", "courier 压测用的是什么工具？"):
        which = await recall.retrieve("a", question, as_of=NOW)
        first = which["memories"][0]
        assert first["id"] == ids["load"] and "value" in first["score_parts"], (question, which["memories"][:2])


async def test_the_kind_asked_is_not_searched_for_its_words(memories, recall):
    """ "Which package manager …?" is answered by the note that names the tool, not by one that says
    "package" in another sense: the keyword query carries the tools instead of the kind's name."""
    yarn = await memories.store(
        "a",
        "CI `yarn install --immutable` failed: the lockfile would have been modified. Someone had run npm install "
        "on the branch; reinstall with Yarn 4 through corepack and commit yarn.lock.",
        memory_type="procedural",
        created_at=NOW - timedelta(days=5),
    )
    await memories.store(
        "a",
        "Metro could not resolve @acme/icons from src/components/Badge.tsx: the workspace package was not built. "
        "Run `yarn build:packages` first, then restart the bundler; a new package needs its own build.",
        memory_type="procedural",
        created_at=NOW - timedelta(days=4),
    )
    asked = await recall.retrieve(
        "a", "Which package manager does this app use, and how do I add a dependency?", as_of=NOW
    )
    assert asked["memories"][0]["id"] == yarn["id"], [(m["content"][:30], m["score_parts"]) for m in asked["memories"]]
