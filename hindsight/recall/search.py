"""The read path: check the request, gather candidates (the keyword channels while the
query is being embedded, then everything else in one statement), rank them
(hindsight/rules/scoring.py), answer."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any, Callable, Protocol

import numpy as np

from ..config import local_zone
from ..data.db import Reader
from ..embedders.base import AsyncEmbedder
from ..rules import scoring, timeparse
from ..rules.text import cjk_share, estimate_tokens, keyword_text
from ..store.records import row_to_dict
from .request import Hints, Request, check

CANDIDATES = 50  # per channel
POSTINGS_PER_TERM = 1000  # BM25 reads at most this many postings of each query term
DECAY_CLOCK_SECONDS = 60  # how long the time of the last decay run is cached
PLAN_SECONDS = 60  # how long an agent's vector plan (exact scan or index) is cached
FAILED_OUTCOMES = ("failure", "failed", "error")

AccessHook = Callable[[str, list, datetime], None]
RERANK_DEPTH = 3  # a reranker sees top_k × this many ranked candidates


class Reranker(Protocol):
    """The seam for a second-stage reranker (e.g. a cross-encoder, when one can ship
    offline): it reorders the ranked candidates, best first; recall keeps the first top_k."""

    async def rerank(self, query: str, hits: list[dict[str, Any]]) -> list[dict[str, Any]]: ...


class Recall:
    def __init__(
        self,
        db: Reader,
        embedder: AsyncEmbedder,
        weights: scoring.Weights | None = None,
        on_access: AccessHook | None = None,
        reranker: Reranker | None = None,
        tz: tzinfo | None = None,
    ):
        self.db = db
        self.embedder = embedder
        self.weights = weights or scoring.Weights()
        self.on_access = on_access
        self.reranker = reranker
        self.tz = tz or local_zone()
        self._decay_clock: tuple[float, datetime | None] = (0.0, None)
        self._plans: dict[str, tuple[float, bool]] = {}  # agent -> (when, exact scan?)
        self.timings: dict[str, float] = {}  # ms per stage of the last call (benchmarks read it)

    async def retrieve(self, agent_id: Any, query: Any, **options: Any) -> dict[str, Any]:
        started = time.perf_counter()
        req = check(agent_id, query, **options)
        window = timeparse.resolve(req.query, req.as_of, self.tz)
        use_decay = not req.as_of_given or await self._decay_applies(req.as_of)
        rows, found = await self._candidates(req, window, use_decay)
        ranked_at = time.perf_counter()
        keep = req.top_k * (RERANK_DEPTH if self.reranker is not None else 1)
        hits = self._rank(req, rows, found, window, use_decay)[:keep]
        self.timings.update(
            rank=(time.perf_counter() - ranked_at) * 1000,
            candidates=len(rows),
            total=(time.perf_counter() - started) * 1000,
        )
        if self.reranker is not None:
            hits = await self.reranker.rerank(req.query, hits)
        hits = hits[: req.top_k]
        if self.on_access and hits:
            self.on_access(
                req.agent_id, [h["id"] for h in hits if h["agent_id"] == req.agent_id], datetime.now(timezone.utc)
            )
        return _answer(req, hits, window)

    async def _decay_applies(self, as_of: datetime) -> bool:
        """decay_score describes the memories as of the last maintenance run: a question
        about a moment more than a day before that run is not judged by it (nor filtered
        by the decay cut)."""
        fetched, computed = self._decay_clock
        if time.monotonic() - fetched > DECAY_CLOCK_SECONDS:
            computed = await self.db.fetchval("decay_computed_at")
            self._decay_clock = (time.monotonic(), computed)
        return computed is None or as_of >= computed - timedelta(days=1)

    async def _candidates(self, req: Request, window: timeparse.Window | None, use_decay: bool) -> tuple[list, dict]:
        """The keyword channels run while the query is embedded; then one statement
        brings every candidate with its features."""
        filters = req.filters if use_decay else req.filters._replace(min_decay=0.0)
        text = keyword_text(req.query)
        early = [self.db.fetch("channel_keyword", *filters, CANDIDATES, text, POSTINGS_PER_TERM)]
        if req.include_shared:
            early.append(self.db.fetch("channel_shared_keyword", *filters, CANDIDATES, text))
        early.append(self._exact_scan(req.agent_id))
        began = time.perf_counter()
        tasks = [asyncio.ensure_future(aw) for aw in early]
        try:
            vector = await self.embedder.query(req.query)
            embedded_at = time.perf_counter()
            *keyword, exact = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            raise
        waited_at = time.perf_counter()
        found = {(req.agent_id, r["id"]): ("keyword", float(r["score"])) for r in keyword[0]}
        if len(keyword) > 1:  # another agent's shared memory: ts_rank_cd, not BM25; counted at half
            best = max((float(r["score"]) for r in keyword[1]), default=0.0) or 1.0
            top = max((s for _, s in found.values()), default=1.0)
            for r in keyword[1]:
                found.setdefault((r["agent_id"], r["id"]), ("shared_keyword", 0.5 * top * float(r["score"]) / best))
        agents, ids = [agent for agent, _ in found], [mid for _, mid in found]
        if window or req.tools or req.session_id or req.task_type:
            hints = Hints(
                window_start=window.start if window else None,
                window_end=window.end if window else None,
                tools=list(req.tools) or None,
                session_id=req.session_id,
                task_type=req.task_type,
            )
            rows = await self.db.fetch(
                "recall_candidates_hinted", *filters, CANDIDATES, vector, exact, *hints, agents, ids
            )
        else:
            rows = await self.db.fetch("recall_candidates", *filters, CANDIDATES, vector, exact, agents, ids)
        self.timings = {
            "embed": (embedded_at - began) * 1000,
            "keyword_wait": (waited_at - embedded_at) * 1000,
            "candidates_sql": (time.perf_counter() - waited_at) * 1000,
        }
        return rows, found

    async def _exact_scan(self, agent_id: str) -> bool:
        """Whether the vector channel scans the agent's rows exactly (scoring.vector_plan),
        from its row count, cached for a minute: it changes slowly."""
        now = time.monotonic()
        cached = self._plans.get(agent_id)
        if cached is not None and now - cached[0] < PLAN_SECONDS:
            return cached[1]
        row = await self.db.fetchrow("vector_plan_inputs", agent_id, scoring.EXACT_MAX + 1)
        exact = scoring.vector_plan(row["agent_rows"], row["all_rows"]) == "exact"
        self._plans[agent_id] = (now, exact)
        return exact

    def _rank(
        self, req: Request, rows: list, found: dict, window: timeparse.Window | None, use_decay: bool
    ) -> list[dict[str, Any]]:
        """Candidates ranked, best first, as hits (built lazily: callers keep the first few)."""
        cands = [_candidate(r, req, found, window) for r in rows]
        _link_neighbours(cands)
        embeddings = {r["id"]: r["embedding"] for r in rows}

        def similar(a: object, b: object) -> float:
            return float(_array(embeddings[a]) @ _array(embeddings[b]))

        ranked = scoring.rank(
            cands, query_cjk=cjk_share(req.query), similar=similar, weights=self.weights, use_decay=use_decay
        )
        by_id = {r["id"]: r for r in rows}
        return _LazyHits(ranked, by_id)


class _LazyHits:
    """The ranked candidates; a slice of it builds the JSON hits."""

    def __init__(self, ranked: list[scoring.Candidate], rows: dict):
        self.ranked, self.rows = ranked, rows

    def __getitem__(self, part: slice) -> list[dict[str, Any]]:
        return [_hit(self.rows[c.id], c) for c in self.ranked[part]]


def _candidate(row, req: Request, found: dict, window: timeparse.Window | None) -> scoring.Candidate:
    meta = row["metadata"] or {}
    channel, keyword = found.get((row["agent_id"], row["id"]), (None, 0.0))
    tools_used = meta.get("tools_used") if isinstance(meta.get("tools_used"), list) else []
    uses_tool = bool(req.tools) and any(isinstance(t, str) and t.lower() in req.tools for t in tools_used)
    same_session = bool(
        (req.session_id and row["session_id"] == req.session_id)
        or (req.task_type and meta.get("task_type") == req.task_type)
    )
    in_window = window is not None and window.start <= row["created_at"] < window.end
    channels = {
        name
        for name, on in (
            ("vector", row["by_vector"]),
            ("time", in_window),
            ("tools", uses_tool),
            ("recent", same_session),
        )
        if on
    }
    if channel:
        channels.add(channel)
    failed = uses_tool and (meta.get("outcome") in FAILED_OUTCOMES or "error" in meta)
    return scoring.Candidate(
        id=row["id"],
        similarity=float(row["similarity"]),
        keyword=keyword,
        created_at=row["created_at"],
        memory_type=row["memory_type"],
        importance=row["importance"],
        decay=float(row["decay_score"]),
        cjk=cjk_share(row["content"]),
        text=row["content"],
        low_trust="low_trust" in (row["flags"] or ()),
        in_window=in_window,
        uses_tool=uses_tool,
        tool_failed=failed,
        same_session=same_session,
        prev=row["prev"],
        prev_minutes=_minutes(row["prev_minutes"]),
        next=row["next"],
        next_minutes=_minutes(row["next_minutes"]),
        channels=channels,
        replaces=frozenset(row["likely_replaces"] or ()),
        project=row["project"],
        other_project=bool(req.open_projects) and row["project"] not in (None, *req.open_projects),
    )


def _array(vector: Any) -> np.ndarray:
    """pgvector's Vector (or an array) as float32."""
    return np.asarray(vector.to_numpy() if hasattr(vector, "to_numpy") else vector, dtype=np.float32)


