"""The read path: check the request, gather candidates (the keyword channels while the query is
being embedded, then everything else in one statement), rank them (hindsight/rules/scoring.py), answer."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any, Awaitable, Callable, NamedTuple, Protocol

import numpy as np

from ..config import local_zone
from ..data import lexicon
from ..data.db import Reader
from ..embedders.base import AsyncEmbedder
from ..rules import bilingual, plans, recap, scoring, timeparse, tools
from ..rules.text import cjk_share, keyword_text, words_text
from . import statement
from .answer import answer
from .candidates import candidate, link_neighbours
from .judge import JUDGED, Words, judge, nothing_relevant
from .request import Filters, Request, check
from .result import MEMORY_FIELDS, RecallResult

_TIMINGS: ContextVar[dict[str, float]] = ContextVar("recall_timings")

CANDIDATES = 50  # per keyword channel
POSTINGS_PER_TERM = 1000  # BM25 reads at most this many postings of each query term
DECAY_CLOCK_SECONDS = 60  # how long the time of the last decay run is cached
PLAN_SECONDS = 60  # how long an agent's vector plan (exact scan or index) is cached

AccessHook = Callable[[str, list, datetime], None]
RERANK_DEPTH = 3  # a reranker sees top_k × this many ranked candidates
STRONG_RANK = 20  # a channel's best this many bring their session neighbours (recall.sql's
# vector statements say `rank <= 20` for theirs; tests/unit/test_sql_catalogue.py holds them equal)


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
        self._plans: dict[str, tuple[float, bool, int]] = {}  # agent -> (when, exact scan?, rows of the index)
        self._words: bilingual.Lexicon | None = None
        self._running = 0  # recalls answering now (rules.plans.plan_ahead)
        self.vector_candidates = statement.VECTOR_CANDIDATES

    @property
    def timings(self) -> dict[str, float]:
        """ms per stage of this task's last call (benchmarks read it): each task its own, so
        calls at once do not overwrite each other's."""
        return _TIMINGS.get({})

    async def retrieve(self, agent_id: Any, query: Any, **options: Any) -> dict[str, Any]:
        """ask(request.check(agent_id, query, **options)) in its JSON form: a retrieve_memory
        call's arguments checked here, its answer as the tool returns it (the hooks, the
        benchmarks)."""
        return (await self.ask(check(agent_id, query, **options))).json()

    async def ask(self, req: Request) -> RecallResult:
        """One recall of a checked request (recall.request.check builds it; the faces build it
        as services.recall_request)."""
        started = time.perf_counter()
        _TIMINGS.set({})
        window = timeparse.resolve(req.query, req.as_of, self.tz)
        if window is not None and recap.asks_what_happened(req.query, window.matched):
            req = dataclasses.replace(req, recap=True)
        use_decay = not req.as_of_given or await self._decay_applies(req.as_of)
        self._running += 1
        try:
            rows, found = await self._candidates(req, window, use_decay)
        finally:
            self._running -= 1
        ranked_at = time.perf_counter()
        keep = max(req.top_k * (RERANK_DEPTH if self.reranker is not None else 1), JUDGED)
        ranked = self._rank(req, rows, found, window, use_decay)
        hits = ranked[:keep]
        _TIMINGS.get().update(
            rank=(time.perf_counter() - ranked_at) * 1000,
            candidates=len(rows),
            total=(time.perf_counter() - started) * 1000,
        )
        if self.reranker is not None:
            hits = await self.reranker.rerank(req.query, hits)
        hits = hits[: max(req.top_k, JUDGED)]  # the verdict reads the first JUDGED, whatever top_k asks
        cosines, said, lent = [c for c, _ in found.cosines.values()], window.matched if window else "", ranked.lent()
        asked = (req.asks_for, req.asks_which)  # the kind of value, the kinds of tool
        verdict = judge(req.query, hits, cosines, found.words, self._words, req.open_projects, said, lent, *asked)
        abstain, hits = nothing_relevant(verdict, window, req.recap), hits[: req.top_k]
        if self.on_access and hits and not abstain:  # what was not relevant was not used
            self.on_access(
                req.agent_id, [h["id"] for h in hits if h["agent_id"] == req.agent_id], datetime.now(timezone.utc)
            )
        return answer(req, hits, window, abstain, verdict.anything)

    async def _decay_applies(self, as_of: datetime) -> bool:
        """decay_score describes the memories as of the last maintenance run: a question
        about a moment more than a day before that run is not judged by it (nor filtered
        by the decay cut)."""
        fetched, computed = self._decay_clock
        if time.monotonic() - fetched > DECAY_CLOCK_SECONDS:
            computed = await self.db.fetchval("decay_computed_at")
            self._decay_clock = (time.monotonic(), computed)
        return computed is None or as_of >= computed - timedelta(days=1)

    async def _candidates(
        self, req: Request, window: timeparse.Window | None, use_decay: bool
    ) -> tuple[list["_Held"], "_Found"]:
        """While the query is embedded: the keyword channels, then the rows of what they
        found, each made a candidate already. Then, in one statement, the vector channel (and
        the hints' channels) and the rows of what it found that are not in hand yet. Returns
        the rows, and what the channels said of them."""
        filters = req.filters if use_decay else req.filters._replace(min_decay=0.0)
        early = [
            asyncio.ensure_future(self._keyword_rows(req, filters, window)),
            asyncio.ensure_future(self._plans_of(req.agent_id, window, filters)),
        ]
        after = asyncio.ensure_future(self._statement(req, filters, window, early))
        began = time.perf_counter()
        try:
            vector = await self.embedder.query(req.query)
            embedded_at = time.perf_counter()
            (found, rows, unknown), _ = await asyncio.gather(*early)
            hinted, args, planned = await after
        except BaseException:
            for task in early:
                task.cancel()
            await statement.abandon(after)
            raise
        waited_at = time.perf_counter()
        if planned is not None:
            fetched = await planned.fetch(vector)
        else:
            args[statement.VECTOR_ARG - 1] = vector
            fetched = await (
                self.db.fetch("recall_vector_hinted", *args) if hinted else self.db.fetch("recall_vector", *args)
            )
        nearest: dict[tuple, float] = {}  # what the vector channel found -> cosine to the query
        for r in fetched:
            key = (r["agent_id"], r["id"])
            if r["similarity"] is not None:
                nearest[key] = float(r["similarity"])
            if r["content"] is not None:  # not in hand yet (else only its key came back)
                _merge(rows, [r], {key: r["strong"]})
        _TIMINGS.get().update(
            {
                "embed": (embedded_at - began) * 1000,
                "keyword_wait": (waited_at - embedded_at) * 1000,
                "candidates_sql": (time.perf_counter() - waited_at) * 1000,
            }
        )
        query = _unit(vector)
        cosines = {  # key -> (cosine to the query, found by the vector channel)
            key: (nearest[key], True) if key in nearest else (float(held.unit() @ query), False)
            for key, held in rows.items()
        }
        return list(rows.values()), _Found(found, cosines, unknown, query)

    async def _statement(
        self, req: Request, filters: Filters, window: timeparse.Window | None, early: list[asyncio.Future]
    ) -> tuple[bool, list[Any], Any]:
        """The statement after the embedding (recall_vector, or recall_vector_hinted: True), its
        arguments with the query's embedding ($12) still to come, and, where the database
        plans ahead (hindsight.data.ahead), the statement planned already: once the keyword
        channels have their rows, while the query is still being embedded."""
        (_, rows, _), (exact, window_by_index) = await asyncio.gather(*early)
        in_hand = {key: held.strong for key, held in rows.items()}
        hinted, args = statement.after_embedding(
            req, filters, self.vector_candidates, window, in_hand, exact, window_by_index
        )
        plan_ahead = getattr(self.db, "plan_ahead", None)  # a Database; not the replicas' reader
        late, planned = statement.VECTOR_ARG, None
        if plan_ahead is not None and plans.plan_ahead(self._running):  # alone: CPU to spare
            planned = await (
                plan_ahead("recall_vector_hinted", args, late) if hinted else plan_ahead("recall_vector", args, late)
            )
        return hinted, args, planned

    async def _keyword_rows(
        self, req: Request, filters, window: timeparse.Window | None
    ) -> tuple[dict, dict[tuple, "_Held"], "Words"]:
        """The keyword channels (BM25 over the agent's memories, with the query's words in the other
        language and the tools of a kind it asks which one of; full text over other agents' shared ones),
        then their rows, each made a candidate (all but its cosine) while the query is still being embedded;
        and what the agent's memories say of the question's words (judge.Words)."""
        said = words_text(req.query)  # the question's words, no identifier forms (for query_terms_known too)
        text = keyword_text(req.searched, said if req.searched == req.query else None)
        words, lexicon = bilingual.query_words(text), await self._lexicon()
        other = bilingual.translate(words, lexicon)

        def channel(name: str, *args: Any) -> Callable[[], Awaitable[list]]:
            """A statement, run in its turn (made up front, one left after a failure would warn)."""
            return functools.partial(self.db.fetch, name, *args)

        weighed = (other, self.weights.translated, " ".join(tools.tools_of(req.asks_which)), self.weights.tool_kind)
        channels = [channel("channel_keyword", *filters, CANDIDATES, text, POSTINGS_PER_TERM, *weighed)]
        if req.include_shared:
            channels.append(channel("channel_shared_keyword", *filters, CANDIDATES, text))
        groups = bilingual.term_groups(bilingual.query_words(said), lexicon)
        channels.append(channel("query_terms_known", req.agent_id, groups))
        # one after another: beside three at once the embedder slowed 4.0 ms, one at a time 2.7
        *keyword, known = [await run() for run in channels]
        unknown = Words.of(known, groups)
        found = {(req.agent_id, r["id"]): ("keyword", float(r["score"])) for r in keyword[0]}
        if len(keyword) > 1:  # another agent's shared memory: ts_rank_cd, not BM25; counted at half
            best = max((float(r["score"]) for r in keyword[1]), default=0.0) or 1.0
            top = max((s for _, s in found.values()), default=1.0)
            for r in keyword[1]:
                found.setdefault((r["agent_id"], r["id"]), ("shared_keyword", 0.5 * top * float(r["score"]) / best))
        wanted = {key: rank < STRONG_RANK for rank, key in enumerate(found)}
        rows: dict[tuple, _Held] = {}
        if wanted:
            _merge(rows, await self._rows(filters, wanted), wanted)
        for key, held in rows.items():  # the embedder runs in its own thread meanwhile
            rows[key] = held.prepared(req, found, window)
        return found, rows, unknown

    async def _rows(self, filters, wanted: dict[tuple, bool]) -> list:
        agents, ids, strong = [a for a, _ in wanted], [i for _, i in wanted], list(wanted.values())
        return await self.db.fetch("recall_rows", *filters, CANDIDATES, agents, ids, strong)

    async def _lexicon(self) -> bilingual.Lexicon:
        """The bilingual lexicon, built off the event loop the first time (warm() at start)."""
        if self._words is None:
            self._words = await asyncio.to_thread(lexicon.load)
        return self._words

    async def warm(self) -> None:
        await self._lexicon()

    async def _vector_plan(self, agent_id: str) -> tuple[bool, int]:
        """(whether the vector channel scans the agent's rows exactly: plans.vector_plan, about
        how many rows the index holds), from the counts, cached for a minute: they change slowly."""
        now = time.monotonic()
        cached = self._plans.get(agent_id)
        if cached is not None and now - cached[0] < PLAN_SECONDS:
            return cached[1], cached[2]
        row = await self.db.fetchrow("vector_plan_inputs", agent_id, plans.EXACT_MAX + 1)
        exact = plans.vector_plan(row["agent_rows"], row["all_rows"]) == "exact"
        index_rows = max(row["agent_rows"], row["all_rows"])  # the shared index's (the agent's own holds fewer)
        self._plans[agent_id] = (now, exact, index_rows)
        return exact, index_rows

    async def _plans_of(
        self, agent_id: str, window: timeparse.Window | None, filters: Filters | None = None
    ) -> tuple[bool, bool]:
        """(whether the vector channel scans the agent's rows exactly, whether the window
        channel finds the window's nearest through the index: plans.window_plan, from the rows
        written in the window, counted only where the index is the agent's plan and the caller
        filters by nothing else)."""
        exact, index_rows = await self._vector_plan(agent_id)
        agent_plan = "exact" if exact else "index"
        filtered = filters is not None and _filters_besides_time(filters)
        if window is None or not plans.window_counted(agent_plan, filtered):
            return exact, False
        rows = await self.db.fetchval(
            "window_rows", agent_id, window.start, window.end, plans.window_count_cap(index_rows)
        )
        return exact, plans.window_plan(agent_plan, rows, index_rows, filtered) == "index"

    def _rank(
        self, req: Request, held: list["_Held"], found: "_Found", window: timeparse.Window | None, use_decay: bool
    ) -> "_LazyHits":
        """Candidates ranked, best first, as hits (built lazily: callers keep the first few)."""
        cands = [h.candidate(req, found, window) for h in held]
        link_neighbours(cands)
        rows = {(h.record["agent_id"], h.record["id"]): h.record for h in held}  # by key, as the candidates

        @functools.cache
        def vector(key: object) -> np.ndarray:  # a candidate's embedding as an array, made once
            return _array(rows[key]["embedding"])

        def similar(a: object, b: object) -> float:
            return float(vector(a) @ vector(b))

        ranked = scoring.rank(
            cands,
            query_cjk=cjk_share(req.query),
            similar=similar,
            weights=self.weights,
            use_decay=use_decay,
            translate=bilingual.glosses(self._words) if self._words is not None else None,
        )
        return _LazyHits(ranked, rows)


