"""`hindsight ui`: the same settings and database as the server, a socket on 127.0.0.1,
a fresh token, the URL on stdout (nothing else goes there), logs on stderr."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import socket
import sys
import webbrowser

import uvicorn

from .. import services
from ..config import Settings
from ..errors import AgentRefused, ConfigError, InvalidInput
from .app import Ui, create_app


def run(settings: Settings, *, port: int = 0, open_browser: bool = True, agent: str | None = None) -> int:
    ui = Ui.from_settings(settings)  # the agent this process acts for, and whom else it may show
    try:
        ui.agent = services.acting_for(settings, agent or settings.agent_id, "--agent")
    except AgentRefused as exc:
        raise ConfigError(
            f"--agent {exc.agent!r}: this process acts for {settings.agent_id!r} "
            "(HINDSIGHT_AGENT_ID); name another agent in HINDSIGHT_ALLOWED_AGENTS to show it"
        ) from None
    except InvalidInput as exc:
        raise ConfigError(str(exc)) from None
    sock = listen(port)
    with contextlib.redirect_stdout(sys.stderr):  # stdout carries the URL only
        url = services.prepare(settings)
    asyncio.run(_serve(settings, url, ui, sock, open_browser))
    return 0


class _Server(uvicorn.Server):
    """Stops on SIGINT or SIGTERM and returns, so the pool closes and the embedded database
    is released at exit. (uvicorn's own handling raises the signal again once it has shut
    down, which ends the process before either happens.)"""

    @contextlib.contextmanager
    def capture_signals(self):
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def listen(port: int) -> socket.socket:
    """A listening socket on the loopback interface only (0: a free port)."""
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port {port}: must be from 1 to 65535 (0: a free port)")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"--port {port}: cannot listen on 127.0.0.1:{port} ({exc.strerror}); pick another port, or 0 for a free one"
        ) from None
    sock.listen(128)
    return sock


async def _serve(settings: Settings, url: str, ui: Ui, sock: socket.socket, open_browser: bool) -> None:
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    async with services.showing(settings, url) as opened:
        ui.services = opened
        config = uvicorn.Config(
            create_app(ui, token=token, port=port),
            lifespan="off",
            log_config=None,
            access_log=False,
            proxy_headers=False,
            server_header=False,
            timeout_graceful_shutdown=5,
        )
        server = _Server(config)
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not serving.done():
            await asyncio.sleep(0.05)
        if server.started:
            address = f"http://127.0.0.1:{port}/?token={token}"
            print(address, flush=True)
            print(
                f"hindsight ui: serving agent {ui.agent!r} at http://127.0.0.1:{port}/ "
                "(open the URL with the token printed on stdout; Ctrl-C stops)",
                file=sys.stderr,
                flush=True,
            )
            if open_browser and not await asyncio.to_thread(webbrowser.open, address):
                print("hindsight ui: no browser found; open the URL yourself", file=sys.stderr, flush=True)
        await serving
