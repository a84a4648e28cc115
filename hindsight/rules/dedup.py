"""When is a new memory the same as one already stored? Pure.

- Exact: the same normalised content (NFC, whitespace folded) in the same agent and type
  (working memories: also the same session). Its key is unique among current memories in
  the database, so concurrent identical writes cannot both insert.
- Near: cosine similarity at or above `threshold` AND the same words in the same order once
  case, punctuation, function words and plural/verb endings are set aside. The embedder
  alone cannot tell "prefers polars over pandas" from "prefers pandas over polars"
  (cosine 0.999 with multilingual-e5-small) or Python 3.11 from 3.12 (0.98): a new fact
  must never be swallowed as a duplicate of the old one. Those come back as
  possible conflicts instead (cosine at or above `conflict_threshold`).

Thresholds measured on tests/data/dedup_pairs.jsonl with benchmarks/dedup_threshold.py.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .text import CJK

DEFAULT_THRESHOLD = 0.96  # near-duplicate pairs scored 0.965-0.995 with e5-small
DEFAULT_CONFLICT_THRESHOLD = 0.90  # contradictions 0.926-0.999; unrelated pairs <= 0.875

_TOKEN = re.compile(r"[^\W_]+(?:[._/:+#\-][^\W_]+)*[+#]*", re.UNICODE)
# Function words that do not change a fact. Negations are NOT here: "likes" vs "does not like".
_FUNCTION = frozenset(
    """a an the and or of to in on at by for with from as is are was were be been being am
do does did have has had i me my we our you your he him his she her it its they them their this that these
those there here so too very just really also please user's s ok okay
的 了 地 得 吗 呢 吧 啊 呀 嘛 着 过 是 也 都 就 很 请""".split()
)
_NEGATION = {
    "not",
    "no",
    "never",
    "don",
    "doesn",
    "didn",
    "isn",
    "aren",
    "wasn",
    "weren",
    "won",
    "can't",
    "cannot",
    "shouldn",
    "mustn",
    "nor",
    "without",
    "t",
}


@lru_cache(maxsize=8192)  # a text repeats its words
def _stem(word: str) -> str:
    if CJK.search(word) or any(ch.isdigit() for ch in word) or len(word) <= 3:
        return word
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def lexical_key(text: str) -> tuple[str, ...]:
    """The content words of `text` in order, normalised; negations kept as "not"."""
    from .text import keyword_text  # CJK segmentation

    folded = unicodedata.normalize("NFKC", keyword_text(text)).lower().replace("n't", " not")
    words = []
    for token in _TOKEN.findall(folded):
        if token in _NEGATION:
            words.append("not")
        elif token not in _FUNCTION:
            words.append(_stem(token))
    # keyword_text appends compact forms of identifiers; they carry nothing new here
    return tuple(words)


def is_near_duplicate(
    similarity: float, new_key: tuple[str, ...], old_key: tuple[str, ...], threshold: float = DEFAULT_THRESHOLD
) -> bool:
    return similarity >= threshold and bool(new_key) and new_key == old_key
