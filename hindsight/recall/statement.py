"""The one statement recall runs once the query is embedded: which one, and its arguments
(sql/queries/recall.sql: recall_vector, or recall_vector_hinted when a hint brings
candidates of its own)."""

from __future__ import annotations

import asyncio
from typing import Any

from ..rules import timeparse
from .request import Filters, Hints, Request

VECTOR_ARG = 12  # the query's embedding ($12): the one argument known only after the embedding
# How many it brings per channel (the nearest, and a hint's: the time window, the tools, the
# session): the one round trip recall waits for after the embedding, and the rows ranking reads.
# 50 measured no better on the IDE set and on LoCoMo, one agent per conversation and the four
# pooled in one, and took about 1 ms more (benchmarks/README.md, 2026-12-05).
VECTOR_CANDIDATES = 30


def after_embedding(
    req: Request,
    filters: Filters,
    limit: int,
    window: timeparse.Window | None,
    in_hand: dict[tuple, bool],
    exact: bool,
    window_by_index: bool,
) -> tuple[bool, list[Any]]:
    """(whether it is recall_vector_hinted, its arguments), $12 left None. `in_hand`: the
    keys of the rows the keyword channels brought, and whether each came with its session
    neighbours; `exact`, `window_by_index`: the vector plan and the window's
    (hindsight.rules.plans)."""
    args: list[Any] = [*filters, limit, None, exact]
    args += [[a for a, _ in in_hand], [i for _, i in in_hand], list(in_hand.values())]
    if not (window or req.tools or req.session_id or req.task_type):
        return False, args
    hints = Hints(
        window_start=window.start if window else None,
        window_end=window.end if window else None,
        tools=list(req.tools) or None,
        session_id=req.session_id,
        task_type=req.task_type,
        window_by_index=window_by_index,
    )
    return True, [*args, *hints]


async def abandon(after: asyncio.Future) -> None:
    """The statement after the embedding not to be run (the call failed or was cancelled):
    its connection goes back to the pool if it was planned already."""
    if not after.done():
        after.cancel()
    elif not after.cancelled() and after.exception() is None and after.result()[2] is not None:
        await after.result()[2].abandon()
