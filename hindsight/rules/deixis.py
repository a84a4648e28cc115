"""A question that points at the open project instead of naming it ("this repo", "here",
"这个仓库", "这里"): pure rules, no I/O. Recall searches with the project's name beside such
a question, and ranks the open project's memories above global ones for it."""

from __future__ import annotations

import re
from typing import Sequence

_EN = re.compile(
    r"\b(?:this|our|the current)\s+(?:repo|repository|project|codebase|code\s*base|service|app|application"
    r"|package|module|workspace)\b"
    r"|\b(?:in|from|around)\s+here\b|\bhere(?=[?!.\s]*$)|\bfor\s+this(?=[?!.\s]*$)",
    re.IGNORECASE,
)
_ZH = re.compile(r"这个?(?:仓库|项目|服务|代码库|工程|应用|repo)|本(?:仓库|项目|服务)|这里|这儿|此处|这边")


def points_at_project(query: str) -> bool:
    """Whether the question points at the project it is asked in without naming it."""
    return bool(_EN.search(query) or _ZH.search(query))


def open_project(query: str, open_projects: Sequence[str]) -> str | None:
    """The one open project a pointing question is about (None: no single project open, the
    question names it already, or does not point)."""
    if len(open_projects) != 1:
        return None
    project = open_projects[0]
    if project.lower() in query.lower() or not points_at_project(query):
        return None
    return project
