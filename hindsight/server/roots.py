"""The project the client has open (rules.projects names it), for calls that name none.

In this order (the call's own `project` comes before all of them):
1. The client's MCP roots, on a connection of the handshake era (protocol 2025-11-25 and
   earlier): a client that declares the `roots` capability is asked `roots/list` once it
   has sent `initialized`, and again on `notifications/roots/list_changed`. Protocol
   2026-07-28 deprecates roots and has no server-to-client requests, so it is never asked.
2. The workspace a call names in its `_meta` (Codex sends its session's folders there), else
   the project folder the client's configuration names: HINDSIGHT_PROJECT_DIR (which
   `hindsight mcp-config` fills with the client's own variable, e.g. VS Code's
   ${workspaceFolder}), or a variable the client sets itself (Claude Code:
   CLAUDE_PROJECT_DIR).
3. On protocol 2026-07-28, which has no roots, the folder the client started the server in,
   when it is inside a git checkout (Claude Code starts it in the project's folder). Never /
   or the home folder. Not on the handshake era: there a client that declares no roots has
   said that it has no folder open, and the folder it was started in is only where its user
   happened to be (the IDE benchmark, run from a checkout, would find every one of its
   rootless questions inside that project: R@1 0.79 -> 0.47).
4. HINDSIGHT_PROJECT.
A folder becomes a name as a root does: the git remote's repository name when it is (inside)
a git checkout, else the folder's name; roots and folders are recorded in project_roots. One
server process serves one stdio session, so all of this is held here, not per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import warnings
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ClientCapabilities, NotificationParams, RootsCapability

from ..errors import InvalidInput
from ..services import vocabulary as v
from .handshake import MODERN_VERSIONS

log = logging.getLogger("hindsight.server")

ASK_SECONDS = 5.0  # a client that does not answer roots/list by then is taken to have none


def name_of_root(uri: str) -> tuple[str, str] | None:
    """(project name, source) for one root URI: 'git remote' or 'folder'; None if it is not
    a local folder or gives no usable name."""
    path = v.folder_of(uri)
    if path is None:
        return None
    url = _origin(Path(path))
    found = [(v.from_remote(url), "git remote")] if url else []
    found.append((v.from_folder(path), "folder"))
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
        return v.origin_url(config.read_text(errors="replace")) if config.is_file() else None
    except OSError:
        return None


def checkout_of(folder: Path, home: Path | None = None) -> Path | None:
    """The git checkout `folder` is in (it, or the nearest folder above with a .git), not
    looking at or above the home folder or /; None when there is none."""
    home = home or Path.home()
    try:
        folder = folder.resolve()
        for candidate in (folder, *folder.parents):
            if candidate == home or candidate == candidate.parent:
                return None
            if (candidate / ".git").exists():
                return candidate
    except OSError:
        return None
    return None


def named_folder(folder: Path, *, checkout_only: bool, home: Path | None = None) -> tuple[str, str, str] | None:
    """(root URI, project name, source) for a project folder: its checkout's, named as a root
    is; a folder that is not in a checkout by its own name unless `checkout_only`. Never /
    or the home folder."""
    home = (home or Path.home()).resolve()
    try:
        folder = folder.resolve()
        if not folder.is_dir() or folder == home or folder == folder.parent:
            return None
    except OSError:
        return None
    root = checkout_of(folder, home)
    if root is None and checkout_only:
        return None
    uri = (root or folder).as_uri()
    found = name_of_root(uri)
    return (uri, *found) if found else None


def call_meta(ctx: Any) -> dict[str, Any]:
    """A call's `_meta`, as a plain dict ({} when it has none)."""
    meta = getattr(getattr(ctx, "request_context", None), "meta", None)
    if meta is None:
        return {}
    try:
        return meta.model_dump(by_alias=True) if hasattr(meta, "model_dump") else dict(meta)
    except Exception:
        return {}


def _codex_turn(meta: dict[str, Any]) -> dict[str, Any]:
    turn = meta.get("x-codex-turn-metadata")
    if isinstance(turn, str):
        with contextlib.suppress(ValueError):
            turn = json.loads(turn)
    return turn if isinstance(turn, dict) else {}


def session_in_call(meta: dict[str, Any]) -> str | None:
    """The client's session id a call carries (Codex: `sessionId`)."""
    found = meta.get("sessionId") or _codex_turn(meta).get("session_id")
    return found if isinstance(found, str) and found.strip() else None


def folder_in_call(meta: dict[str, Any]) -> str | None:
    """The workspace folder a call names (Codex: x-codex-turn-metadata.workspaces)."""
    workspaces = _codex_turn(meta).get("workspaces")
    if isinstance(workspaces, dict):
        return next((w for w in workspaces if isinstance(w, str) and w.startswith("/")), None)
    return None


