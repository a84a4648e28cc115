"""A question that names a project ("What did we ship on basket?") ranks that project's
memories as one that points at the open project does ("this repo": rules/deixis.py), and
counts them as open when another project is: what it names is what it asks about."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)


async def _two_projects(memories) -> dict[str, str]:
    ids = {}
    for project, text in (
        ("courier", "Release: tag the commit and the pipeline ships it to both regions."),
        ("basket", "Release: tag the commit and the pipeline ships it to both stores."),
    ):
        stored = await memories.store("a", text, project=project, created_at=NOW - timedelta(days=3))
        ids[project] = stored["id"]
    for i, note in enumerate(("Lunch is at noon on Fridays.", "The office plants need water.")):
        await memories.store("a", note, created_at=NOW - timedelta(days=5 + i))
    return ids


async def test_the_named_projects_memory_leads(memories, recall):
    ids = await _two_projects(memories)
    for project in ("basket", "courier"):
        asked = await recall.retrieve("a", f"How is a release of {project} shipped?", as_of=NOW)
        first = asked["memories"][0]
        assert first["id"] == ids[project] and "pointed" in first["score_parts"], [
            m["content"] for m in asked["memories"]
        ]


async def test_a_named_project_is_not_another_project_when_one_is_open(memories, recall):
    ids = await _two_projects(memories)
    asked = await recall.retrieve("a", "How is a release of basket shipped?", as_of=NOW, open_projects=("courier",))
    first = asked["memories"][0]
    assert first["id"] == ids["basket"] and "other_project" not in first["score_parts"]
    # without the name, the open project's memory leads and basket's counts as another's
    plain = await recall.retrieve("a", "How is a release shipped?", as_of=NOW, open_projects=("courier",))
    parts = {m["id"]: m["score_parts"] for m in plain["memories"]}
    assert plain["memories"][0]["id"] == ids["courier"] and "other_project" in parts[ids["basket"]]


async def test_without_the_rule_the_name_alone_does_not_decide(memories, recall):
    ids = await _two_projects(memories)
    recall.weights = dataclasses.replace(recall.weights, pointed=1.0)
    leads = []
    for project in ("basket", "courier"):
        asked = await recall.retrieve("a", f"How is a release of {project} shipped?", as_of=NOW)
        leads.append(asked["memories"][0]["id"] == ids[project])
    assert not all(leads)  # the two memories differ in one word neither question holds