class _LazyHits:
    """The ranked candidates; a slice of it builds the JSON hits."""

    def __init__(self, ranked: list[scoring.Candidate], rows: dict):
        self.ranked, self.rows = ranked, rows  # rows by key (agent, id), as the candidates are known

    def __getitem__(self, part: slice) -> list[dict[str, Any]]:
        return [_hit(self.rows[c.id], c) for c in self.ranked[part]]

    def lent(self) -> dict[tuple, tuple[float, str]]:
        """The memories that rank by the nearness of one they replaced, by (agent, id): its
        cosine, its text."""
        return {c.id: c.lent for c in self.ranked if c.lent is not None}


class _Found(NamedTuple):
    keyword: dict  # key -> (keyword channel, score)
    cosines: dict  # key -> (cosine to the query, found by the vector channel)
    words: Words  # the question's words: which no memory of the agent holds, how rare each is
    query: np.ndarray  # the query's embedding, unit length


class _Held(NamedTuple):
    """A candidate's row, whether it came as a strong seed (its session neighbours named),
    and, for the rows that came while the query was embedded, what ranking reads of it."""

    record: Any
    strong: bool
    early: scoring.Candidate | None = None  # all but the cosine to the query
    unit_embedding: np.ndarray | None = None

    def prepared(self, req: Request, keyword: dict, window: timeparse.Window | None) -> "_Held":
        return self._replace(early=candidate(self.record, req, keyword, window), unit_embedding=self.unit())

    def unit(self) -> np.ndarray:
        return self.unit_embedding if self.unit_embedding is not None else _unit(self.record["embedding"])

    def candidate(self, req: Request, found: _Found, window: timeparse.Window | None) -> scoring.Candidate:
        key = (self.record["agent_id"], self.record["id"])
        c = self.early if self.early is not None else candidate(self.record, req, found.keyword, window)
        c.similarity, by_vector = found.cosines[key]
        if by_vector:
            c.channels.add("vector")
        if self.record["replaced"]:  # what it replaced: their cosines to the query and scripts (rare)
            c.replaced = tuple(
                (float(_unit(e) @ found.query), cjk_share(text), text)
                for e, text in zip(self.record["replaced"], self.record["replaced_text"])
            )
        return c


