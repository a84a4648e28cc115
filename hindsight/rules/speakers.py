"""A question about a person, and a memory that person said: pure rules, no I/O.

A conversation's turns are stored with who said them (metadata `speaker`, as `hindsight
import` takes a chat log). "What do Melanie's kids like?" is answered by what Melanie said
("They were stoked for the dinosaur exhibit!"), not by the turns in which someone else talks
to her about them ("Wow, Mel! How'd the kids like it?"): on the LoCoMo development set, 96 %
of the turns that answer a question naming one speaker are that speaker's own. Recall ranks
a named person's own words a little higher (scoring.Weights.speaker), among comparably
relevant memories only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .text import CJK


@lru_cache(maxsize=4096)
def _named(question: str, person: str) -> bool:
    person = person.strip()
    if not person:
        return False
    if CJK.search(person):
        return len(person) >= 2 and person in question
    # the whole name, or its first word ("Caroline" of "Caroline Reyes"), standing alone
    # ("Caroline's" counts, "Carolines" does not); as the name is written ("Will" is not
    # "will"), unless the question is typed all in lower case
    first = person.split()[0]
    names = {person, first} if len(first) >= 2 and first[-1].isalnum() else {person}  # not "Dr."
    flags = re.IGNORECASE if question == question.lower() else 0
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", question, flags) for n in names)


def said_by_named(question: str, metadata: dict[str, Any]) -> bool:
    """Whether the memory is what a person the question names said (its metadata `speaker`)."""
    person = metadata.get("speaker")
    return isinstance(person, str) and len(person) <= 200 and _named(question, person)
