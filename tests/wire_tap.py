"""A recording tap between an MCP client and the stdio server it launches:

    python wire_tap.py LOG [ERRLOG] -- hindsight-server [args]
    python wire_tap.py LOG hindsight-server [args]

starts the server with the tap's own stdin and stdout passed through (its stderr too, or
appended to ERRLOG when given), and appends to
LOG one JSON line per message ({"t": seconds since the tap started, "dir": "in" | "out",
"msg": the message}) and the server's exit ({"exit": code}). SIGINT and SIGTERM are passed
on to the server and the tap exits with it, so the client sees the server's own shutdown.
Standard library only, so that it adds little to the server's start.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time


def main() -> int:
    split = sys.argv.index("--") if "--" in sys.argv else 1  # a client may eat the "--" (the Inspector does)
    log_path, errlog, command = sys.argv[1], sys.argv[2:split], sys.argv[max(split + 1, 2) :]
    started = time.monotonic()
    log = open(log_path, "a", buffering=1)
    lock = threading.Lock()

    def record(direction: str, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = {"unparsed": line[:500].decode("utf-8", "replace")}
        with lock:
            log.write(json.dumps({"t": round(time.monotonic() - started, 4), "dir": direction, "msg": msg}) + "\n")

    stderr = open(errlog[0], "ab") if errlog else None
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, bufsize=0)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, _frame: server.send_signal(signum))

    def pump_in() -> None:
        for line in iter(sys.stdin.buffer.readline, b""):
            record("in", line)
            try:
                server.stdin.write(line)
                server.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
        server.stdin.close()

    threading.Thread(target=pump_in, daemon=True).start()
    out = sys.stdout.buffer
    for line in iter(server.stdout.readline, b""):
        record("out", line)
        out.write(line)
        out.flush()
    code = server.wait()
    with lock:
        log.write(json.dumps({"t": round(time.monotonic() - started, 4), "exit": code}) + "\n")
    return code


if __name__ == "__main__":
    code = main()
    os._exit(code if code >= 0 else 128 - code)
