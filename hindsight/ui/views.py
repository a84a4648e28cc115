"""Pages as HTML, from plain data. No I/O; every value is escaped by `fmt`.

The routes (app.py) call the pages by their names here; the pages live in their own modules:
    widgets        the request context and the pieces every page uses
    page_overview  overview
    page_search    search (recall, explained)
    page_memory    memory (one memory: content, relations, corrections, history)
    page_lists     memories, conflicts, archive
"""

from __future__ import annotations

from .html import Safe, fmt
from .page_lists import archive, conflicts, memories
from .page_memory import memory
from .page_overview import overview
from .page_search import search
from .widgets import Ctx

__all__ = ["DONE", "Ctx", "archive", "conflicts", "error", "memories", "memory", "overview", "search"]

DONE = {  # notices after a correction: fixed words, never text from the request
    "forgotten": "Forgotten: the memory is deleted; its history keeps what happened, without its content.",
    "invalidated": "Invalidated: it is no longer recalled and stays as history.",
    "confirmed": "Confirmed: the older memory is superseded by the newer one (recorded in both histories).",
    "dismissed": "Dismissed: recall no longer ranks the older memory under the newer one. "
    "A dismissal is not written to the memories' history.",
    "restored": "Restored from the archive.",
}


def error(status: int, message: str) -> Safe:
    return fmt(
        '<h1>{title}</h1><p class="error" role="alert">{m}</p>',
        title={400: "That did not work", 403: "Not allowed", 404: "Not found"}.get(status, "Error"),
        m=message,
    )
