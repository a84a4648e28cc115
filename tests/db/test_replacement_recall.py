"""A memory that replaced others (a slot's newer value, invalidate_memory's replaced_by) is as
near to a question as what it replaced: a terse current value ("Prefers ruff over flake8.")
answers the question its fuller, outdated predecessor described, in the ranking and in the
verdict on what is relevant (the prompt block shows it). Real database and embedder."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timedelta, timezone

from faced import faced

from hindsight.upkeep.maintenance import Maintenance

NOW = datetime.now(timezone.utc)  # a write stamps invalidated_at with the clock
QUESTION = "How is Python code linted in granary?"
NEIGHBOURS = (
    "granary uses uv for Python: uv sync, uv run pytest, uv add. Nothing is pip-installed.",
    "Adding a Python package to the granary Airflow image: pin it in the constraints file first.",
    "New DAGs in granary use the TaskFlow API (@dag / @task).",
    "granary's CI runs the unit tests on every merge request.",
    "Lunch is at noon on Fridays.",
)
FLAKE8 = "granary's Python code is linted with flake8 and flake8-bugbear, configured in setup.cfg."


async def _write(memories, text: str, days_ago: float, agent: str = "a", **options) -> dict:
    """Store `text` as `agent` wrote it `days_ago` (a semantic memory unless told otherwise)."""
    options.setdefault("memory_type", "semantic")
    return await memories.store(agent, text, created_at=NOW - timedelta(days=days_ago), **options)


async def _neighbours(memories, agent: str = "a") -> None:
    for i, text in enumerate(NEIGHBOURS):
        await _write(memories, text, 30 + i, agent)


async def _linter_history(memories) -> tuple[str, str]:
    await _neighbours(memories)
    old = await _write(memories, FLAKE8, 60, slot="preference:python_linter")
    new = await _write(memories, "Prefers ruff over flake8.", 10, slot="preference:python_linter")
    return old["id"], new["id"]


def _rank_of(answer: dict, memory_id: str) -> int | None:
    ids = [m["id"] for m in answer["memories"]]
    return ids.index(memory_id) if memory_id in ids else None


def _off(recall) -> None:
    recall.weights = dataclasses.replace(recall.weights, replaced_margin=1.0)  # nothing is ever nearer by 1


async def test_the_current_value_of_a_slot_is_as_near_as_the_one_it_replaced(memories, recall):
    old, new = await _linter_history(memories)
    asked = await recall.retrieve("a", QUESTION, top_k=10)
    hit = {m["id"]: m for m in asked["memories"]}[new]
    assert hit["score_parts"]["replaced"] > hit["similarity"]  # it ranks by what it replaced's nearness
    assert hit["relevant"]  # ... and is judged by it: a prompt block shows it
    block = await recall.retrieve("a", QUESTION, top_k=10, format="prompt")
    assert new in block["ids"] and "Prefers ruff" in block["prompt"]
    assert _rank_of(asked, old) is None  # the replaced memory itself stays out of current recall
    _off(recall)
    without = await recall.retrieve("a", QUESTION, top_k=10)
    # it shares no word with the question ("linted" is not "flake8"): the rule lifts it among the
    # notes that do (uv, the Airflow image's packages) from below all of them
    shown, alone = _rank_of(asked, new), _rank_of(without, new)
    assert shown <= 2 and (alone is None or alone > 2), [m["content"] for m in asked["memories"]]
    assert not {m["id"]: m for m in without["memories"]}.get(new, {"relevant": False})["relevant"]


async def test_what_it_replaced_still_lends_from_the_archive(db, memories, recall):
    """Maintenance moves a memory superseded long ago to the archive; the link, and what the
    current value borrows from it, stay."""
    old, new = await _linter_history(memories)
    await db.pool.execute(
        "UPDATE memories SET invalidated_at = now() - interval '100 days' WHERE id = $1", uuid.UUID(old)
    )
    report = await Maintenance(db, memories).run(NOW + timedelta(minutes=1))
    assert report["archive"]["archived_superseded"] == 1
    assert await db.pool.fetchval("SELECT count(*) FROM memories_archive WHERE id = $1", uuid.UUID(old)) == 1
    asked = await recall.retrieve("a", QUESTION, top_k=10)
    hit = {m["id"]: m for m in asked["memories"]}[new]
    assert hit["score_parts"]["replaced"] > hit["similarity"] and hit["relevant"]


async def test_before_the_replacement_the_old_value_answers(memories, recall):
    old, new = await _linter_history(memories)
    asked = await recall.retrieve("a", QUESTION, as_of=NOW - timedelta(days=20), top_k=10)
    assert _rank_of(asked, new) is None and _rank_of(asked, old) == 0


async def test_a_link_made_after_the_moment_asked_about_lends_nothing(memories, recall):
    """Both were current on the day asked about; the link came later (invalidate_memory with
    replaced_by, today): then, the newer one was not yet what replaced the older."""
    await _neighbours(memories)
    old = await _write(memories, FLAKE8, 60)
    new = await _write(memories, "Prefers ruff over flake8.", 40)
    await faced(memories).invalidate("a", old["id"], "ruff now", replaced_by=new["id"])
    then = await recall.retrieve("a", QUESTION, as_of=NOW - timedelta(days=10), top_k=10)
    hits = {m["id"]: m for m in then["memories"]}
    assert old["id"] in hits and "replaced" not in hits[new["id"]]["score_parts"]
    today = await recall.retrieve("a", QUESTION, top_k=10)
    assert "replaced" in {m["id"]: m for m in today["memories"]}[new["id"]]["score_parts"]


async def test_a_replacement_named_by_invalidate_memory_borrows_too(memories, recall):
    await _neighbours(memories)
    for text in (
        "Staging deploys of courier go through the Nomad job file in deploy/.",
        "The dispatch service is deployed by Argo CD from the gitops repo.",
        "courier serves ETAs on port 8080.",
        "Production database migrations run from a laptop with goose.",
        "Jenkins was shut down in March.",
    ):
        await _write(memories, text, 50, memory_type="procedural")
    old = await _write(
        memories,
        "Production deploys of courier run from the Jenkins job courier-deploy-prod.",
        40,
        memory_type="procedural",
    )
    new = await _write(memories, "Only GitLab CI now: the manual deploy:prod button.", 5, memory_type="procedural")
    await faced(memories).invalidate("a", old["id"], "moved to GitLab CI", replaced_by=new["id"])
    question = "Which Jenkins job deploys courier to prod?"
    after = await recall.retrieve("a", question, top_k=10)
    hit = {m["id"]: m for m in after["memories"]}[new["id"]]
    assert "replaced" in hit["score_parts"] and _rank_of(after, new["id"]) == 0 and hit["relevant"]
    _off(recall)
    without = await recall.retrieve("a", question, top_k=10)
    assert _rank_of(without, new["id"]) != 0  # the link, not the old memory's absence, put it first


async def test_another_agents_shared_memory_lends_only_what_it_shared(memories, recall):
    """b shared its current value but not the private note it replaced: a's recall must not
    learn how near b's private note is to a's question."""
    await _neighbours(memories, "a")
    private = await _write(
        memories,
        "The granary database password is kept in the team vault under db/granary.",
        30,
        "b",
        slot="note:granary_db",
    )
    shared = await _write(memories, "Ask Kwame for database access.", 5, "b", slot="note:granary_db", shared=True)
    question = "Where is the granary database password kept?"
    asked = await recall.retrieve("a", question, top_k=10)
    hits = {m["id"]: m for m in asked["memories"]}
    assert private["id"] not in hits
    assert shared["id"] in hits and "replaced" not in hits[shared["id"]]["score_parts"]
    own = await recall.retrieve("b", question, top_k=10)  # its owner ranks it by the note it replaced
    assert "replaced" in {m["id"]: m for m in own["memories"]}[shared["id"]]["score_parts"]


async def test_a_shared_memory_lends_from_what_its_agent_shared_before_it(memories, recall):
    await _neighbours(memories, "a")
    for text, days in ((FLAKE8, 60), ("Prefers ruff over flake8.", 10)):
        await _write(memories, text, days, "b", slot="preference:python_linter", shared=True)
    asked = await recall.retrieve("a", QUESTION, top_k=10)
    hit = next(m for m in asked["memories"] if m["content"] == "Prefers ruff over flake8.")
    assert hit["agent_id"] == "b" and hit["score_parts"]["replaced"] > hit["similarity"]
