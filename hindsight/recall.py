"""The read path: run the recall channels (keyword, tools and entities while the query is
being embedded; then vector and time window), fuse and score them, return the best."""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Protocol

from . import scoring, timeparse, validate as v
from .db import Database
from .embed import AsyncEmbedder
from .errors import InvalidInput
from .memories import row_to_dict
from .text import content_words, estimate_tokens, keyword_text

CANDIDATES = 20            # per channel
POSTINGS_PER_TERM = 2000   # BM25 reads at most this many postings of each query term
DEFAULT_MIN_DECAY = 0.3
DEFAULT_MAX_TOKENS = 1000
_WORD = re.compile(r"[\w][\w.+#\-/]*[\w+#]|[\w]", re.UNICODE)

AccessHook = Callable[[str, list, datetime], None]
RERANK_DEPTH = 3  # a reranker sees top_k × this many fused candidates


class Reranker(Protocol):
    """The seam for a second-stage reranker (e.g. a cross-encoder, when one can ship
    offline): it reorders the fused candidates, best first; recall keeps the first top_k."""

    async def rerank(self, query: str, hits: list[dict[str, Any]]) -> list[dict[str, Any]]: ...


def query_names(query: str) -> list[str]:
    """Words and 2-3 word phrases of the query, as written and lower-cased: what a tool
    name, an entity or a tag in the query could look like."""
    words = _WORD.findall(query)
    names: list[str] = []
    for n in (1, 2, 3):
        for i in range(len(words) - n + 1):
            phrase = " ".join(words[i:i + n])
            names += [phrase, phrase.lower()]
    return list(dict.fromkeys(names))[:200]


