"""Text too long to keep whole (a tool's output): keep what matters and say what was cut.

What matters in a long log is its beginning (the command, the first symptoms), its end
(the outcome, the last traceback) and the lines that name an error in between. `clip`
keeps those three within a size limit and puts a marker where it cut: "[… 41,230 bytes
cut: head, tail and error lines kept …]". Pure.
"""

from __future__ import annotations

import re
from typing import Callable

ERROR_LINE = re.compile(
    r"(?i)\b(?:error|errors|exception|traceback|failed|failure|fatal|panic|denied|refused|timed? ?out|"
    r"not found|no such|cannot|can't|unable|segmentation fault|killed|abort(?:ed)?)\b|^\s*E\s|错误|失败|异常"
)
MAX_ERROR_LINE = 400  # characters kept of one error line from the middle


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def clip(text: str, limit: int, size: Callable[[str], int] = utf8_size, unit: str = "bytes") -> tuple[str, int]:
    """(text, 0) if it fits in `limit`; else (head + error lines + tail with markers, how
    much was cut), the result within `limit` measured by `size`."""
    total = size(text)
    if total <= limit:
        return text, 0
    room = limit - 2 * (size(_marker(total, unit)) + 1)
    head = _edge(text, int(room * 0.4), size)
    tail = _edge(text[len(head) :], int(room * 0.35), size, from_end=True)
    middle = text[len(head) : len(text) - len(tail)]
    errors, used = [], size(head) + size(tail)
    for line in middle.splitlines():
        if ERROR_LINE.search(line):
            line = line.strip()[:MAX_ERROR_LINE]
            if used + size(line) + 1 > room:
                break
            errors.append(line)
            used += size(line) + 1
    cut = total - used
    marker = _marker(cut, unit)
    parts = [head.rstrip("\n"), marker] + ([*errors, marker] if errors else []) + [tail.lstrip("\n")]
    return "\n".join(parts), cut


def _marker(cut: int, unit: str) -> str:
    return f"[… {cut:,} {unit} cut: head, tail and error lines kept …]"


def _edge(text: str, budget: int, size: Callable[[str], int], from_end: bool = False) -> str:
    """The longest start (or end) of `text` within `budget`, ending (or starting) at a line
    break when one falls in its last fifth."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if size(text[-mid:] if from_end else text[:mid]) <= budget else (lo, mid - 1)
    if lo == 0:
        return ""
    piece = text[-lo:] if from_end else text[:lo]
    brk = piece.find("\n", 0, len(piece) // 5) if from_end else piece.rfind("\n", len(piece) * 4 // 5)
    if brk >= 0:
        piece = piece[brk + 1 :] if from_end else piece[: brk + 1]
    return piece
