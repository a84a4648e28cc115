"""Consolidation: many similar episodes become one semantic memory. Pure (numpy only).

Greedy clustering: the episode with the most unclaimed neighbours seeds a cluster of itself
and those neighbours; clusters smaller than MIN_CLUSTER are left alone. Two episodes are
neighbours when they really repeat, not when they merely look alike. multilingual-e5 rates
short look-alikes as close as paraphrases ("tags json test" / "json test fact": 0.96; "The
deploy of courier failed" / "… of basket failed": 0.97), so cosine at or above the threshold
is only the first of four conditions (`repeats`):

1. cosine >= the threshold;
2. at least REPEAT_SHARE of the shorter one's subject words (rules.changes: content words and
   identifiers, inflections folded) are found in the other, and at least two;
3. no word swapped for another: one text may say more than the other, but a frame with its
   subject swapped ("ImportError: no module named numpy" / "… named pandas", "新加坡集群的
   Kafka 升级完成了" / "深圳集群的…") is two facts. Words that each has and the other lacks
   are allowed only in a paraphrase: both longer than SHORT subject words, the shared words
   in another order, and at most MAX_REPLACED of the shorter one's words;
4. their numbers and versions do not disagree: not each with one the other lacks ("Go 1.23"
   / "Go 1.24", "test-01" / "db-01").

Measured on tests/data/consolidation_labelled.jsonl (tests/unit/test_consolidation.py): of
29 groups, each of the 18 look-alike groups stays apart and 9 of the 11 repeat groups merge
(a flaky test's notes and a Chinese terraform fix, each with a word swapped, stay apart: a
merge missed is a memory kept, a wrong merge hides one).

The summary is extractive and deterministic: the cluster's medoid (the episode most similar
to the rest) stated as a recurring pattern, with how often and over which dates it was
seen, linked to every source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .changes import Translate, subject_words

DEFAULT_THRESHOLD = 0.90  # multilingual-e5-small: paraphrased episodes ~0.93+, related topics 0.85-0.94
REPEAT_SHARE = 0.75
SHORT = 6  # subject words: a text this short with a word swapped is another fact
MAX_REPLACED = 0.34
MIN_CLUSTER = 3
MAX_CANDIDATES = 2000  # newest episodes of one agent considered per run
MAX_LISTED = 50  # source ids listed in the summary's metadata


@dataclass
class Cluster:
    members: list[Any]  # rows: id, content, embedding, metadata, importance, created_at
    medoid: int  # index into members
    cohesion: float  # mean similarity of members to the medoid


@dataclass(frozen=True)
class Summary:
    content: str
    importance: int
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Words:
    """What `repeats` compares of one episode: its subject words (each a set of forms), all
    their forms, and its numbers and versions."""

    subject: tuple[frozenset[str], ...]
    forms: frozenset[str]
    marks: frozenset[str]

    @classmethod
    def of(cls, text: str, translate: Translate | None = None) -> "Words":
        subject = subject_words(text, translate)
        forms = frozenset().union(*subject) if subject else frozenset()
        return cls(subject, forms, frozenset(m.lower().rstrip(".:-/") for m in _MARK.findall(text[:2000])))


_MARK = re.compile(r"[\w.\-/:]*\d[\w.\-/:]*")  # a token with a digit: a number, version, host, id


def repeats(a: Words, b: Words) -> bool:
    """Whether two episodes (already similar in meaning) say the same thing: conditions 2-4
    of the module's docstring."""
    if a.marks != b.marks and a.marks - b.marks and b.marks - a.marks:
        return False
    in_b = [next((k for k, w in enumerate(b.subject) if word & w), -1) for word in a.subject]
    shared_a = sum(k >= 0 for k in in_b)
    shared_b = sum(1 for w in b.subject if w & a.forms)
    shorter = min(len(a.subject), len(b.subject))
    shared = shared_a if len(a.subject) <= len(b.subject) else shared_b
    if shared < 2 or shared < REPEAT_SHARE * shorter:
        return False
    replaced = min(len(a.subject) - shared_a, len(b.subject) - shared_b)
    if not replaced:
        return True  # one says what the other says, and perhaps more
    order = [k for k in in_b if k >= 0]
    if shorter <= SHORT or order == sorted(order):
        return False  # the same frame with a word swapped: "… of courier failed" / "… of basket failed"
    return replaced <= MAX_REPLACED * shorter  # a paraphrase, in other words and order


def clusters(
    rows: list[Any],
    threshold: float = DEFAULT_THRESHOLD,
    min_size: int = MIN_CLUSTER,
    translate: Translate | None = None,
) -> list[Cluster]:
    if len(rows) < min_size:
        return []
    vectors = np.array([_array(r["embedding"]) for r in rows])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-12
    sims = vectors @ vectors.T
    close = _neighbours(rows, sims >= threshold, translate)
    free = np.ones(len(rows), dtype=bool)
    out: list[Cluster] = []
    while True:
        counts = (close & free[None, :] & free[:, None]).sum(axis=1)
        seed = int(np.argmax(counts))
        if counts[seed] < min_size:
            break
        idx = np.flatnonzero(close[seed] & free)
        sub = sims[np.ix_(idx, idx)]
        medoid = int(np.argmax(sub.mean(axis=1)))
        out.append(Cluster([rows[i] for i in idx], medoid, float(sub[medoid].mean())))
        free[idx] = False
    return out


def _neighbours(rows: list[Any], similar: np.ndarray, translate: Translate | None) -> np.ndarray:
    """`similar` (cosine at the threshold), kept only where the two episodes repeat; each
    episode's words are read once, and only if it has a similar one."""
    words: dict[int, Words] = {}

    def of(i: int) -> Words:
        if i not in words:
            words[i] = Words.of(rows[i]["content"], translate)
        return words[i]

    close = np.eye(len(rows), dtype=bool)
    for i, j in zip(*np.nonzero(np.triu(similar, 1))):
        if repeats(of(int(i)), of(int(j))):
            close[i, j] = close[j, i] = True
    return close


def _array(value: Any) -> np.ndarray:
    """pgvector's codec gives a Vector (or a numpy array, depending on its version)."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


def summarise(cluster: Cluster) -> Summary:
    members = sorted(cluster.members, key=lambda r: r["created_at"])
    medoid = cluster.members[cluster.medoid]
    first, last = members[0]["created_at"], members[-1]["created_at"]
    text = " ".join(medoid["content"].split())
    content = f"Recurring ({len(members)} times, {first:%Y-%m-%d} to {last:%Y-%m-%d}): {text}"
    tools: list[str] = []
    entities: list[str] = []
    for r in members:
        meta = r["metadata"] or {}
        tools += [t for t in meta.get("tools_used") or [] if isinstance(t, str)]
        entities += [e for e in meta.get("entities") or [] if isinstance(e, str)]
    metadata: dict[str, Any] = {
        "source": "consolidation",
        "sources": len(members),  # every source points here by consolidated_into
        "consolidated_from": [str(r["id"]) for r in members[:MAX_LISTED]],
        "cohesion": round(cluster.cohesion, 3),
    }
    if tools:
        metadata["tools_used"] = list(dict.fromkeys(tools))
    if entities:
        metadata["entities"] = list(dict.fromkeys(entities))
    return Summary(content, max(r["importance"] for r in members), metadata)
