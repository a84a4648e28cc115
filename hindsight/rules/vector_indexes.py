"""Which agents get an HNSW index of their own: a pure rule, no I/O.

One HNSW index over every agent's rows serves an agent badly when its rows are a small
share of it: the filtered scan visits mostly other agents' rows, and what it finds of the
agent's own is a poor sample of its nearest (benchmarks/tenants.py: overlap with an exact
scan 0.29 for an agent of 100,000 rows among 1,000,000, against 0.64 alone). Agents up to
plans.EXACT_MAX rows are scanned exactly (plans.vector_plan); a larger agent that is a
small share of the table gets a partial index (WHERE agent_id = that agent), which the
planner picks for its statements (plans are custom): the agent then searches a graph of
its own rows, as if it were alone in its database.

An index stays until the agent falls well below the size that earned it, or grows to most
of the table (the shared index then serves it as well), so that nothing is rebuilt each
night around a threshold.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .plans import EXACT_MAX, EXACT_SHARE

PREFIX = "memories_embedding_agent_"
MIN_ROWS = EXACT_MAX  # more rows than this, and below SHARE of the table: an index of its own
SHARE = EXACT_SHARE
KEEP_ROWS = EXACT_MAX // 2  # an existing index stays while the agent has more rows than this
KEEP_SHARE = 0.75  # ... and is below this share of the table


@dataclass(frozen=True)
class Thresholds:
    min_rows: int = MIN_ROWS
    share: float = SHARE
    keep_rows: int = KEEP_ROWS
    keep_share: float = KEEP_SHARE


@dataclass(frozen=True)
class IndexPlan:
    create: tuple[tuple[str, str], ...]  # (index name, agent), largest agent first
    drop: tuple[str, ...]  # index names
    kept: int  # indexes that stay as they are


def index_name(agent_id: str) -> str:
    """The index of one agent: a fixed prefix and a digest (agent ids are free text)."""
    return PREFIX + hashlib.sha1(agent_id.encode()).hexdigest()[:16]


def plan(
    counts: dict[str, int], all_rows: int, existing: dict[str, bool], limits: Thresholds = Thresholds()
) -> IndexPlan:
    """What to build and drop. counts: rows per agent (at least those above keep_rows);
    all_rows: rows in the table; existing: index name -> valid (an interrupted concurrent
    build leaves an invalid index: it is dropped and built again)."""
    total = max(all_rows, sum(counts.values()), 1)
    create, keep = [], set()
    for agent, rows in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        name = index_name(agent)
        if existing.get(name) and limits.keep_rows < rows < limits.keep_share * total:
            keep.add(name)
        elif rows > limits.min_rows and rows < limits.share * total:
            create.append((name, agent))
    drop = tuple(sorted(name for name in existing if name not in keep))
    return IndexPlan(create=tuple(create), drop=drop, kept=len(keep))
