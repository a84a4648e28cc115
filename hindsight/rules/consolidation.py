"""Consolidation: many similar episodes become one semantic memory. Pure (numpy only).

Greedy clustering on cosine similarity: the episode with the most unclaimed neighbours at
or above the threshold seeds a cluster of itself and those neighbours; clusters smaller
than MIN_CLUSTER are left alone. The summary is extractive and deterministic: the
cluster's medoid (the episode most similar to the rest) stated as a recurring pattern,
with how often and over which dates it was seen, linked to every source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

DEFAULT_THRESHOLD = 0.90  # multilingual-e5-small: paraphrased episodes ~0.93+, related topics 0.85-0.94
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


def clusters(rows: list[Any], threshold: float = DEFAULT_THRESHOLD, min_size: int = MIN_CLUSTER) -> list[Cluster]:
    if len(rows) < min_size:
        return []
    vectors = np.array([_array(r["embedding"]) for r in rows])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-12
    sims = vectors @ vectors.T
    close = sims >= threshold
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