class Recall:
    def __init__(self, db: Database, embedder: AsyncEmbedder, weights: scoring.Weights | None = None,
                 on_access: AccessHook | None = None, reranker: Reranker | None = None):
        self.db = db
        self.embedder = embedder
        self.weights = weights or scoring.Weights()
        self.on_access = on_access
        self.reranker = reranker

    async def retrieve(
        self, agent_id: str, query: Any, *, top_k: Any = 5, memory_type: Any = None,
        time_range: Any = None, task_type: Any = None, session_id: Any = None, tools: Any = None,
        tags: Any = None, metadata: Any = None, include_shared: Any = True, as_of: Any = None,
        min_decay_score: Any = DEFAULT_MIN_DECAY, format: Any = "json", max_tokens: Any = None,
    ) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        query = v.text("query", query, max_bytes=v.MAX_QUERY_CHARS * 4)
        if len(query) > v.MAX_QUERY_CHARS:
            raise InvalidInput("query", f"is {len(query)} characters; at most {v.MAX_QUERY_CHARS} allowed")
        top_k = v.integer("top_k", top_k, 1, v.MAX_TOP_K)
        memory_type = v.memory_type(memory_type, required=False)
        tags = v.tags(tags)
        tools = v.tags(tools, field="tools")
        metadata = v.metadata(metadata)
        task_type = v.text("task_type", task_type, max_bytes=256, required=False)
        session_id = v.text("session_id", session_id, max_bytes=256, required=False)
        if not isinstance(include_shared, bool):
            raise InvalidInput("include_shared", "must be true or false")
        as_of = v.timestamp("as_of", as_of) or datetime.now(timezone.utc)
        start, end = _time_range(time_range)
        if not isinstance(min_decay_score, (int, float)) or isinstance(min_decay_score, bool) \
                or not 0 <= min_decay_score <= 1:
            raise InvalidInput("min_decay_score", "must be a number from 0 to 1")
        if format not in ("json", "prompt"):
            raise InvalidInput("format", f"{format!r} is not allowed; use json or prompt")
        max_tokens = v.integer("max_tokens", DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens, 50, 100_000)

        filters = [agent_id, include_shared, as_of, memory_type, tags, metadata, start, end,
                   float(min_decay_score)]
        text = keyword_text(query)
        names = query_names(query)

        def channel(name: str, *extra: Any) -> Awaitable[list]:
            return self.db.fetch(name, *filters, CANDIDATES, *extra)

        # No embedding needed: these start first and run while the query is embedded.
        early = {
            "keyword": channel("channel_keyword", text, POSTINGS_PER_TERM),
            "tools": channel("channel_tools", list(dict.fromkeys(t.lower() for t in (tools or []) + names))),
        }
        if include_shared:
            early["shared_keyword"] = channel("channel_shared_keyword", text)
        if task_type or session_id:
            early["recent"] = channel("channel_recent_task", task_type, session_id)
        early_tasks = {name: asyncio.ensure_future(aw) for name, aw in early.items()}
        try:
            vector = await self.embedder.query(query)
        except BaseException:
            for task in early_tasks.values():
                task.cancel()
            raise
        late = {"vector": channel("channel_vector", vector), "entities": channel("channel_entities", names, vector)}
        window = timeparse.resolve(query, as_of)
        if window:
            late["time"] = channel("channel_time_window", vector, window[0], window[1])
        late_tasks = {name: asyncio.ensure_future(aw) for name, aw in late.items()}
        tasks = early_tasks | late_tasks
        try:
            await asyncio.gather(*tasks.values())
        except BaseException:
            for task in tasks.values():
                task.cancel()
            raise
        rankings = {name: [(r[0], r[1] if len(r) > 1 else None) for r in task.result()]
                    for name, task in tasks.items()}

        fused = scoring.fuse(rankings, self.weights)
        rows = await self.db.fetch("recall_rows", agent_id, list(fused), vector) if fused else []
        hits = []
        for row in rows:
            score, channels = fused[row["id"]]
            hit = row_to_dict(row)
            hit["score"] = round(scoring.final_score(score, row["importance"], row["created_at"], as_of,
                                                     row["decay_score"], content_words(row["content"]), self.weights), 6)
            hit["confidence"] = scoring.confidence(row["similarity"], channels)
            hit["channels"] = channels
            hit["similarity"] = round(float(row["similarity"]), 4)
            hits.append(hit)
        hits.sort(key=lambda h: (-h["score"], h["created_at"]))
        if self.reranker is not None:
            hits = await self.reranker.rerank(query, hits[:top_k * RERANK_DEPTH])
        hits = hits[:top_k]

        if self.on_access and hits:
            self.on_access(agent_id, [h["id"] for h in hits if h["agent_id"] == agent_id],
                           datetime.now(timezone.utc))
        result: dict[str, Any] = {
            "memories": hits,
            "token_estimate": sum(estimate_tokens(h["content"]) for h in hits),
        }
        if window:
            result["time_window"] = {"start": window[0].isoformat(), "end": window[1].isoformat(),
                                     "matched": window[2]}
        if format == "prompt":
            result["prompt"] = scoring.prompt_block(hits, estimate_tokens, max_tokens)
            result["token_estimate"] = estimate_tokens(result["prompt"])
        return result


def _time_range(value: Any) -> tuple[datetime | None, datetime | None]:
    if value is None:
        return None, None
    if not isinstance(value, dict) or not set(value) <= {"start", "end"}:
        raise InvalidInput("time_range", "must be an object {start, end} of ISO 8601 date-times")
    start = v.timestamp("time_range.start", value.get("start"))
    end = v.timestamp("time_range.end", value.get("end"))
    if start and end and start >= end:
        raise InvalidInput("time_range", "start must be before end")
    return start, end


class AccessRecorder:
    """Collects which memories recall returned and writes access_count / last_accessed in
    batches from a background task, so recall never waits on that UPDATE."""

    def __init__(self, db: Database, interval: float = 1.0):
        self.db = db
        self.interval = interval
        self._pending: dict[str, dict[Any, int]] = {}
        self._last: dict[str, datetime] = {}

    def record(self, agent_id: str, ids: list, when: datetime) -> None:
        counts = self._pending.setdefault(agent_id, {})
        for mid in ids:
            counts[mid] = counts.get(mid, 0) + 1
        self._last[agent_id] = max(when, self._last.get(agent_id, when))

    async def flush(self) -> None:
        pending, self._pending = self._pending, {}
        last, self._last = self._last, {}
        for agent, counts in pending.items():
            await self.db.fetch("record_access", agent, list(counts), list(counts.values()), last[agent])

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.flush()
            except Exception:  # the database hiccuped; counts of that round are dropped
                logging.getLogger(__name__).warning("recording recall access failed", exc_info=True)
