"""A question about a person, and a memory that person said: pure rules, no I/O.

A conversation's turns can be stored with who said them (metadata `speaker`: put it in each
line of a chat log given to `hindsight import`, as benchmarks/locomo_adapter.py does). "What
do Melanie's kids like?" is answered by what Melanie said ("They were stoked for the dinosaur
exhibit!"), not by the turns in which someone else talks to her about them ("Wow, Mel! How'd
the kids like it?"): on the LoCoMo development set, 96 %
of the turns that answer a question naming one speaker are that speaker's own. Recall ranks
a named person's own words a little higher (scoring.Weights.speaker), among comparably
relevant memories only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .text import CJK, ascii_lower, whole_word_at

# Speakers that are a role or a pronoun, not a person a question names ("What did I say?").
_ROLES = frozenset("i me you we us user assistant system bot human ai model agent tool".split())
_TITLES = frozenset("mr mrs ms miss mx dr prof sir madam".split())  # "Dr Smith": not a first name
_SENTENCE_GOES_ON = re.compile(r"\s+[a-z]")  # "Will the deploy work?": "Will" starts a sentence
_ANOTHER_SURNAME = re.compile(r"\s+[A-Z][a-z]")  # "Caroline Smith" is not Caroline Reyes


def _says(question: str, name: str, fold: bool = False, first_name: bool = False) -> bool:
    """Whether `name` stands alone in the question ("Caroline's kids", "Caroline的工作"), not
    as the first word of a sentence that goes on ("Will the deploy work?", "Mark the task
    done"). Found with str.find and its edges looked at: linear, whatever the name."""
    hay, needle = (ascii_lower(question), ascii_lower(name)) if fold else (question, name)
    for at in whole_word_at(hay, needle):  # ascii_lower keeps each position: the question's edges
        end = at + len(needle)
        if (at or not _SENTENCE_GOES_ON.match(question, end)) and not (
            first_name and _ANOTHER_SURNAME.match(question, end)
        ):
            return True
    return False


@lru_cache(maxsize=4096)
def _named(question: str, person: str) -> bool:
    person = " ".join(person.split())
    if len(person) < 2 or person.lower() in _ROLES:
        return False
    if CJK.search(person):
        return person in question
    words = person.split()
    if _says(question, person) or (len(words) == 1 and person.islower() and _says(question, person.title())):
        return True  # the name as written ("melanie" stored in lower case: as a name is written)
    if len(words) > 1:
        if _says(question, person, fold=True):
            return True  # a whole name of two words or more, in any case
        first = words[0].rstrip(".")
        if len(first) >= 2 and first.lower() not in _TITLES and first[-1].isalnum():
            # the first name alone ("Caroline" of "Caroline Reyes"), not another person's
            # ("Caroline Smith")
            return _says(question, first, first_name=True)
    return False


def said_by_named(question: str, metadata: dict[str, Any]) -> bool:
    """Whether the memory is what a person the question names said (its metadata `speaker`)."""
    person = metadata.get("speaker")
    return isinstance(person, str) and len(person) <= 200 and _named(question, person)
