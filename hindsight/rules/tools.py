"""Kinds of developer tool: a question that asks which tool of a kind ("Which linter …?", 用哪个时区)
is answered by a memory that names the tool ("Prefers ruff over flake8.", "… are UTC"), with no word
in common. So the keyword query carries the well-known tools of each kind asked instead of
the kind's name (recall/search.py), recall ranks a memory that names the kind or one of its tools first among
comparably relevant ones (rules/scoring.py, `value`), and such a memory holds the question's word
for the relevance decision (recall/judge.py). A question that names a kind and asks something
else ("When is it a bad time to load test staging?", 什么时候做压测) is read as it was. Pure: the lines
come from hindsight/data/devkinds.txt."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Iterable

from .bilingual import base_forms
from .text import CJK

# The words a question asks which one of: "Which linter should …", "what package manager does …"
# (a lookahead: "Which package manager and which linter …" asks both)
_WHICH_EN = re.compile(r"(?i)\b(?:which|what)(?:'s|\s+is|\s+are)?\s+(?=((?:[A-Za-z][\w'-]*\s+){0,3}[A-Za-z][\w'-]*))")
# 用什么包管理器, 哪个时区, 哪种 linter; not 为什么 (why), 什么时候 (when), 在哪 / 哪里 / 哪儿 (where)
_WHICH_ZH = re.compile(r"(?<!为)什么(?!时候)|(?<!在)哪[个种款家]?(?![里儿])")
_ZH_NEAR = 10  # characters after 什么 / 哪个 (or before it) in which the kind asked is named
_ASKS_A_TOOL = re.compile(r"(?:工具|东西|软件|框架|库)|[？?，,。！!]|$")  # 什么工具 / 哪个？: the kind stands before
_LATIN = re.compile(r"[A-Za-z][\w'-]*")


@dataclass(frozen=True)
class Kind:
    names: tuple[str, ...]  # lower case: "linter", "package manager", "时区"
    tools: tuple[str, ...]  # lower case: "ruff", "flake8"


@dataclass(frozen=True)
class ToolKinds:
    kinds: tuple[Kind, ...]

    @cached_property
    def _by_name(self) -> dict[str, Kind]:
        return {name: kind for kind in self.kinds for name in kind.names}

    @cached_property
    def _chinese(self) -> tuple[str, ...]:
        return tuple(name for name in self._by_name if CJK.search(name))

    def asked(self, question: str) -> tuple[Kind, ...]:
        """The kinds the question asks which one of: named in the words right after which / what
        (up to four), or right after 什么 / 哪个 (用哪个时区, 用什么 lint 工具), or just before one
        that asks for a tool or ends the question (压测用的是什么工具, 包管理器用的是哪个？); not
        one that asks for something else (数据库用的是哪个版本: a version). Each once, in order."""
        words = [w for m in _WHICH_EN.finditer(question) for w in m.group(1).split()]
        found = self._of(words)
        for m in _WHICH_ZH.finditer(question):
            after = question[m.end() : m.end() + _ZH_NEAR].lstrip()
            named = self._named_zh(after, first=True)
            if not named and _ASKS_A_TOOL.match(after):
                named = self._named_zh(question[max(0, m.start() - _ZH_NEAR) : m.start()], first=False)
            found += named
        return tuple(dict.fromkeys(found))

    def _named_zh(self, part: str, first: bool) -> list[Kind]:
        """The kinds named in part of a Chinese question: at its start (`first`), or anywhere."""
        if first:
            latin = _LATIN.match(part)
            words = self._of(_LATIN.findall(part)[:2]) if latin else []
            return words or [self._by_name[n] for n in self._chinese if part.startswith(n)]
        return self._of(_LATIN.findall(part)) + [self._by_name[n] for n in self._chinese if n in part]

    def _of(self, words: Iterable[str]) -> list[Kind]:
        """The kinds `words` name, two adjacent words before either alone ("package manager")."""
        low = [w.lower() for w in words]
        out: list[Kind] = []
        i = 0
        while i < len(low):
            pair = f"{low[i]} {low[i + 1]}" if i + 1 < len(low) else ""
            if pair in self._by_name:
                out.append(self._by_name[pair])
                i += 2
                continue
            out.extend(self._by_name[f] for f in (low[i], *base_forms(low[i])) if f in self._by_name)
            i += 1
        return out


def names(forms: Iterable[str], kinds: Iterable[Kind]) -> bool:
    """Whether one question word's forms (itself, its inflections, its glosses) name one of
    `kinds`: one of its one-word names, or both words of a two-word one (包管理器 → package
    manager)."""
    have = set(forms)
    return any(all(part in have for part in name.split()) for kind in kinds for name in kind.names)


def without_names(question: str, kinds: Iterable[Kind]) -> str:
    """The question without the names of `kinds` it asks which one of, for the keyword query:
    the answer names the tool ("Reinstall with Yarn 4"), and the tools stand in for the kind
    there; the kind's words would find the notes that use them in another sense ("The workspace
    package wasn't built" for "Which package manager …?"). A Latin name as whole words apart by
    spaces, plural or not, the longest first; a Chinese one anywhere. One pass over the question's
    words whatever the number of names (a prompt may ask which one of every kind): linear."""
    names = {name for kind in kinds for name in kind.names}
    for name in sorted((n for n in names if CJK.search(n)), key=len, reverse=True):
        question = question.replace(name, " ")
    latin = {tuple(name.split()) for name in names if not CJK.search(name)}
    if not latin:
        return question
    longest, firsts = max(map(len, latin)), {name[0] for name in latin}
    words = list(_TOKEN.finditer(question))
    kept, start, i = [], 0, 0
    while i < len(words):
        size = 0
        if _singular(words[i].group().lower()) & firsts:  # one set lookup for a word that starts no name
            size = next(
                (n for n in range(min(longest, len(words) - i), 0, -1) if _names(question, words[i : i + n], latin)), 0
            )
        if size:
            kept.append(question[start : words[i].start()])
            start = words[i + size - 1].end()
        i += size or 1
    return " ".join([*kept, question[start:]]) if kept else question


def _singular(word: str) -> set[str]:
    """The word and what it is without a plural's -s or -es."""
    return {word, word[:-1], word[:-2]} if word.endswith("es") else {word, word[:-1]} if word.endswith("s") else {word}


