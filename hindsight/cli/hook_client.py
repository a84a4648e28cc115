"""`hindsight-hook --client gemini|cursor|codex`: the command a client's command hooks run
(Claude Code calls the server's `hook` tool directly, with no process per event).

Standard library only, and it starts in tens of milliseconds: it reads the event the client
writes on stdin, finds the hindsight server this same client runs (the stdio server listens
on hooks-<its client's pid>.sock in the runtime folder; this command looks for the socket of
each of its own ancestors in turn), hands it the event and prints what it answers: the JSON
the client reads (`{}` when there is nothing to say). No server, no answer within the time,
anything else: it prints `{}` and exits 0, so a hook never blocks the user's prompt or tool.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from ..hooks.sockets import socket_for

WAIT_SECONDS = 12.0  # the server waits up to its HOOK_WAIT for its services; the client's timeout is larger
MAX_ANSWER = 4 * 1024 * 1024


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        pass
    try:  # macOS and others without /proc
        done = subprocess.run(["ps", "-o", "ppid=", "-p", str(pid)], capture_output=True, text=True, timeout=2)
        return int(done.stdout.strip()) if done.stdout.strip() else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def find_socket(start: int | None = None, depth: int = 8) -> Path | None:
    """The hook socket of the nearest ancestor that has one (the client that runs the hook)."""
    pid: int | None = start or os.getppid()
    for _ in range(depth):
        if not pid or pid <= 1:
            return None
        found = socket_for(pid)
        if found.exists():
            return found
        pid = _parent(pid)
    return None


def ask(path: Path, request: dict, wait: float = WAIT_SECONDS) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(wait)
        s.connect(str(path))
        s.sendall(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
        chunks, size = [], 0
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER or chunk.endswith(b"\n"):
                break
    return b"".join(chunks).decode("utf-8").strip()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="hindsight-hook", description=__doc__.split("\n\n")[0])
    ap.add_argument("--client", required=True, choices=("gemini", "cursor", "codex"), help="whose hook runs this")
    ap.add_argument("--event", help="the event, when the client does not name it in what it sends")
    args = ap.parse_args(argv)
    answer = "{}"
    try:
        event = json.loads(sys.stdin.read() or "{}")
        if args.event and isinstance(event, dict):
            event.setdefault("hook_event_name", args.event)
        path = find_socket()
        if path is not None and isinstance(event, dict):
            answer = ask(path, {"client": args.client, "event": event}) or "{}"
    except Exception as exc:  # fail open: the hook says nothing, the client goes on
        print(f"hindsight-hook: {exc}", file=sys.stderr)
        answer = "{}"
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