class OpenProjects:
    """The session's open project: the roots as project names, kept current, else the
    project folder's (see the module's docstring for the order)."""

    def __init__(
        self,
        default: str | None,
        folder: tuple[str, str, str] | None = None,
        launch: tuple[str, str, str] | None = None,
    ):
        self.default = default  # HINDSIGHT_PROJECT
        self.folder = folder  # (root URI, name, source) of the configured project folder
        self.launch = launch  # the same for the launch folder's git checkout (2026-07-28 only)
        self._modern = False  # a call on 2026-07-28 came: the launch folder counts
        self.names: tuple[str, ...] | None = None  # None: not known (never asked, or no roots)
        self._asking: asyncio.Task | None = None
        self._named: dict[str, tuple[str, str, str] | None] = {}  # a call's workspace folder -> its project
        self._opening: Any = None

    @classmethod
    def of_session(cls, settings: Any, launch_dir: str | None) -> "OpenProjects":
        """The configured project folder's project, and the launch folder's checkout's."""
        folder = None
        if settings.project_dir is not None:
            folder = named_folder(Path(settings.project_dir), checkout_only=False)
            if folder is None:
                log.warning("the project folder %s is not a folder that names a project; ignored", settings.project_dir)
            else:
                log.info("open project %r from the folder %s (%s)", folder[1], folder[0], folder[2])
        launch = named_folder(Path(launch_dir), checkout_only=True) if launch_dir is not None else None
        return cls(settings.project, folder, launch)

    async def record_folder(self, opening: Any) -> None:
        """Record the configured project folder once the services are open (the lifespan
        calls it; later folders, a call's or the launch folder's, are recorded when used)."""
        self._opening = opening
        if self.folder is not None:
            await _record(opening, [self.folder])

    def _record_later(self, folder: tuple[str, str, str]) -> None:
        if self._opening is not None:
            asyncio.ensure_future(_record(self._opening, [folder]))

    def _of_call(self, ctx: Any) -> tuple[str, str, str] | None:
        """The project of the workspace the call names, named once per folder."""
        path = folder_in_call(call_meta(ctx))
        if path is None:
            return None
        if path not in self._named:
            self._named[path] = named_folder(Path(path), checkout_only=False)
            if self._named[path] is not None:
                self._record_later(self._named[path])
        return self._named[path]

    def register(self, mcp: MCPServer) -> None:
        server = mcp._lowlevel_server
        server.add_notification_handler("notifications/initialized", NotificationParams, self._refresh)
        server.add_notification_handler("notifications/roots/list_changed", NotificationParams, self._refresh)

    async def _refresh(self, ctx: Any, _params: Any) -> None:
        if _has_roots(ctx.session):
            self._asking = asyncio.ensure_future(self._ask(ctx.session, ctx.lifespan_context))

    async def _ask(self, session: Any, opening: Any) -> None:
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
            await _record(opening, named)

    def known(self) -> tuple[str, ...]:
        """The open projects as last heard, without asking (for reads that have no call)."""
        if self.names:
            return self.names
        if self.folder is not None:
            return (self.folder[1],)
        if self.launch is not None and self._modern:
            return (self.launch[1],)
        return (self.default,) if self.default else ()

    async def current(self, ctx: Any) -> tuple[str, ...]:
        """The open projects for a call: the roots' (waiting for an answer on its way; asking
        now if the client has roots and was never asked), else the folder's, else
        HINDSIGHT_PROJECT's."""
        if self._asking is None and ctx is not None and _has_roots(ctx.session):
            self._asking = asyncio.ensure_future(self._ask(ctx.session, ctx.request_context.lifespan_context))
        if self._asking is not None and not self._asking.done():
            await asyncio.wait([self._asking], timeout=ASK_SECONDS)
        if not self.names and ctx is not None and (named := self._of_call(ctx)) is not None:
            return (named[1],)
        if ctx is not None and not self._modern and self.launch is not None and _modern(ctx.session):
            self._modern = True
            log.info("open project %r from the launch folder %s (%s)", self.launch[1], self.launch[0], self.launch[2])
            self._record_later(self.launch)
        return self.known()


async def _record(opening: Any, folders: list[tuple[str, str, str]]) -> None:
    """Record roots or project folders (root URI, project name, source) in project_roots."""
    try:
        services = await opening.ready()
        await services.memories.roots_seen(services.settings.agent_id, folders)
    except Exception as exc:
        log.warning("could not record the project folder(s): %s", exc)


def _modern(session: Any) -> bool:
    try:
        return str(session.protocol_version) in MODERN_VERSIONS
    except Exception:
        return False


def _has_roots(session: Any) -> bool:
    """Whether the client can be asked for its roots: it declares them, on a connection of
    the handshake era (2026-07-28 has no server-to-client requests)."""
    if _modern(session):
        return False
    try:
        return bool(session.check_client_capability(ClientCapabilities(roots=RootsCapability())))
    except Exception:
        return False