def _minutes(value: Any) -> float | None:
    return None if value is None else float(value)


def _link_neighbours(cands: list[scoring.Candidate]) -> None:
    """The statement names each seed's neighbours; a neighbour learns the seed is its own."""
    by_id = {c.id: c for c in cands}
    for c in cands:
        before = by_id.get(c.prev)
        if before is not None and before.next is None:
            before.next, before.next_minutes = c.id, c.prev_minutes
        after = by_id.get(c.next)
        if after is not None and after.prev is None:
            after.prev, after.prev_minutes = c.id, c.next_minutes


_HIT_FIELDS = (
    "id",
    "agent_id",
    "session_id",
    "memory_type",
    "content",
    "metadata",
    "tags",
    "importance",
    "flags",
    "slot",
    "created_at",
    "shared",
    "project",
    "decay_score",
    "last_accessed",
)


def _hit(row, cand: scoring.Candidate) -> dict[str, Any]:
    hit = row_to_dict({k: row[k] for k in _HIT_FIELDS})
    hit["score"] = round(cand.score, 6)
    hit["confidence"] = scoring.confidence(cand.similarity, cand.channels)
    hit["channels"] = sorted(cand.channels)
    hit["similarity"] = round(cand.similarity, 4)
    hit["score_parts"] = {k: round(val, 4) for k, val in cand.parts.items()}
    if cand.outdated_by is not None:
        hit["possibly_outdated_by"] = str(cand.outdated_by)
    return hit


def _answer(req: Request, hits: list[dict[str, Any]], window: timeparse.Window | None) -> dict[str, Any]:
    """JSON memories, or (format=prompt) the prompt block alone, so that max_tokens bounds
    what reaches the model."""
    result: dict[str, Any] = {}
    if req.open_projects:
        result["open_projects"] = list(req.open_projects)
    if window:
        result["time_window"] = {
            "start": window.start.isoformat(),
            "end": window.end.isoformat(),
            "matched": window.matched,
        }
    if req.format == "prompt":
        result["prompt"] = scoring.prompt_block(hits, estimate_tokens, req.max_tokens)
        result["ids"] = [h["id"] for h in hits]
        result["token_estimate"] = estimate_tokens(result["prompt"])
        return result
    result["memories"] = hits
    result["token_estimate"] = sum(estimate_tokens(h["content"]) for h in hits)
    return result
