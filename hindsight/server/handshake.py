"""The server's answers to a client's connect requests, built without the MCP SDK.

The front door (front.py) answers `initialize` (the handshake of protocols 2024-11-05 to
2025-11-25), or on protocol 2026-07-28 `server/discover` and the acknowledgement of
`subscriptions/listen`, from here while the SDK is still being imported. These are the SDK's
own answers for this server, written out: tests/e2e/test_front.py holds them equal to what
the SDK says for every version it serves, and at run time the SDK's answer to the same
request is compared with ours (front.py logs a difference). Anything else — another
version, a malformed request — gets None here and waits for the SDK, which answers it as it
would. Standard library only: this module is imported before anything heavy.
"""

from __future__ import annotations

from typing import Any

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")  # mcp_types.version's
MODERN_VERSIONS = ("2026-07-28",)
_META = "io.modelcontextprotocol/"


def capabilities(modern: bool) -> dict[str, Any]:
    """What the server offers; at 2026-07-28 list changes are announced (subscriptions/listen)."""
    changed = modern
    return {
        "completions": {},
        "logging": {},
        "prompts": {"listChanged": changed},
        "resources": {"listChanged": changed, "subscribe": changed},
        "tools": {"listChanged": changed},
    }


def _described(info: Any) -> bool:
    return isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)


def _enveloped(params: dict) -> bool:
    """Whether a request carries a usable 2026-07-28 envelope (version, client, capabilities)."""
    meta = params.get("_meta")
    return (
        isinstance(meta, dict)
        and meta.get(_META + "protocolVersion") in MODERN_VERSIONS
        and _described(meta.get(_META + "clientInfo"))
        and isinstance(meta.get(_META + "clientCapabilities"), dict)
    )


def initialize(params: dict, server: dict[str, str], instructions: str) -> dict[str, Any] | None:
    asked = params.get("protocolVersion")
    if not (isinstance(asked, str) and isinstance(params.get("capabilities"), dict)):
        return None
    if not _described(params.get("clientInfo")) or "_meta" in params:
        return None
    chosen = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "protocolVersion": chosen,
        "capabilities": capabilities(False),
        "serverInfo": server,
        "instructions": instructions,
    }


def discover(server: dict[str, str], instructions: str) -> dict[str, Any]:
    return {
        "cacheScope": "private",
        "capabilities": capabilities(True),
        "instructions": instructions,
        "resultType": "complete",
        "supportedVersions": list(MODERN_VERSIONS),
        "ttlMs": 0,
        "_meta": {_META + "serverInfo": server},
    }


LISTENED = {"toolsListChanged", "promptsListChanged", "resourcesListChanged"}
SUBSCRIPTION = _META + "subscriptionId"


def acknowledged(request_id: Any, params: dict) -> dict[str, Any] | None:
    """The notification that opens a `subscriptions/listen` stream: the list changes asked
    for (all of which this server announces). A listen for resource updates waits for the SDK."""
    asked = params.get("notifications")
    if not isinstance(asked, dict) or not set(asked) <= LISTENED or not all(v is True for v in asked.values()):
        return None
    return {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {SUBSCRIPTION: request_id}, "notifications": asked},
    }


class Door:
    """What the front door answers, request by request, while the SDK loads: the opening
    request (`initialize`, or an enveloped `server/discover`), and on a 2026-07-28 connection
    also the client's further `server/discover` and the acknowledgement that opens its
    `subscriptions/listen` stream (Claude Code waits for both before it counts the server
    connected, and gives each 3 s). The SDK answers the same requests again later; those
    answers are the ones dropped (front.py)."""

    def __init__(self, name: str, version: str, instructions: str):
        self.server = {"name": name, "version": version}
        self.instructions = instructions
        self.era: str | None = None  # "legacy" or "modern" once the opening request is answered; "sdk": not ours

    def reply(self, message: Any) -> dict[str, Any] | None:
        """The message to send for a request (a response or a notification), or None."""
        if self.era == "sdk" or not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return None
        if "id" not in message or "method" not in message:
            return None
        params, method, rid = message.get("params"), message["method"], message["id"]
        opening = self.era is None
        if not isinstance(params, dict):
            self.era = self.era or "sdk"
            return None
        if opening and method == "initialize" and (result := initialize(params, self.server, self.instructions)):
            self.era = "legacy"
            return {"jsonrpc": "2.0", "id": rid, "result": result}
        if self.era in (None, "modern") and method == "server/discover" and _enveloped(params):
            self.era = "modern"
            return {"jsonrpc": "2.0", "id": rid, "result": discover(self.server, self.instructions)}
        if self.era == "modern" and method == "subscriptions/listen" and _enveloped(params):
            return acknowledged(rid, params)
        if opening:
            self.era = "sdk"
        return None
