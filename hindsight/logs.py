"""One logging setup for the server, the CLI and the scheduler.

Logs go to stderr only: the server's stdout belongs to MCP, the CLI's to data; secrets are
redacted from every record.
HINDSIGHT_LOG_LEVEL (default INFO) sets the level of hindsight's own loggers, which say
little: the server's start, the scheduler's next run and what each run did. Libraries
(alembic, apscheduler, mcp, httpx, pgserver) speak only at WARNING and above, unless the
level is DEBUG, which shows everything.
"""

from __future__ import annotations

import logging
import os
import sys

from .config import LOG_LEVELS
from .rules.privacy import LogRedactor

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
DEFAULT = "INFO"


class _Handler(logging.StreamHandler):
    """hindsight's handler; it writes to whatever sys.stderr is when a record comes (so a
    test capturing stderr sees the lines), and replaces itself when set up again."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def level_from_env(env: dict[str, str] | None = None) -> str:
    """HINDSIGHT_LOG_LEVEL if it is a known level, else the default (a bad value is
    reported by Settings.from_env with the allowed ones)."""
    raw = ((os.environ if env is None else env).get("HINDSIGHT_LOG_LEVEL") or DEFAULT).strip().upper()
    return raw if raw in LOG_LEVELS else DEFAULT


def setup(level: str | None = None) -> None:
    """Configure the root logger once per process (calling it again re-applies the level)."""
    level = (level or level_from_env()).upper()
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(handler)
    handler = _Handler()
    handler.setFormatter(logging.Formatter(FORMAT, DATE_FORMAT))
    handler.addFilter(LogRedactor())  # a secret in a message or traceback never reaches the log
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if level == "DEBUG" else logging.WARNING)
    logging.getLogger("hindsight").setLevel(level)
