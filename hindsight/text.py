"""Pure text helpers: the keyword-channel text, content hashing, token estimates."""

from __future__ import annotations

import hashlib
import re
import unicodedata

# CJK ideographs, kana and hangul: scripts written without spaces between words.
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def _segment(run: str) -> str:
    import rjieba  # imported lazily: only text with CJK pays for it

    return " ".join(w for w in rjieba.cut(run) if w.strip())


# Identifiers such as ERR_SSL_PROTOCOL_ERROR, numpy.linalg, pg_dump, HTTP/2, v1.2.3.
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[_.\-/:][A-Za-z0-9]+)+")


def keyword_text(text: str) -> str:
    """Text for the keyword index (and for keyword queries, the same way).

    - CJK runs are cut into words (rjieba): PostgreSQL's parser splits on spaces and
      punctuation, and Chinese has neither between words.
    - Each identifier also stands once more as one compact token ("errsslprotocolerror"),
      so an exact identifier outranks text that merely shares its parts.
    """
    spaced = _CJK_RUN.sub(lambda m: f" {_segment(m.group())} ", text)
    compact = [re.sub(r"[_.\-/:]", "", m.group()).lower() for m in _IDENTIFIER.finditer(text)]
    return f"{spaced} {' '.join(compact)}" if compact else spaced


_UNSEARCHED_KEYS = {"external_id"}


def metadata_text(metadata: dict | None) -> str:
    """The words in a memory's metadata (its entities, error message, task type, a photo's
    caption, ...), so keyword search finds a memory by them too. Keys are not included."""
    if not metadata:
        return ""
    out: list[str] = []

    def walk(value) -> None:
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


def indexed_text(content: str, metadata: dict | None) -> str:
    """What the keyword index holds for a memory: its content and its metadata's words."""
    extra = metadata_text(metadata)
    return keyword_text(f"{content}\n{extra}" if extra else content)


_STOP = frozenset("""a an the and or but if of to in on at by for with from as is are was were be been
being am do does did have has had i me my we our you your he him his she her it its they them their
this that these those what which who whom how when where why so too very just not no yes oh ok okay
can could would should will shall may might must s t don doesn didn isn wasn aren there here than
then also really much many some any all""".split())
_LATIN_WORD = re.compile(r"[^\W\d_]{2,}|\d+", re.UNICODE)


def content_words(text: str) -> int:
    """How many words carry content: Latin words that are not function words, plus one for
    every two CJK characters. Near-empty memories ("Cool!", "谢谢") score low."""
    cjk = sum(len(m.group()) for m in _CJK_RUN.finditer(text))
    latin = _CJK_RUN.sub(" ", text)
    return sum(1 for w in _LATIN_WORD.findall(latin) if w.lower() not in _STOP) + cjk // 2


def normalised(text: str) -> str:
    """Unicode NFC with whitespace folded: what counts as "the same content"."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def content_hash(text: str) -> bytes:
    """sha256 of the normalised content."""
    return hashlib.sha256(normalised(text).encode("utf-8")).digest()


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: ~4 characters a token for Latin text, ~1 per CJK character."""
    cjk = sum(len(m.group()) for m in _CJK_RUN.finditer(text))
    return max(1, cjk + (len(text) - cjk + 3) // 4) if text else 0
