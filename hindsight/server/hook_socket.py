"""The stdio server's hook socket: where `hindsight-hook` (cli/hook_client.py), run by a
client's command hooks (Gemini CLI, Cursor, Codex), hands over an event. One socket per
server, named by the server's client (hooks-<client pid>.sock in the runtime folder, only its
owner may enter it): the command finds its own client's server by its ancestors' pids. One
request a connection: a JSON line {"client", "event"} in, the hook's JSON output out.
Whatever goes wrong is answered `{}` (the client's hook never blocks)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from pathlib import Path
from typing import Any, AsyncIterator

from ..services import Opening, hook_event, hook_socket_dir, hook_socket_for
from .hook_tool import HOOK_WAIT, answer_event, output

log = logging.getLogger("hindsight.server")

MAX_REQUEST = 4 * 1024 * 1024  # bytes of one event (a tool's output is cut by the hooks, not here)


@contextlib.asynccontextmanager
async def listening(opening: Opening, open_project: Any) -> AsyncIterator[Path | None]:
    """Serve the hook socket of this server's client while the server runs; `open_project`:
    an awaitable callable giving the project the client has open (its configured folder)."""
    path = hook_socket_for(os.getppid())
    try:
        hook_socket_dir().mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a server of this client that died without cleaning up

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await _one(reader, writer, opening, open_project)

        server = await asyncio.start_unix_server(serve, path=str(path), limit=MAX_REQUEST)
        os.chmod(path, 0o600)
    except OSError as exc:
        log.warning("no hook socket (%s): command hooks will answer nothing", exc)
        yield None
        return
    try:
        yield path
    finally:
        server.close()
        with contextlib.suppress(OSError):
            path.unlink()


async def _one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, opening: Opening, open_project) -> None:
    answer = "{}"
    try:
        request = json.loads(await asyncio.wait_for(reader.readline(), HOOK_WAIT))
        answer = await asyncio.wait_for(_answer(request, opening, open_project), HOOK_WAIT)
    except Exception as exc:  # fail open
        log.warning("a command hook answered nothing: %s", exc)
    with contextlib.suppress(Exception):
        writer.write(answer.encode("utf-8") + b"\n")
        await writer.drain()
        writer.close()


async def _answer(request: dict[str, Any], opening: Opening, open_project) -> str:
    client = str(request.get("client") or "")
    fields = request.get("event") or {}
    named = str(fields.get("hook_event_name") or "")
    found = hook_event(fields)
    s = await opening.ready()
    answer = await answer_event(s, found, s.settings.agent_id, await open_project(), True)
    return output(found.name, answer, client, named)
