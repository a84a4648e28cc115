"""The project the client has open, from its MCP roots (rules.projects names them).

A client that declares the `roots` capability is asked `roots/list` once it has sent
`initialized`, and again on `notifications/roots/list_changed`; each root folder becomes a
project name (the git remote's repository name when the folder is a git checkout, else the
folder's name), recorded in project_roots. A tool call names the open project itself, or
gets the roots' (the first is where writes go; recall prefers all of them), else
HINDSIGHT_PROJECT, else none. A client without roots works as before. One server process
serves one stdio session, so the roots are held here, not per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ClientCapabilities, NotificationParams, RootsCapability

from ..errors import InvalidInput
from ..rules import projects
from ..rules import validate as v

log = logging.getLogger("hindsight.server")

ASK_SECONDS = 5.0  # a client that does not answer roots/list by then is taken to have none


def name_of_root(uri: str) -> tuple[str, str] | None:
    """(project name, source) for one root URI: 'git remote' or 'folder'; None if it is not
    a local folder or gives no usable name."""
    path = projects.folder_of(uri)
    if path is None:
        return None
    url = _origin(Path(path))
    found = [(projects.from_remote(url), "git remote")] if url else []
    found.append((projects.from_folder(path), "folder"))
    for name, source in found:
        with contextlib.suppress(InvalidInput):  # a name with control characters: try the next
            if name and v.project(name, allow_global=False):
                return name, source
    return None


def _origin(folder: Path) -> str | None:
    """The origin URL of a git checkout (a .git folder, or a .git file pointing at one as
    worktrees and submodules have)."""
    try:
        git = folder / ".git"
        if git.is_file():
            pointer = git.read_text(errors="replace").strip()
            if not pointer.startswith("gitdir:"):
                return None
            git = (folder / pointer[len("gitdir:") :].strip()).resolve()
            common = git / "commondir"  # a worktree: the config is in the main repository
            if common.is_file():
                git = (git / common.read_text().strip()).resolve()
        config = git / "config"
        return projects.origin_url(config.read_text(errors="replace")) if config.is_file() else None
    except OSError:
        return None


class OpenProjects:
    """The session's roots as project names, kept current."""

    def __init__(self, default: str | None):
        self.default = default  # HINDSIGHT_PROJECT
        self.names: tuple[str, ...] | None = None  # None: not known (never asked, or no roots)
        self._asking: asyncio.Task | None = None

    def register(self, mcp: MCPServer) -> None:
        server = mcp._lowlevel_server
        server.add_notification_handler("notifications/initialized", NotificationParams, self._refresh)
        server.add_notification_handler("notifications/roots/list_changed", NotificationParams, self._refresh)

    async def _refresh(self, ctx: Any, _params: Any) -> None:
        if _has_roots(ctx.session):
            self._asking = asyncio.ensure_future(self._ask(ctx.session, ctx.lifespan_context))

    async def _ask(self, session: Any, services: Any) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the SDK marks roots deprecated for a future protocol
                result = await asyncio.wait_for(session.list_roots(), ASK_SECONDS)
        except Exception as exc:
            log.warning("the client did not answer roots/list (%s); no project from roots", exc)
            self.names = None
            return
        named = [(str(root.uri), *found) for root in result.roots if (found := name_of_root(str(root.uri)))]
        self.names = tuple(dict.fromkeys(name for _, name, _ in named)) or None
        log.info("open project(s) from the client's roots: %s", ", ".join(self.names or ("none",)))
        if named:
            try:
                await services.memories.roots_seen(services.settings.agent_id, named)
            except Exception as exc:
                log.warning("could not record the roots: %s", exc)

    def known(self) -> tuple[str, ...]:
        """The open projects as last heard, without asking (for reads that have no call)."""
        return self.names or ((self.default,) if self.default else ())

    async def current(self, ctx: Any) -> tuple[str, ...]:
        """The open projects for a call: the roots' (waiting for an answer on its way; asking
        now if the client has roots and was never asked), else HINDSIGHT_PROJECT's."""
        if self._asking is None and ctx is not None and _has_roots(ctx.session):
            self._asking = asyncio.ensure_future(self._ask(ctx.session, ctx.request_context.lifespan_context))
        if self._asking is not None and not self._asking.done():
            await asyncio.wait([self._asking], timeout=ASK_SECONDS)
        return self.known()


def _has_roots(session: Any) -> bool:
    try:
        return bool(session.check_client_capability(ClientCapabilities(roots=RootsCapability())))
    except Exception:
        return False
