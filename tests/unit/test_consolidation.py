"""Consolidation merges only episodes that really repeat (issue 29: `hindsight maintain`
merged "tags json test", "md secret test" and "json test fact" into one "Recurring (3
times …)" memory). tests/data/consolidation_labelled.jsonl holds groups of episodes, each
labelled `repeat` (the same event again, in other words: one cluster) or `apart` (look-alikes:
the same frame about another service, module, person, port, version or region, short test
notes: no cluster); `set` says which groups shaped the rule (`fit`) and which were written
after it and only checked (`check`). Real embeddings: the look-alikes are as close in
multilingual-e5 as the repeats (0.90-0.99)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hindsight.rules import consolidation

DATA = Path(__file__).resolve().parents[1] / "data" / "consolidation_labelled.jsonl"
GROUPS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
START = datetime(2026, 11, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def rows(embedder) -> list[dict]:
    texts = [(g["group"], t) for g in GROUPS for t in g["texts"]]
    vectors = embedder.passages([t for _, t in texts])
    return [
        {"id": i, "group": group, "content": text, "embedding": vector, "metadata": {}, "importance": 3,
         "created_at": START + timedelta(hours=i)}
        for i, ((group, text), vector) in enumerate(zip(texts, vectors))
    ]  # fmt: skip


def _of(rows: list[dict], group: str) -> list[dict]:
    return [r for r in rows if r["group"] == group]


def test_the_probes_three_test_notes_stay_apart(rows):
    assert consolidation.clusters(_of(rows, "probe's test notes")) == []


@pytest.mark.parametrize("group", [g["group"] for g in GROUPS if g["label"] == "apart"])
def test_look_alikes_stay_apart(rows, group):
    assert consolidation.clusters(_of(rows, group)) == []


def test_all_groups_at_once_only_repeats_merge_and_never_across_groups(rows):
    found = consolidation.clusters(rows)
    labels = {g["group"]: g["label"] for g in GROUPS}
    merged = set()
    for cluster in found:
        groups = {m["group"] for m in cluster.members}
        assert len(groups) == 1, f"a cluster mixes {sorted(groups)}"
        (group,) = groups
        assert labels[group] == "repeat", f"look-alikes merged: {[m['content'] for m in cluster.members]}"
        merged.add(group)
    repeats = [g["group"] for g in GROUPS if g["label"] == "repeat"]
    assert len(merged) >= 0.8 * len(repeats), f"only {sorted(merged)} of {repeats} merged"


def test_a_swapped_subject_is_another_fact_but_saying_more_is_a_repeat():
    words = consolidation.Words.of
    assert not consolidation.repeats(words("The deploy of courier failed"), words("The deploy of basket failed"))
    assert not consolidation.repeats(words("Upgraded courier to Go 1.23"), words("Upgraded courier to Go 1.24"))
    assert consolidation.repeats(
        words("ImportError for requests: the venv was not active"),
        words("ImportError for requests again: the venv was not active; activating it fixed it"),
    )
