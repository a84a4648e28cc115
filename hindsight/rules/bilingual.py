"""A Chinese–English lexicon for the keyword channel: pure functions, no I/O.

A Chinese question and the English memory that answers it share no words, and the
multilingual embedder scores such pairs lower than same-language ones. The keyword query
therefore also carries the other language's words for the question's words: a Chinese
word's first English glosses ("超时" → timeout, …), and for an English word the Chinese
words glossed by exactly that word ("database" → 数据库). The words come from CC-CEDICT
(hindsight/data/lexicon.py reads it); this module turns its lines into its maps and
a query into its translated words. They count at a weight below the query's own words
(recall/search.py), and a word no memory holds costs nothing. Whether a memory holds a
question's word at all is asked with its whole translations only (`exact_glosses`): "会议室"
is glossed "meeting room", and a memory that says "meeting" does not hold it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterable

from .text import CJK

_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
_SKIP_GLOSS = ("cl:", "surname ", "variant of", "old variant", "see ", "abbr. ", "used in ", "erhua ", "japanese ")

# English words that carry no meaning of their own in a gloss or a question: ours, and every
# stop word of PostgreSQL's `english` dictionary, which the keyword index drops ("against",
# "after", "now"): a word no memory can be found holding is not a word the question asks about.
STOP_EN = frozenset(
    """a an the to of in on at by for with from into onto out up down off over under as and or
