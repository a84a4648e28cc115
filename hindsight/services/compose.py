"""The composition root: the parts every face works with, built here and nowhere else.
The pool, the embedder, the write path (Memories), the read path (Recall), the operators'
read model (Views), maintenance, the hooks, recall's access bookkeeping, and whom a client
may act for. With HINDSIGHT_READ_DATABASE_URL, `reads` (read replicas,
hindsight.data.replicas) serves Recall, Memories' reads and the views; `db`, the primary,
serves every write, the access bookkeeping and maintenance. The verbs the faces call are
services.door's; the opening and closing, services.start's.

The embedder is loaded only by a command that reaches for it (or at a server's start).
`Services.agent` is the operator's (any agent); `acting_for` is a client's (the allow-list,
or over HTTP the request's token: `CALLER`, set by hindsight.server.http for the request).
"""

from __future__ import annotations

import dataclasses
import logging
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import tzinfo
from functools import cached_property
from typing import Callable

from ..config import Settings
from ..data.db import Database, Reader
from ..embedders import base as embed
from ..embedders import bulk as bulk_embed
from ..embedders.base import AsyncEmbedder, Embedder
from ..errors import AgentRefused
from ..hooks.service import Hooks
from ..recall.search import AccessHook, Recall
from ..rules import validate as v
from ..store.memories import Memories
from ..store.prepare import WritePolicy
from ..store.tokens import Caller
from ..upkeep.maintenance import Maintenance
from ..views.read_model import Views
from .door import Door

log = logging.getLogger("hindsight.server")
CALLER: ContextVar[Caller | None] = ContextVar("hindsight_caller", default=None)  # an HTTP request's token


def acting_for(settings: Settings, given: str | None, field: str = "agent_id", *, by_token: bool = False) -> str:
    """The agent a client's call acts for: the configured one, or another the allow-list
    names. The refusal is the same whether that agent has memories or not; it names the fix
    for the transport: HINDSIGHT_ALLOWED_AGENTS, or `by_token` (HTTP) another token."""
    if given is None:
        return settings.agent_id
    agent = v.agent_id(given, field)
    if not settings.may_act_for(agent):
        raise AgentRefused(field, agent, (settings.agent_id, settings.allowed_agents) if by_token else None)
    return agent


@dataclass
class Services(Door):
    settings: Settings
    db: Database
    url: str
    on_access: AccessHook | None = None  # what recall returned, for the access bookkeeping
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)
    reads: Reader | None = None  # where reads go: the replicas (Reads), or None: db

    def __post_init__(self) -> None:
        if self.reads is None:
            self.reads = self.db

    @cached_property
    def embedder(self) -> Embedder:
        return embed.create(self.settings)

    @cached_property
    def async_embedder(self) -> AsyncEmbedder:
        return AsyncEmbedder(self.embedder, remember=QUERY_VECTORS)

    @cached_property
    def memories(self) -> Memories:
        return Memories(self.db, self.async_embedder, self.write_policy, reads=self.reads)

    @cached_property
    def write_policy(self) -> WritePolicy:
        return WritePolicy.from_settings(self.settings)

    @cached_property
    def hooks(self) -> Hooks:
        """The IDE's lifecycle hooks (the `hook` tool; hindsight hooks install)."""
        return Hooks(self.db, self.memories, self.recall, tokens=self.settings.hook_tokens)

    @cached_property
    def recall(self) -> Recall:
        return Recall(self.reads or self.db, self.async_embedder, on_access=self.on_access, tz=self.tz)

    @cached_property
    def tz(self) -> tzinfo:
        """The zone relative times and the UI's days are counted in."""
        return self.settings.zone()

    @cached_property
    def views(self) -> Views:
        """What the operators' pages and commands read (the UI, `stats`, `show`)."""
        return Views(self.reads or self.db, self.db, self.memories, self.tz, self.decay_lambda)

    @cached_property
    def maintenance(self) -> Maintenance:
        """The nightly job (decay, archive, consolidation), for the scheduler and `hindsight maintain`."""
        return Maintenance(self.db, self.memories)

    @property
    def decay_lambda(self) -> float:
        return self.maintenance.config.decay_lambda

    @cached_property
    def bulk_embedder(self) -> Embedder:
        """The embedder for many texts at once: one engine per core (see bulk_embed)."""
        found = bulk_embed.create_bulk(self.settings)
        if hasattr(found, "close"):
            self._closers.append(found.close)
        return found

    def agent(self, given: str | None) -> str:
        """The agent an operator's command acts for: the one named (any, but a well-formed id:
        an empty --agent is refused, not taken for the configured one), else the configured one."""
        return self.settings.agent_id if given is None else v.agent_id(given, "agent")

    def acting_for(self, given: str | None) -> str:
        """The agent a client's call acts for (see `acting_for`): over HTTP, as the request's
        token pins it, exactly as HINDSIGHT_AGENT_ID and HINDSIGHT_ALLOWED_AGENTS pin stdio."""
        caller = CALLER.get()
        if caller is None:
            return acting_for(self.settings, given)
        pinned = dataclasses.replace(self.settings, agent_id=caller.agent_id, allowed_agents=caller.allowed_agents)
        return acting_for(pinned, given, by_token=True)


QUERY_VECTORS = 256  # recent questions whose embedding is kept (a repeat is not embedded again)
