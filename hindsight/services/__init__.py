"""The services: the one door between the faces (hindsight.server, .cli, .ui) and the parts
(store, recall, views, upkeep, hooks, data, embedders, rules). A face imports this package,
config, errors and its own modules, and nothing else of ours (tests/unit/test_layout.py).

    compose   Services: the parts, built once (memories, recall, views, maintenance, hooks,
              the embedders, whom a client may act for)
    door      the verbs beyond the parts' own: record (a RecordRequest), hook, restore,
              forget_archived, maintain, schedule, reembed, export, import_, create_token,
              revoke_token, list_tokens, caller, healthy
    start     opened, serving, opening, showing, start_early, prepare
    vocabulary  what of the rules a face may use: limits, memory types, the recall cut, the
              checks a face runs on arguments of its own, how a root names its project

The parts' verbs the faces call through a Services: memories.keep(StoreRequest) ->
StoreResult, .get(GetRequest) -> Memory, .update(UpdateRequest) -> Memory,
.invalidate(InvalidateRequest) -> Memory, .delete(DeleteRequest) -> its id,
.list(ListRequest) -> Listing, .dismiss_conflict(DismissRequest), .history, .roots_seen;
recall.ask(RecallRequest) -> RecallResult (its Hits); views.overview, .stats,
.memory_page, .shown, .ids_starting, .conflicts, .archive, .agents. Each request is frozen
and checked once where it is built (store_request, recall_request, record_request,
get_request, update_request, invalidate_request, delete_request, dismiss_request,
list_request: every
problem names its field). The results have real ids and datetimes; a face turns them into
JSON when it answers (.json(): the keys the tools have always returned). Below, what a face
needs before it has a Services: the request and result types and the request builders, the
limits its argument schemas state, and the checks of an import file's lines.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..data.records import Listing, Memory
from ..errors import InvalidInput
from ..hooks.events import HookEvent
from ..hooks.events import from_fields as hook_event
from ..hooks.service import Answer
from ..hooks.sockets import runtime_dir as hook_socket_dir
from ..hooks.sockets import socket_for as hook_socket_for
from ..recall.request import Request as RecallRequest
from ..recall.request import check as recall_request
from ..recall.result import Hit, RecallResult
from ..rules.policy import Interaction as RecordRequest
from ..rules.timeparse import Window as TimeWindow
from ..store.interactions import MAX_TOOL_RESULTS
from ..store.interactions import parse as record_request
from ..store.requests import Delete as DeleteRequest
from ..store.requests import Dismiss as DismissRequest
from ..store.requests import Get as GetRequest
from ..store.requests import Invalidate as InvalidateRequest
from ..store.requests import List as ListRequest
from ..store.requests import Update as UpdateRequest
from ..store.requests import delete as delete_request
from ..store.requests import dismiss as dismiss_request
from ..store.requests import get as get_request
from ..store.requests import invalidate as invalidate_request
from ..store.requests import listing as list_request
from ..store.requests import update as update_request
from ..store.result import StoreResult
from ..store.write import MAX_TTL_SECONDS
from ..store.write import Write as StoreRequest
from ..store.write import check as store_request
from .compose import CALLER, QUERY_VECTORS, Services, acting_for
from .start import START_SECONDS, Opening, opened, opening, prepare, serving, showing, start_early

__all__ = [
    "CALLER",
    "MAX_TOOL_RESULTS",
    "MAX_TTL_SECONDS",
    "QUERY_VECTORS",
    "START_SECONDS",
    "Answer",
    "DeleteRequest",
    "DismissRequest",
    "GetRequest",
    "Hit",
    "HookEvent",
    "InvalidateRequest",
    "ListRequest",
    "Listing",
    "Memory",
    "Opening",
    "RecallRequest",
    "RecallResult",
    "RecordRequest",
    "Services",
    "StoreRequest",
    "StoreResult",
    "TimeWindow",
    "UpdateRequest",
    "acting_for",
    "bad_lines",
    "delete_request",
    "dismiss_request",
    "get_request",
    "hook_event",
    "hook_socket_dir",
    "hook_socket_for",
    "invalidate_request",
    "list_request",
    "opened",
    "opening",
    "prepare",
    "read_import",
    "recall_request",
    "record_request",
    "serving",
    "showing",
    "start_early",
    "store_request",
    "update_request",
]


def read_import(lines: Iterable[str], skip_bad: bool = False) -> tuple[list[dict[str, Any]], list[InvalidInput]]:
    """Every line of an import file checked (store.import_lines.read_records): the records,
    and the bad lines' errors (a bad line stops the import unless `skip_bad`)."""
    from ..store.import_lines import read_records

    return read_records(lines, skip_bad)


def bad_lines(bad: list[InvalidInput]) -> str:
    """The bad lines' errors, one per line (the first 20, then a count)."""
    from ..store.import_lines import bad_lines as listed

    return listed(bad)
