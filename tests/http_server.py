"""Start `hindsight-server --transport streamable-http` processes and make tokens for them
(the installed scripts, as a team would); a header-adding proxy for clients that cannot send
a bearer token themselves (the conformance suite)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
from conftest import free_port
from mcp_client import server_command, server_env

BIN = Path(sys.executable).parent


def cli(db_url: str, *args: str) -> subprocess.CompletedProcess:
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="dev")
    return subprocess.run([str(BIN / "hindsight"), *args], env=env, capture_output=True, text=True, timeout=120)


def token(db_url: str, *args: str) -> dict:
    done = cli(db_url, "token", "create", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@contextlib.contextmanager
def servers(db_url: str, n: int = 2, **env: str):
    """n HTTP servers over one database: their base URLs and processes."""
    ports = [free_port() for _ in range(n)]
    environ = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="server-default", **env)
    procs = [
        subprocess.Popen([server_command(), "--transport", "streamable-http", "--port", str(p)], env=environ,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for p in ports
    ]  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        for port, proc in zip(ports, procs):
            while True:
                assert proc.poll() is None, proc.stderr.read().decode()
                with contextlib.suppress(httpx2.HTTPError):
                    if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                        break
                assert time.monotonic() < deadline, "the HTTP server did not become healthy"
                time.sleep(0.5)
        yield [f"http://127.0.0.1:{p}" for p in ports], procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)


@contextlib.contextmanager
def bearer_proxy(target: str, bearer: str):
    """http://127.0.0.1:PORT forwarding every request to `target` with the token added. Host
    and Origin go through as sent, their port turned into the target's, so that the server's
    own checks of them (DNS-rebinding protection) see what the client sent."""
    import uvicorn

    port = free_port()
    target_port = target.rsplit(":", 1)[1].split("/")[0]

    def translated(value: str) -> str:
        return value.replace(f":{port}", f":{target_port}")

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {k.decode(): v.decode() for k, v in scope["headers"] if k != b"content-length"}
        for name in ("host", "origin"):
            if name in headers:
                headers[name] = translated(headers[name])
        headers["authorization"] = f"Bearer {bearer}"
        query = ("?" + scope["query_string"].decode()) if scope["query_string"] else ""
        async with httpx2.AsyncClient(timeout=120) as client:
            answer = await client.request(
                scope["method"], target + scope["path"] + query, content=body, headers=headers
            )
        dropped = {"content-length", "transfer-encoding", "connection", "content-encoding"}
        out = [(k.encode(), v.encode()) for k, v in answer.headers.items() if k.lower() not in dropped]
        await send({"type": "http.response.start", "status": answer.status_code, "headers": out})
        await send({"type": "http.response.body", "body": answer.content})

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
