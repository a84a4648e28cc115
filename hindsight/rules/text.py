"""Pure text helpers: the keyword-channel text, content hashing, token estimates."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from typing import Any, Iterator

# CJK ideographs, kana and hangul: scripts written without spaces between words. The one
# definition: dedup and the write policy use it too.
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_CJK_RUN = re.compile(CJK.pattern + "+")


# Chinese function words: like English stop words they say nothing about what a memory is
# about, and BM25 would count them.
ZH_STOP = frozenset(
    """的 了 是 在 和 也 就 都 而 及 与 着 或 吗 呢 吧 啊 么 个 们 之 以 为 被 把 让 给 对 从 到
这 那 有 要 会 说 还 又 很 我 你 他 她 它 我们 你们 他们 这个 那个 什么 怎么 怎样 如何 哪 哪里 哪个 为什么
一个 没有 就是 可以 因为 所以 但是 如果 时候 现在 已经 应该""".split()
)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# A character that continues a word of a script written with spaces: a letter, digit or
# underscore of such a script, or a hyphen ("basket" in "baskets", "basket-ui", "café"); not a
# CJK character ("Caroline的工作", "basket 的埋点") or punctuation.
_WORD_GOES_ON = re.compile(r"[^\W" + CJK.pattern[1:-1] + r"]|-")


def whole_word_at(text: str, word: str) -> Iterator[int]:
    """Where `word` stands in `text` as a word of its own (what is on either side does not
    continue it), first to last. Found with str.find and its edges looked at: linear, whatever
    the word."""
    at = text.find(word)
    while at != -1:
        end = at + len(word)
        if not (at and _WORD_GOES_ON.match(text, at - 1)) and not _WORD_GOES_ON.match(text, end):
            yield at
        at = text.find(word, at + 1)


def ascii_lower(text: str) -> str:
    """`text` with A-Z in lower case and every other character as it was, so each position is
    where it was (str.lower() can change lengths: "İ" becomes two). The rules match their
    English words in it without IGNORECASE, which scans about twice as fast."""
    return text.translate(_ASCII_LOWER)


def _segment(run: str) -> str:
    import rjieba  # imported lazily: only text with CJK pays for it

    return " ".join(w for w in rjieba.cut(run) if w.strip() and w not in ZH_STOP)


def _segmented(text: str) -> str:
    """`text` with each CJK run cut into words. The runs go to rjieba in one call, a line
    each (it segments each line alone, as it would each run): one call per run cost more
    than the cutting on text of many short runs ("测a试1…": 16,000 calls in 32 KB)."""
    runs = _CJK_RUN.findall(text)
    if not runs:
        return text
    if len(runs) < 8:
        return _CJK_RUN.sub(lambda m: f" {_segment(m.group())} ", text)
    import rjieba

    cut: list[list[str]] = [[]]
    for word in rjieba.cut("\n".join(runs)):
        if word == "\n":
            cut.append([])
        elif word.strip() and word not in ZH_STOP:
            cut[-1].append(word)
    words = iter(cut)
    return _CJK_RUN.sub(lambda m: f" {' '.join(next(words))} ", text)


# Identifiers such as ERR_SSL_PROTOCOL_ERROR, numpy.linalg, pg_dump, HTTP/2, v1.2.3. Linear in
# the text: a match starts only where a run of letters and digits starts, and no run gives
# characters back (possessive), since none of them could be a separator. Plain `[A-Za-z0-9]+`
# retried from every position of a long run and backtracked through it: 32 KB of one letter
# took minutes (issue 29).
_IDENTIFIER = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]++(?:[_.\-/:][A-Za-z0-9]++)+")
_PATHLIKE = re.compile(r"[/.:]")
_JOINT = re.compile(r"[_.\-/:]")
_JOINTS = re.compile(r"[_.\-/:]+")


def keyword_text(text: str, said: str | None = None) -> str:
    """Text for the keyword index (and for keyword queries, the same way). `said`: the text's
    words_text, where the caller has it already (the CJK runs are not cut twice).

    - CJK runs are cut into words (rjieba): PostgreSQL's parser splits on spaces and
      punctuation, and Chinese has neither between words.
    - Each identifier also stands once more as one compact token ("errsslprotocolerror"),
      so an exact identifier outranks text that merely shares its parts; a host or path
      ("kv/courier/prod", "redis-feat-01.pantry.internal") also gives its words, which
      PostgreSQL's parser would keep inside one token.
    """
    spaced = _segmented(text) if said is None else said
    extra = [form for m in _IDENTIFIER.finditer(text) for form in _identifier_forms(m.group())]
    return f"{spaced} {' '.join(extra)}" if extra else spaced


def words_text(text: str) -> str:
    """`text` with its CJK runs cut into words, as `keyword_text` reads its words, without
    the extra forms it adds for identifiers: the words a question says (gl-runner-04 says
    "gl" and "runner"; the index's "glrunner04" is not a word of it)."""
    return _segmented(text)


@lru_cache(maxsize=4096)  # a text repeats its identifiers
def _identifier_forms(found: str) -> tuple[str, ...]:
    """An identifier's compact token, and for a host or path its words too (the parser keeps
    hosts and paths whole)."""
    compact = _JOINT.sub("", found).lower()
    if not _PATHLIKE.search(found):
        return (compact,)
    return compact, " ".join(p for p in _JOINTS.split(found) if len(p) > 1 and not p.isdigit())


_UNSEARCHED_KEYS = {"external_id"}


def metadata_text(metadata: dict[str, Any] | None) -> str:
    """The words in a memory's metadata (its entities, error message, task type, a photo's
    caption, ...), so keyword search finds a memory by them too. Keys are not included."""
    if not metadata:
        return ""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):  # keys in sorted order: the same text however the object was built
            for key in sorted(value):
                if key not in _UNSEARCHED_KEYS:
                    walk(value[key])
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(metadata)
    return " ".join(out)


def indexed_text(content: str, metadata: dict[str, Any] | None, tags: list[str] | None = None) -> str:
    """What the keyword index holds for a memory: its content, its metadata's words and
    its tags."""
    extra = " ".join(filter(None, [metadata_text(metadata), " ".join(tags or [])]))
    return keyword_text(f"{content}\n{extra}" if extra else content)


_LATIN_RUN = re.compile(r"[A-Za-z]+")


def cjk_share(text: str) -> float:
    """How much of a text is written in a CJK script, 0-1 (a CJK character counts as
    half a Latin word). Recall uses it to compare a query and a memory across languages."""
    if text.isascii():
        return 0.0
    cjk = sum(len(m.group()) for m in _CJK_RUN.finditer(text))
    latin = len(_LATIN_RUN.findall(text))
    return cjk / (cjk + 2 * latin) if cjk else 0.0


def normalised(text: str) -> str:
    """Unicode NFC with whitespace folded: what counts as "the same content"."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def content_hash(text: str) -> bytes:
    """sha256 of the normalised content."""
    return hashlib.sha256(normalised(text).encode("utf-8")).digest()


def one_line(text: str, limit: int) -> str:
    """The text on one line (its whitespace runs made one space), at most `limit` characters:
    cut at the end with "…"."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: ~4 characters a token for Latin text, ~1 per CJK character."""
    cjk = sum(len(m.group()) for m in _CJK_RUN.finditer(text))
    return max(1, cjk + (len(text) - cjk + 3) // 4) if text else 0