not no nor but if then so than that this these those it its be is are was were been being am
do does did done doing have has had having can could may might must shall should will would one
ones someone something somebody sb sth etc e.g. i.e. oneself oneself's
what which who whom whose when where why how all any some each every other both such very too
also just only more most less least much many few own same about again further once here there
now after before until while during because between through against above below don s t
i me my we us our ours you your yours he him his she her hers they them their theirs
myself yourself yourselves himself herself itself ourselves themselves""".split()
)

GLOSSES_PER_WORD = 3  # a Chinese word's first this many usable glosses
WORDS_PER_GLOSS = 3  # a gloss with more content words than this is a description, not a translation
ZH_PER_WORD = 6  # an English word's Chinese words, at most (those no memory holds cost nothing)
EN_PER_WORD = 6  # a Chinese word's English words, at most
MAX_ZH_CHARS = 6  # longer entries are set phrases and names, not query words


@dataclass(frozen=True)
class Lexicon:
    zh_en: dict[str, tuple[str, ...]]  # simplified Chinese word -> English words
    en_zh: dict[str, tuple[str, ...]]  # English word (lower case) -> Chinese words
    zh_one: dict[str, tuple[str, ...]]  # simplified Chinese word -> its glosses of one content word each
    unglossed: frozenset[str] = frozenset()  # the dictionary's Chinese words with no usable gloss (出差)

    def __len__(self) -> int:
        return len(self.zh_en)

    def has(self, word: str) -> bool:
        """Whether the dictionary has this Chinese word, glossed usably or not: 出差 ("to go on an
        official or business trip") is a word, 升到 is what the segmenter left of a sentence."""
        return word in self.zh_en or word in self.unglossed

    @cached_property
    def glosses(self) -> Callable[[list[str]], list[str]]:
        """glosses(self), made once: the texts' words kept by it (changes.subject_words) are
        found again by the next call that passes it."""
        return lambda words: translate(words, self).split()

    @cached_property
    def exact(self) -> Callable[[list[str]], list[str]]:
        """exact_glosses(self), made once (as `glosses`)."""
        return lambda words: exact_glosses(words, self)


def gloss_words(gloss: str) -> list[str]:
    """The content words of one CC-CEDICT gloss ("to test (machinery etc)" → ["test"]);
    [] for a gloss that is a cross-reference, a measure word, a surname or a description
    (more than WORDS_PER_GLOSS content words)."""
    low = gloss.lower()
    if not low or low.startswith(_SKIP_GLOSS) or "|" in low:
        return []
    if "(" in low or "[" in low:
        low = _PAREN.sub(" ", low)
    words = [w for w in _WORD.findall(low) if w not in STOP_EN and len(w) > 1]
    return words if len(words) <= WORDS_PER_GLOSS else []


def single_word(gloss: str) -> str | None:
    """The word a gloss is, when it is one word ("server (computer)", "to test"), else None."""
    low = gloss.lower()
    if "(" in low:
        low = _PAREN.sub(" ", low)
    parts = low.split()
    if parts and parts[0] in ("to", "a", "an", "the"):
        parts = parts[1:]
    if len(parts) == 1 and _WORD.fullmatch(parts[0]) and parts[0] not in STOP_EN:
        return parts[0]
    return None


def build(lines: Iterable[str]) -> Lexicon:
    """The three maps from CC-CEDICT lines (traditional simplified [pinyin] /gloss/…/), and the
    words among them with no usable gloss."""
    zh_en: dict[str, list[str]] = {}
    zh_one: dict[str, list[str]] = {}
    exact: dict[str, list[tuple[int, int, str]]] = {}  # English word -> (gloss position, glosses, Chinese)
    for line in lines:
        if line.startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None:
            continue
        simplified = m.group(2)
        if len(simplified) > MAX_ZH_CHARS or not CJK.search(simplified):
            continue
        glosses = m.group(3).split("/")
        words = zh_en.setdefault(simplified, [])
        ones = zh_one.setdefault(simplified, [])
        usable = 0
        for position, gloss in enumerate(glosses):
            if usable < GLOSSES_PER_WORD:
                found = gloss_words(gloss)
                if found:
                    usable += 1
                    words.extend(w for w in found if w not in words)
                    if len(found) == 1 and found[0] not in ones:
                        ones.append(found[0])
            if len(simplified) >= 2:
                one = single_word(gloss)
                if one is not None:
                    exact.setdefault(one, []).append((position, len(glosses), simplified))
    en_zh = {}
    for word, options in exact.items():
        chosen: list[str] = []
        for _, _, zh in sorted(options):
            if zh not in chosen:
                chosen.append(zh)
        en_zh[word] = tuple(chosen[:ZH_PER_WORD])
    return Lexicon(
        {k: tuple(v[:EN_PER_WORD]) for k, v in zh_en.items() if v},
        en_zh,
        {k: tuple(v[:EN_PER_WORD]) for k, v in zh_one.items() if v},
        frozenset(w for w, glossed in zh_en.items() if not glossed),
    )


def ahead(first: Lexicon, lexicon: Lexicon) -> Lexicon:
    """`lexicon` with `first`'s glosses of a Chinese word before its own (as if `first`'s lines
    came before its lines), and its own Chinese for English words."""

    def merged(a: dict[str, tuple[str, ...]], b: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        out = dict(b)
        for word, glossed in a.items():
            out[word] = tuple(dict.fromkeys((*glossed, *b.get(word, ()))))[:EN_PER_WORD]
        return out

    zh_en, zh_one = merged(first.zh_en, lexicon.zh_en), merged(first.zh_one, lexicon.zh_one)
    return Lexicon(
        zh_en, lexicon.en_zh, zh_one, frozenset(w for w in first.unglossed | lexicon.unglossed if w not in zh_en)
    )


_LATIN = re.compile(r"[A-Za-z]+")
_QUERY_WORD = re.compile(CJK.pattern + "+|[A-Za-z]+")


def _english(word: str, lexicon: Lexicon) -> tuple[str, ...]:
    """The Chinese words for an English word, as written or without its inflection."""
    if word in STOP_EN or len(word) < 3:
        return ()
    for form in (word, *base_forms(word)):
        if form in lexicon.en_zh:
            return lexicon.en_zh[form]
    return ()


def base_forms(word: str) -> list[str]:
    """An English word without its inflection, each way it may come off ("crashes" → crash, crashe)."""
    forms = []
    for ending, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e")):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            forms.append(word[: -len(ending)] + repl)
    return forms


def query_words(text: str) -> list[str]:
    """A keyword query's words (its keyword_text): Chinese words and Latin words."""
    return _QUERY_WORD.findall(text)


def translate(words: list[str], lexicon: Lexicon) -> str:
    """The other language's words for a query's words (Chinese words as segmented for the
    keyword index, English words as written): space-separated, each once, none of the
    query's own."""
    own = {w.lower() for w in words}
    out: list[str] = []
    for word in words:
        if CJK.search(word):  # a single character has too many senses to translate
            found = lexicon.zh_en.get(word, ()) if len(word) > 1 else ()
        elif _LATIN.fullmatch(word):
            found = _english(word.lower(), lexicon)
        else:
            found = ()
        out.extend(w for w in found if w not in own and w not in out)
    return " ".join(out)


def glosses(lexicon: Lexicon) -> Callable[[list[str]], list[str]]:
    """`translate` as a list: words -> their glosses in the other language (the same function
    each time for one lexicon)."""
    return lexicon.glosses


def word_forms(words: list[str], glossed: Callable[[list[str]], Iterable[str]] | None = None) -> list[list[str]]:
    """Each content word of `words` once (stop words and single letters left out), as the
    forms it matches: lower-cased, without its inflection ("reports" meets "reporting"),
    and with `glossed`, its glosses in the other language."""
    out: dict[str, list[str]] = {}
    for word in words:
        low = word.lower()
        if low in out or low in STOP_EN or len(low) < 2:
            continue
        forms = [low, *base_forms(low), *(glossed([low]) if glossed is not None else ())]
        out[low] = list(dict.fromkeys(forms))
    return list(out.values())


def term_groups(words: list[str], lexicon: Lexicon) -> list[str]:
    """A question's content words, each with its inflections and its whole translations in the
    other language (`exact_glosses`), as one text per word (for the keyword index's parser):
    whether any memory holds one of them says whether the question names something ever stored."""
    return [" ".join(forms) for forms in word_forms(words, lexicon.exact)]


def exact_glosses(words: list[str], lexicon: Lexicon) -> list[str]:
    """The other language's words that translate `words` whole: for a Chinese word, its glosses
    of one content word ("显示器" → monitor, "申请" → "to apply for sth": apply), never one word
    of a phrase that glosses it ("会议室" → meeting room: neither "meeting" nor "room" alone says
    that a memory holds it); for an English word, its Chinese words (as `translate`)."""
    out: list[str] = []
    for word in words:
        if CJK.search(word):
            found = list(lexicon.zh_one.get(word, ())) if len(word) > 1 else []
        elif _LATIN.fullmatch(word):
            found = list(_english(word.lower(), lexicon))
        else:
            found = []
        out.extend(w for w in found if w not in out)
    return out
