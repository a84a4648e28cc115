"""How the channels that read by meaning find an agent's rows: pure rules, no I/O. The
database's counts go in (hindsight/recall/search.py asks for them while the query is being
embedded), a plan comes out, and the statement's branches for the other plans are folded away
when it is planned (sql/queries/recall.sql). And when that statement is planned: while the
query is embedded, or when it runs (plan_ahead, from the recalls in flight)."""

from __future__ import annotations

import math

# How the vector channel finds an agent's nearest memories (benchmarks/tenants.py measured it
# on one database of 1,000,000 memories across 2,121 agents). A filtered HNSW scan over a
# shared index starves when the agent's rows are a small share of it; an exact scan of the
# agent's rows costs about a microsecond a row here and is always right.
EXACT_ALWAYS = 2_000  # at most this many rows: an exact scan, in any database
EXACT_MAX = 20_000  # up to this many: an exact scan when the agent is a small share of the index
EXACT_SHARE = 0.5  # ... below this share of all rows (above it the index finds its rows at once)


def vector_plan(agent_rows: int, all_rows: int) -> str:
    """ "exact" (scan the agent's rows) or "index" (the HNSW index, iteratively)."""
    if agent_rows <= EXACT_ALWAYS:
        return "exact"
    if agent_rows <= EXACT_MAX and agent_rows < EXACT_SHARE * max(all_rows, agent_rows):
        return "exact"
    return "index"


# The window channel (a question that names a time) orders a window's latest this many rows by
# similarity (recall.sql's recall_vector_hinted says LIMIT 5000; tests/unit/test_sql_catalogue.py
# holds them equal): exact, where a narrow window would starve a filtered HNSW scan. A window of
# more rows than that is searched through the index, filtered to the window, when the index is
# the agent's plan: ordering 5,000 rows took 20 ms at 100,000 (benchmarks/README.md). Only a
# window that is at least WINDOW_SHARE of the rows the index holds, and only with no filter of
# the caller's besides it: the filtered scan walks the graph until enough rows pass, and
# pgvector stops it after hnsw.max_scan_tuples (20,000 by default) — about 50 / share of them.
WINDOW_LATEST = 5_000
WINDOW_SHARE = 0.01


def window_count_cap(index_rows: int) -> int:
    """How many of a window's rows to count (the count stops there): enough for window_plan."""
    return max(WINDOW_LATEST, math.ceil(WINDOW_SHARE * index_rows)) + 1


def window_counted(agent_plan: str, filtered: bool) -> bool:
    """Whether window_plan may say "index", so the window's rows are worth counting: the index
    is the agent's plan, and the caller filters by nothing besides the window."""
    return agent_plan == "index" and not filtered


def window_plan(agent_plan: str, window_rows: int, index_rows: int, filtered: bool = False) -> str:
    """ "latest" (the window's latest WINDOW_LATEST rows, by similarity) or "index" (the HNSW
    index, filtered to the window): `window_rows`, the agent's rows written in it (counted up to
    window_count_cap); `index_rows`, about how many rows the index holds; `filtered`, whether the
    caller filters by anything besides the window (type, tags, metadata, dates, project)."""
    if not window_counted(agent_plan, filtered) or window_rows <= WINDOW_LATEST:
        return "latest"
    return "index" if window_rows >= WINDOW_SHARE * index_rows else "latest"


# Recall's statement after the embedding is planned while the query is embedded
# (hindsight/data/ahead.py) only by a recall that runs alone. Planning ahead takes about 2 ms
# off that recall's wait after the embedding and costs about 7 ms of the database's CPU (a
# prepare and a generic plan, where planning at the run costs about 1.3): on two cores, beside
# other recalls, that CPU is what the embedder and their statements wait for. With 8 clients
# (benchmarks/concurrent_load.py, three rounds each way) retrieve p50 was 209-214 ms planning
# ahead and 199-201 planning at the run (benchmarks/README.md).
AHEAD_ALONE = 1  # the most recalls in flight, this one counted, at which it plans ahead


def plan_ahead(recalls_running: int) -> bool:
    """Whether a recall plans its statement while its query is embedded (True), or lets the
    database plan it when it runs: `recalls_running`, the recalls this process is answering
    now, the asking one counted."""
    return recalls_running <= AHEAD_ALONE
