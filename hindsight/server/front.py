"""The stdio server's front door: stdin read, and the client's opening request answered,
from the process's first moments.

Importing the MCP SDK takes about a second on the development machine (its protocol types
are pydantic models, for two protocol eras), and Claude Code's version probe gives up
sooner: a server that reads nothing until the SDK is up connects late or not at all. So the
process claims the wire at once and a thread reads it: the connect requests — `initialize`,
or on 2026-07-28 `server/discover` and the opening of `subscriptions/listen` — are answered
from handshake.py, and every line is kept, in order, for the SDK, which is fed them once it
is up (`lines`). The SDK thus sees those requests too and sets up its session as usual; its
own answers to them are dropped, after being compared with ours (a difference is logged).
Nothing else is answered here. Standard library only: this module runs before anything heavy
is imported.

Like the SDK's transport, it moves fd 0 and 1 aside: fd 0 then reads /dev/null and fd 1
writes to stderr, so a library printing to stdout can never corrupt the protocol.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import queue
import threading
from typing import Any

from .handshake import SUBSCRIPTION

log = logging.getLogger("hindsight.server")

MAX_LINE = 4 * 1024 * 1024  # the largest call (32 KB content, 16 KB metadata, 50 tool results) fits
CONNECT_LINE = 64 * 1024  # a connect request longer than this is left to the SDK
BOM = b"\xef\xbb\xbf"


class Overlong:
    """In `lines`: a line longer than MAX_LINE was read and dropped."""


OVERLONG = Overlong()


def _claim() -> tuple[int, int]:
    """Private copies of the wire's fds; fd 0 reads /dev/null and fd 1 writes to stderr."""
    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


class Front:
    """The wire: `lines` (bytes, OVERLONG, then None at end of input) for the SDK's
    transport, `write` for every message out, `door` (handshake.Door) answering the connect
    requests until the SDK serves (`handover`)."""

    def __init__(self, door: Any):
        self._door = door
        self._wire_in, self._wire_out = _claim()
        self._out = os.fdopen(self._wire_out, "wb", closefd=False)
        self._lock = threading.Lock()
        self._sent: dict[str, dict[str, Any]] = {}  # what we answered, by request id or "ack " + subscription id
        self._answering = True
        self.lines: queue.SimpleQueue[bytes | Overlong | None] = queue.SimpleQueue()
        threading.Thread(target=self._read, name="hindsight-stdin", daemon=True).start()

    def handover(self) -> None:
        """The SDK reads the lines from now on and answers everything itself."""
        self._answering = False

    def _read(self) -> None:
        stdin = os.fdopen(self._wire_in, "rb", closefd=False)
        try:
            while line := stdin.readline(MAX_LINE + 1):
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    while (rest := stdin.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                        pass
                    self.lines.put(OVERLONG)
                    continue
                if self._answering and len(line) <= CONNECT_LINE:
                    self._answer(line)
                self.lines.put(line)
        except (OSError, ValueError) as exc:  # the wire broke: the same as its end
            log.info("stdin closed: %s", exc)
        finally:
            self.lines.put(None)

    def _answer(self, line: bytes) -> None:
        try:
            message = json.loads(line.removeprefix(BOM))
        except ValueError:
            return
        try:
            reply = self._door.reply(message)
        except Exception:  # never fatal here: the SDK answers it
            log.exception("could not answer a connect request early")
            return
        if reply is None:
            return
        self._sent[_key_of(reply)] = reply
        self.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")))

    def answered(self, data: str) -> bool:
        """Whether the SDK's message `data` (a line of JSON) was sent here already: it is then
        not sent again. A difference from ours is logged."""
        if not self._sent:
            return False
        sent = json.loads(data)
        ours = self._sent.pop(_key_of(sent), None)
        if ours is None:
            return False
        if {k: v for k, v in sent.items() if k != "jsonrpc"} != {k: v for k, v in ours.items() if k != "jsonrpc"}:
            log.warning("an early answer differs from the SDK's: %s vs %s", ours, sent)
        return True

    def write(self, text: str) -> None:
        """One message out (a line of JSON)."""
        with self._lock:
            self._out.write(text.encode("utf-8") + b"\n")
            self._out.flush()

    def close(self) -> None:
        """Give fds 0 and 1 back (the reading thread may stay blocked on stdin; it holds nothing)."""
        os.dup2(self._wire_out, 1)
        os.dup2(self._wire_in, 0)


def _key_of(message: dict[str, Any]) -> str:
    """A response by its id; a listen stream's acknowledgement by its subscription id."""
    if "id" in message:
        return json.dumps(message["id"])
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    return f"{message.get('method')} {json.dumps(meta.get(SUBSCRIPTION))}"
