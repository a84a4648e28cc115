"""A question that points at the open project instead of naming it ("this repo", "here",
"这个仓库", "这里"), or that names a project ("What did we ship on basket in May?"): pure
rules, no I/O. Recall ranks the project a question points at or names above global ones (and
a named project's memories as if it were open); the relevance decision reads the pointing
words as the project, a word its memories hold (rules.relevance.coverage). The question is
searched as asked: its project's name added to the query found nothing more (benchmarks/README.md)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .bilingual import STOP_EN
from .text import whole_word_at

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


def without_pointer(query: str) -> tuple[str, str]:
    """(the question with the words that point at the project left out, those words): "Which
    package manager does this repo use?" asks about the project, not about a repo."""
    said = [m.group() for pattern in (_EN, _ZH) for m in pattern.finditer(query)]
    return _ZH.sub(" ", _EN.sub(" ", query)), " ".join(said)


def open_project(query: str, open_projects: Sequence[str]) -> str | None:
    """The one open project a pointing question is about (None: no single project open, the
    question names it already, or does not point)."""
    if len(open_projects) != 1:
        return None
    project = open_projects[0]
    if names_project(query, project) or not points_at_project(query):
        return None
    return project


@lru_cache(maxsize=4096)
def names_project(query: str, project: str) -> bool:
    """Whether the question names the project as a word of its own ("on basket", "basket's
    release", "basket 的埋点"), in any case; not a name that is a common word ("it", "the").
    Found with str.find, once per question and project (recall asks for every candidate)."""
    name = project.strip().lower()
    if len(name) < 2 or len(name) > 200 or name in STOP_EN:
        return False
    return next(whole_word_at(query.lower(), name), None) is not None
