"""Where a stdio server's hook socket is (server/hook_socket.py) and where `hindsight-hook`
(cli/hook_client.py) looks for it. Standard library only: the hook command imports it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def runtime_dir() -> Path:
    """Where the stdio servers' hook sockets are: $XDG_RUNTIME_DIR/hindsight, else a folder of
    this user's in the temporary folder (short enough for a socket's path)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and Path(base).is_dir():
        return Path(base) / "hindsight"
    return Path(tempfile.gettempdir()) / f"hindsight-{os.getuid()}"


def socket_for(pid: int) -> Path:
    """The hook socket of the server whose client is process `pid`."""
    return runtime_dir() / f"hooks-{pid}.sock"
