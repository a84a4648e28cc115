"""The door: every verb a face (the MCP server, the CLI, the UI, the hook socket) calls that
is not a method of a part the services compose (`memories`, `recall`, `views`, `hooks`).
Each names its arguments and what it returns; the parts do the work. A face imports only
hindsight.services (this, the composition, the start), config, errors and its own modules
(tests/unit/test_layout.py)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from ..hooks import events
from ..hooks.service import Answer
from ..upkeep import maintenance

if TYPE_CHECKING:  # the parts below a rarely used verb are imported when it is first called
    from ..config import Settings
    from ..data.db import Database
    from ..embedders.base import Embedder
    from ..hooks.service import Hooks
    from ..rules.policy import Interaction
    from ..store.memories import Memories
    from ..store.prepare import WritePolicy
    from ..store.tokens import Caller
    from ..upkeep.maintenance import Maintenance


class Door:
    """The verbs; a mixin of services.compose.Services, which provides the parts below."""

    if TYPE_CHECKING:  # what Services provides: its fields, then its parts
        settings: Settings
        db: Database
        url: str

        @property
        def memories(self) -> Memories: ...

        @property
        def maintenance(self) -> Maintenance: ...

        @property
        def hooks(self) -> Hooks: ...

        @property
        def write_policy(self) -> WritePolicy: ...

        @property
        def bulk_embedder(self) -> Embedder: ...

    # -- what an agent hands over --------------------------------------------------------

    async def record(
        self, agent_id: str, event: Interaction, *, project: str | None = None, open_project: str | None = None
    ) -> dict[str, Any]:
        """An interaction (checked where it was built: services.record_request) kept if the
        write policy says it is worth remembering: {stored, reason, id}."""
        from ..store import interactions

        return await interactions.record(self.memories, agent_id, event, project, open_project)

    async def hook(
        self, agent_id: str, event: events.HookEvent, folder: tuple[str, str, str] | None, open_project: str | None,
        *, local: bool,
    ) -> Answer:  # fmt: skip
        """One IDE hook event for `agent_id`: its project from its folder (else the one open),
        captured unless turned off there; transcripts are read only by a server `local` to
        the client."""
        project = folder[1] if folder else open_project
        capture = events.capturing(self.settings.capture, event.cwd, folder)
        return await self.hooks.handle(agent_id, event, project, capture=capture, transcripts=local)

    # -- the operator's corrections and maintenance ----------------------------------------

    async def restore(
        self, agent_id: str, memory_id: uuid.UUID, now: datetime, call: str = "restore"
    ) -> dict[str, Any]:
        """Bring one memory back from the archive (a unit of work: its checks, the lock)."""
        return await maintenance.restore(self.db, agent_id, memory_id, now, call=call)

    async def forget_archived(self, agent_id: str, memory_id: uuid.UUID, call: str = "cli forget") -> dict[str, Any]:
        """Delete an archived memory for good (its history keeps the trail, without content)."""
        return await maintenance.forget_archived(self.db, agent_id, memory_id, call)

    async def maintain(self, now: datetime, *, dry_run: bool = False, trigger: str = "cli") -> dict[str, Any]:
        """One maintenance run (decay, archive, consolidation): its report."""
        return await self.maintenance.run(now, dry_run=dry_run, trigger=trigger)

    async def schedule(self) -> None:
        """The nightly maintenance, in this process, until SIGINT or SIGTERM."""
        from ..upkeep.schedule import serve

        await serve(self)

    def embedder_name(self) -> tuple[str, int]:
        """The configured embedder's name and dimension."""
        from ..embedders import base as embed

        return embed.describe(self.settings)

    async def reembed(
        self, *, batch_size: int = 64, limit: int | None = None, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any]:
        """Re-embed every memory with the configured embedder (resumable)."""
        from ..upkeep.reembed import reembed

        name, dimension = self.embedder_name()
        return await reembed(
            self.db, self.bulk_embedder, name, dimension, batch_size=batch_size, limit=limit, progress=progress
        )

    # -- moving memories -------------------------------------------------------------------

    async def export(self, agent_id: str) -> list[str]:
        """Every memory of the agent, live and archived, with its history: JSONL lines."""
        from ..store.transfer import export_lines

        return await export_lines(self.db, agent_id)

    async def import_(
        self, agent_id: str, records: list[dict[str, Any]], *, batch_size: int = 64,
        progress: Callable[[int], None] | None = None, on_conflict: str = "skip",
    ) -> dict[str, int]:  # fmt: skip
        """Checked import lines (read_import) written in one unit of work."""
        from ..store.importer import import_records

        return await import_records(
            self.db, self.bulk_embedder, agent_id, records, batch_size=batch_size, progress=progress,
            sealer=self.write_policy.sealer, on_conflict=on_conflict,
        )  # fmt: skip

    # -- tokens (HTTP) ---------------------------------------------------------------------

    async def create_token(
        self, agent_id: str, *, allow: list[str], name: str | None, expires: str | None, now: datetime
    ) -> dict[str, Any]:
        """A new token (shown once: only its hash is kept)."""
        from ..store import tokens

        return await tokens.create(self.db, agent_id, allow=allow, name=name, expires=expires, now=now)

    async def revoke_token(self, which: str) -> dict[str, Any]:
        """Revoke the one token `which` names (its name, or a prefix of its id)."""
        from ..store import tokens

        return await tokens.revoke(self.db, which)

    async def list_tokens(self) -> list[dict[str, Any]]:
        from ..store import tokens

        return await tokens.listed(self.db)

    async def caller(self, presented: str, now: datetime) -> Caller | None:
        """Whom a presented token stands for (None: malformed, unknown, expired, revoked)."""
        from ..store import tokens

        return await tokens.caller(self.db, presented, now)

    def database(self) -> tuple[str, str]:
        """The schema revision this build migrates to, and where the database is (its
        password hidden)."""
        from ..data import migrate
        from ..data.db import redact

        return migrate.head(), redact(self.url)

    async def healthy(self) -> None:
        """One round trip to the primary (raises when it is not there)."""
        await self.db.fetchval("health_check")
