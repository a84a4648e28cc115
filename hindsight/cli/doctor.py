"""The stdout check of `hindsight doctor`: start hindsight-server as an IDE would, ask for
its tools, and make sure every line it writes to stdout is a JSON-RPC message (anything
else — a print, a library's banner — breaks MCP clients)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading

HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hindsight-doctor", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _is_tools_answer(line: str) -> bool:
    try:
        return json.loads(line).get("id") == 2
    except (ValueError, AttributeError):
        return False


def converse(exe: str, timeout: float) -> tuple[list[str], int | None, str]:
    """Send the handshake, read stdout until tools/list is answered (a fresh database is
    migrated first, so that can take a while), then close stdin. (lines, exit code, stderr)"""
    proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got: queue.Queue = queue.Queue()
    errors: list[str] = []
    reader = threading.Thread(target=lambda: [got.put(x) for x in proc.stdout], daemon=True)
    reader.start()
    threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True).start()
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in HANDSHAKE))
    proc.stdin.flush()
    lines: list[str] = []
    try:
        while not any(_is_tools_answer(x) for x in lines):
            lines.append(got.get(timeout=timeout))
    except queue.Empty:
        pass
    proc.stdin.close()  # end of input: the server exits
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    reader.join(timeout=5)
    while not got.empty():
        lines.append(got.get())
    return [x for x in lines if x.strip()], proc.returncode, "".join(errors)


def stdout_check(exe: str, timeout: float = 120) -> tuple[bool, str]:
    lines, code, stderr = converse(exe, timeout)
    bad = []
    for line in lines:
        try:
            if json.loads(line).get("jsonrpc") != "2.0":
                bad.append(line)
        except (ValueError, AttributeError):
            bad.append(line)
    if bad:
        return False, f"the server wrote {len(bad)} non-MCP line(s) to stdout, e.g. {bad[0][:80]!r}"
    answer = next((json.loads(x) for x in lines if _is_tools_answer(x)), None)
    if answer is None:
        return False, f"no answer to tools/list (exit {code}): {stderr.strip()[-200:]}"
    return True, f"stdout clean: {len(lines)} JSON-RPC messages, {len(answer['result']['tools'])} tools"
