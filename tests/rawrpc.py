"""A raw JSON-RPC client for `hindsight-server` over its stdio pipes: it can send what the
MCP SDK's client never would (malformed lines, unknown arguments, hostile types) and it
notices a request that gets no answer. Used by the fuzz and fault tests and benchmarks."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import time
from typing import Any

PROTOCOL = "2025-06-18"


class NoAnswer(Exception):
    """The server did not answer within the time allowed."""


class RawServer:
    """One `hindsight-server` subprocess and the requests in flight to it."""

    def __init__(self, command: list[str], env: dict[str, str], stderr=None, cwd: str | None = None):
        from mcp_client import LAUNCH_DIR

        self.command = command
        self.env = env
        self.stderr = stderr
        self.cwd = cwd or LAUNCH_DIR  # no project from the launch folder unless a test wants one
        self.proc: asyncio.subprocess.Process | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[Any, asyncio.Future] = {}
        self._anonymous: asyncio.Queue = asyncio.Queue()  # replies with id null
        self.stray: list[bytes] = []  # stdout lines that were not JSON-RPC
        self._reader: asyncio.Task | None = None

    async def _spawn(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self.stderr if self.stderr is not None else asyncio.subprocess.DEVNULL,
            env=self.env,
            cwd=self.cwd,
            limit=64 * 1024 * 1024,
        )
        self._reader = asyncio.create_task(self._read())

    async def start(self, timeout: float = 180) -> dict:
        await self._spawn()
        init = await self.request(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "rawrpc", "version": "0"}},
            timeout=timeout,
        )
        await self.notify("notifications/initialized")
        return init

    async def start_modern(self, timeout: float = 180) -> dict:
        """Open as a 2026-07-28 client does: server/discover with the per-request envelope,
        which every later call carries too (`self.meta`)."""
        self.meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "rawrpc", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        await self._spawn()
        return await self.request("server/discover", {"_meta": self.meta}, timeout=timeout)

    async def _read(self) -> None:
        assert self.proc and self.proc.stdout
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                break
            try:
                message = json.loads(line)
                assert isinstance(message, dict) and message.get("jsonrpc") == "2.0"
            except (ValueError, AssertionError):
                self.stray.append(line)
                continue
            if "id" not in message or ("result" not in message and "error" not in message):
                continue  # a request or notification from the server
            future = self._waiting.pop(message["id"], None) if message["id"] is not None else None
            if future is not None and not future.done():
                future.set_result(message)
            elif message["id"] is None:
                self._anonymous.put_nowait(message)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(NoAnswer("the server closed stdout"))
                future.exception()  # retrieved: whoever still waits gets it, nobody else is warned

    async def write(self, data: bytes) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    async def notify(self, method: str, params: dict | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.write(json.dumps(message).encode() + b"\n")

    def send(self, method: str, params: dict | None = None, *, id: Any = None) -> tuple[Any, asyncio.Future]:
        """Write a request now; return its id and the future of its answer."""
        request_id = next(self._ids) if id is None else id
        future = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        return request_id, future

    async def request(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        request_id, future = self.send(method, params)
        await self.proc.stdin.drain()
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            self._waiting.pop(request_id, None)
            raise NoAnswer(f"{method} got no answer within {timeout} s") from None

    async def call(self, tool: str, arguments: Any, timeout: float = 30, meta: dict | None = None) -> dict:
        """tools/call; returns the JSON-RPC answer (result or error). `meta`: the call's _meta."""
        params = {"name": tool, "arguments": arguments, **({"_meta": meta} if meta else {})}
        return await self.request("tools/call", params, timeout=timeout)

    async def raw_answer(self, data: bytes, request_id: Any = None, timeout: float = 5) -> dict | None:
        """Send bytes as one line; the answer is either to `request_id` (if the line carries
        one the server could read) or has id null. None when neither comes in time."""
        waiting = [asyncio.ensure_future(self._anonymous.get())]
        if request_id is not None:
            waiting.append(self.expect(request_id))
        await self.write(data if data.endswith(b"\n") else data + b"\n")
        done, pending = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for future in pending:
            future.cancel()
        if request_id is not None:
            self._waiting.pop(request_id, None)
        return next(iter(done)).result() if done else None

    def expect(self, request_id: Any) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        return future

    async def close(self, timeout: float = 60) -> int:
        if self.proc is None:
            return 0
        if self.proc.stdin and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            self.proc.kill()
            code = await self.proc.wait()
        if self._reader:
            await asyncio.gather(self._reader, return_exceptions=True)
        return code


def tool_text(answer: dict) -> str:
    """The text of a tools/call answer (an error's message for protocol errors)."""
    if "error" in answer:
        return answer["error"].get("message", "")
    content = answer["result"].get("content") or [{}]
    return content[0].get("text", "")


def is_tool_error(answer: dict) -> bool:
    return "result" in answer and bool(answer["result"].get("isError"))


def structured(answer: dict) -> dict:
    result = answer["result"]
    assert not result.get("isError"), tool_text(answer)
    return result.get("structuredContent") or json.loads(result["content"][0]["text"])


def elapsed_since(t0: float) -> float:
    return time.monotonic() - t0


def server_env(**extra: str) -> dict[str, str]:
    env = {"OMP_NUM_THREADS": "1", "HINDSIGHT_LOG_LEVEL": "WARNING"}
    for key in ("PATH", "HOME", "LANG"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra)
    return env
