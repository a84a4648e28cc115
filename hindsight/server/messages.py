"""One JSON-RPC message as a client sent it (a line on stdio, a request's body over HTTP),
checked before the SDK sees it: the message, or the error it gets, one line in our words
with the request's id where it has one (the SDK's own answer is a pydantic dump with `id:
null`). -32700 when it is not UTF-8 or not JSON; -32600 when it is JSON but not one message
we take: a batch or an empty batch (MCP has had none since 2025-06-18), not an object, no
`method`, a field of the wrong kind, a lone surrogate, nested deeper than MAX_DEPTH.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

import mcp_types as types
from mcp_types import INVALID_REQUEST, PARSE_ERROR
from pydantic import ValidationError

MAX_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_KINDS = {str: "a string", int: "a number", float: "a number", bool: "true or false", type(None): "null"}


class Refusal(NamedTuple):
    """The JSON-RPC error a message gets instead of an answer."""

    id: str | int | None
    code: int
    message: str

    def error(self) -> types.JSONRPCError:
        return types.JSONRPCError(
            jsonrpc="2.0", id=self.id, error=types.ErrorData(code=self.code, message=self.message)
        )

    def json(self) -> str:
        """The error as one line of JSON, `id` included when it is null."""
        return self.error().model_dump_json(by_alias=True, exclude_unset=True)


def check(data: bytes, what: str = "message") -> tuple[types.JSONRPCMessage | None, Refusal | None]:
    """(message, None) for one to serve; (None, refusal) for one that cannot be served; (None,
    None) for nothing but white space. `what` names it in the refusal: "line", "body"."""
    if not data.strip():
        return None, None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, Refusal(None, PARSE_ERROR, f"Parse error: the {what} is not UTF-8 text")
    try:
        message = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return None, Refusal(None, INVALID_REQUEST, f"Invalid Request: nested deeper than {MAX_DEPTH} levels")
    except json.JSONDecodeError as exc:
        return None, Refusal(
            None, PARSE_ERROR, f"Parse error: the {what} is not JSON (at line {exc.lineno}, column {exc.colno})"
        )
    except ValueError as exc:  # NaN, Infinity: ours, from _reject_constant
        return None, Refusal(None, PARSE_ERROR, f"Parse error: {exc}")
    problem = _shape(message) or _problem(message)
    if problem:
        return None, Refusal(request_id(message), INVALID_REQUEST, f"Invalid Request: {problem}")
    try:
        return types.jsonrpc_message_adapter.validate_python(message), None
    except ValidationError:
        return None, Refusal(
            request_id(message),
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        )


def request_id(message: Any) -> str | int | None:
    """The message's id when it is one a request may have (a string or an integer), else None."""
    rid = message.get("id") if isinstance(message, dict) else None
    return rid if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)) else None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _shape(message: Any) -> str | None:
    """What is wrong with the envelope, naming the field, or None."""
    if isinstance(message, list):
        if not message:
            return "an empty batch; send one JSON-RPC message object (MCP has no batches since 2025-06-18)"
        return "a batch; send each JSON-RPC message on its own (MCP has no batches since 2025-06-18)"
    if not isinstance(message, dict):
        return f"a message is one JSON object, not {_JSON_KINDS.get(type(message), 'that')}"
    if "id" in message and request_id(message) is None and "method" in message:
        return "id: must be a string or an integer"
    if message.get("jsonrpc") != "2.0":
        return 'jsonrpc: must be "2.0"'
    if "method" not in message and "result" not in message and "error" not in message:
        return 'method: missing; a request or notification names its method (a string such as "tools/call")'
    if "method" in message and not isinstance(message["method"], str):
        return 'method: must be a string such as "tools/call"'
    if "method" in message and message.get("params") is not None and not isinstance(message["params"], dict):
        return "params: must be an object"
    return None


def _problem(message: dict) -> str | None:
    """Why a parsed message cannot be taken, or None. Iterative: depth is what it checks."""
    stack: list[tuple[Any, int]] = [(message, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"the message is nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, str) and _SURROGATE.search(value):
            return "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not Unicode text"
        if isinstance(value, dict):
            stack += [(k, depth) for k in value] + [(item, depth + 1) for item in value.values()]
        elif isinstance(value, list):
            stack += [(item, depth + 1) for item in value]
    return None