def _filters_besides_time(filters: Filters) -> bool:
    """Whether the caller filters by anything besides the time (type, tags, metadata, dates,
    project): such a filter thins what passes a filtered index scan."""
    return any(
        value is not None
        for value in (filters.memory_type, filters.tags, filters.metadata, filters.start, filters.end, filters.project)
    )


def _array(vector: Any) -> np.ndarray:
    """pgvector's Vector (or an array) as float32."""
    return np.asarray(vector.to_numpy() if hasattr(vector, "to_numpy") else vector, dtype=np.float32)


def _unit(vector: Any) -> np.ndarray:
    v = _array(vector)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def _merge(rows: dict[tuple, _Held], fetched: list, wanted: dict[tuple, bool]) -> None:
    """Fetched rows into `rows` (key -> _Held): a seed fetched as strong (its neighbours
    named) wins over the same memory fetched as a neighbour or a weak seed."""
    for record in fetched:
        key = (record["agent_id"], record["id"])
        strong = wanted.get(key, False)
        held = rows.get(key)
        if held is None or (strong and not held.strong):
            rows[key] = _Held(record, strong)


def _hit(row, cand: scoring.Candidate) -> dict[str, Any]:
    hit = {k: row[k] for k in MEMORY_FIELDS}  # real ids and datetimes: RecallResult.json makes the strings
    hit["score"] = round(cand.score, 6)
    hit["channels"] = sorted(cand.channels)
    hit["similarity"] = round(cand.similarity, 4)
    hit["score_parts"] = {k: round(val, 4) for k, val in cand.parts.items()}
    if cand.outdated_by is not None:
        hit["possibly_outdated_by"] = cand.outdated_by[1]  # its key: (agent, id)
    return hit
