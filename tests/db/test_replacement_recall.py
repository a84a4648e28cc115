"""A memory that replaced others (a slot's newer value, invalidate_memory's replaced_by) is as
near to a question as what it replaced: a terse current value ("Prefers ruff over flake8.")
answers the question its fuller, outdated predecessor described. Real database and embedder."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

from faced import faced

NOW = datetime.now(timezone.utc)  # a write stamps invalidated_at with the clock
QUESTION = "How is Python code linted in granary?"
NEIGHBOURS = (
    "granary uses uv for Python: uv sync, uv run pytest, uv add. Nothing is pip-installed.",
    "Adding a Python package to the granary Airflow image: pin it in the constraints file first.",
    "New DAGs in granary use the TaskFlow API (@dag / @task).",
    "granary's CI runs the unit tests on every merge request.",
    "Lunch is at noon on Fridays.",
)


async def _linter_history(memories) -> tuple[str, str]:
    for i, text in enumerate(NEIGHBOURS):
        await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=30 + i))
    old = await memories.store(
        "a",
        "granary's Python code is linted with flake8 and flake8-bugbear, configured in setup.cfg.",
        memory_type="semantic",
        slot="preference:python_linter",
        created_at=NOW - timedelta(days=60),
    )
    new = await memories.store(
        "a",
        "Prefers ruff over flake8.",
        memory_type="semantic",
        slot="preference:python_linter",
        created_at=NOW - timedelta(days=10),
    )
    return old["id"], new["id"]


def _rank_of(answer: dict, memory_id: str) -> int | None:
    ids = [m["id"] for m in answer["memories"]]
    return ids.index(memory_id) if memory_id in ids else None


async def test_the_current_value_of_a_slot_is_as_near_as_the_one_it_replaced(memories, recall):
    old, new = await _linter_history(memories)
    asked = await recall.retrieve("a", QUESTION, top_k=10)
    hit = {m["id"]: m for m in asked["memories"]}[new]
    assert hit["score_parts"]["replaced"] > hit["similarity"]  # it borrowed what it replaced's nearness
    assert _rank_of(asked, old) is None  # the replaced memory itself stays out of current recall
    recall.weights = dataclasses.replace(recall.weights, replaced_margin=1.0)  # the rule off
    without = await recall.retrieve("a", QUESTION, top_k=10)
    # it shares no word with the question ("linted" is not "flake8"): the rule lifts it among the
    # notes that do (uv, the Airflow image's packages) from below all of them
    shown, alone = _rank_of(asked, new), _rank_of(without, new)
    assert shown <= 2 and (alone is None or alone > 2), [m["content"] for m in asked["memories"]]


async def test_before_the_replacement_the_old_value_answers(memories, recall):
    old, new = await _linter_history(memories)
    asked = await recall.retrieve("a", QUESTION, as_of=NOW - timedelta(days=20), top_k=10)
    assert _rank_of(asked, new) is None and _rank_of(asked, old) == 0


async def test_a_replacement_named_by_invalidate_memory_borrows_too(memories, recall):
    for i, text in enumerate(NEIGHBOURS):
        await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=30 + i))
    old = await memories.store(
        "a",
        "Production deploys of courier run from the Jenkins job courier-deploy-prod.",
        memory_type="procedural",
        created_at=NOW - timedelta(days=40),
    )
    new = await memories.store(
        "a",
        "Only GitLab CI now: the manual deploy:prod button.",
        memory_type="procedural",
        created_at=NOW - timedelta(days=5),
    )
    question = "How do I deploy courier to production with Jenkins?"
    before = await recall.retrieve("a", question, top_k=10)
    await faced(memories).invalidate("a", old["id"], "moved to GitLab CI", replaced_by=new["id"])
    after = await recall.retrieve("a", question, top_k=10)
    hit = {m["id"]: m for m in after["memories"]}[new["id"]]
    assert "replaced" in hit["score_parts"] and _rank_of(after, new["id"]) == 0
    assert _rank_of(before, new["id"]) != 0  # before the link it was not the first answer