def _names(question: str, words: list[re.Match[str]], latin: set[tuple[str, ...]]) -> bool:
    """Whether `words`, next to each other with only spaces between, are one of the names, the
    last one plural or not ("linters", "package managers")."""
    if any(not question[a.end() : b.start()].isspace() for a, b in zip(words, words[1:])):
        return False
    said = [m.group().lower() for m in words]
    return any((*said[:-1], form) in latin for form in _singular(said[-1]))


def tools_of(kinds: Iterable[Kind]) -> list[str]:
    """The tools of `kinds`, each once."""
    return list(dict.fromkeys(tool for kind in kinds for tool in kind.tools))


def named_in(text: str, kinds: tuple[Kind, ...]) -> bool:
    """Whether `text` names one of `kinds` or one of their tools: a Latin name as a whole word or
    two ("UTC", "golangci-lint run", "package manager"; not "Ruffles"), a Chinese one anywhere."""
    if not kinds:
        return False
    words, pairs, chinese = _naming(kinds)
    if any(name in text for name in chinese):
        return True
    before = ""
    for m in _TOKEN.finditer(text):  # one pass, a set lookup a word
        word = m.group().lower()
        if word in words or f"{before} {word}" in pairs:
            return True
        before = word
    return False


_TOKEN = re.compile(r"(?<![\w-])[A-Za-z0-9][\w-]*")


@lru_cache(maxsize=64)
def _naming(kinds: tuple[Kind, ...]) -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    """`kinds`' Latin one-word names and tools, two-word names, Chinese names."""
    every = {w for kind in kinds for w in (*kind.names, *kind.tools)}
    chinese = tuple(w for w in every if CJK.search(w))
    latin = every.difference(chinese)
    return frozenset(w for w in latin if " " not in w), frozenset(w for w in latin if " " in w), chinese


def parse(lines: Iterable[str]) -> ToolKinds:
    """devkinds.txt's lines: `name, name…: tool tool…`; '#' starts a comment line."""
    kinds: list[Kind] = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        names, sep, listed = line.partition(":")
        found = tuple(" ".join(n.lower().split()) for n in names.split(","))
        if not sep or not all(found) or not listed.split():
            raise ValueError(f"a kind's line needs 'name, name…: tool tool…': {line!r}")
        kinds.append(Kind(found, tuple(dict.fromkeys(listed.lower().split()))))
    return ToolKinds(tuple(kinds))
