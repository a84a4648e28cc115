"""Guard against memory poisoning and over-generalisation. Pure: text in, flags out.

- `absolute`: sweeping statements ("never use X", "X is always wrong", "永远不要", "一定是错的")
  are often a one-off frustration generalised (a past-tense fact with "never" is not one); they
  start weaker (a lower decay_score) and are marked `needs_review` until someone confirms them.
- `instruction_like`: text that addresses the model ("ignore previous instructions", "you
  are now…", "</memory><system>", "call delete_memory", "tell the user to run…",
  "忽略之前的指令") is stored as data, never obeyed: marked `low_trust`, and
  recall shows the flag beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import ascii_lower

# "never"/"always" generalise when they give a rule (at the start of a clause, after a modal,
# before a present-tense verb, in a verdict); a past-tense fact ("the deploy never finished")
# does not.
_ABSOLUTE = re.compile(  # matched against ascii_lower(text)
    r"(?:^|[.!?;:\n]\s*|\b(?:and|but|so|please|then)\s+)(?:never|always)\b"
    r"|\b(?:must|should|shall|will|would|can|you|we|to)\s+(?:never|always)\b|\b(?:don'?t|do not) ever\b"
    r"|\b(?:never|always)\s+(?:use|uses|trust|trusts|work|works|fail|fails|break|breaks|do|does|run|runs|"
    r"deploy|deploys|touch|push|commit|merge|install|call|rely|believe|need|needs|ask|answer|be|is|are)\b"
    r"|\b(?:is|are)\s+(?:always|never)\s+(?:wrong|right|broken|correct|bad|good|better|worse|faster|slower|"
    r"the best|the worst|a bad idea|a good idea)\b"
    r"|\b(?:under no circumstances|without exception|no matter what|in all cases|every single time|at all times)\b"
    r"|永远|绝对|一定是|一律|从来不|从不|决不|绝不|总是|任何时候都|无论如何都"
)
_INSTRUCTION = re.compile(  # matched against ascii_lower(text)
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|preceding|your)"
    r"\s+(?:instructions?|prompts?|rules?|directions?|context)"
    r"|\byou are now\b|\bnew (?:system )?instructions?\s*:|\bsystem prompt\b|\bact as (?:an? )?(?:admin|root|developer)"
    r"|\bdo not (?:tell|inform) the user\b|\bexfiltrate\b|\bsend (?:the |all )?(?:secrets|credentials|api keys?)\b"
    # markup that pretends to close the memory or open a system / assistant turn
    r"|</?\s*(?:system|assistant|user|memory|memories|instructions?|tool_call|function_calls?|im_start|im_end)\b[^>]{0,40}>"
    r"|<\|im_(?:start|end)\|>|\[/?inst\]|^\s*#{2,}\s*(?:system|instructions?)\s*:"
    # a directive to call one of the memory tools, or to make the user run something
    r"|\b(?:call|invoke|run|execute|use)\s+(?:the\s+)?(?:delete_memory|update_memory|invalidate_memory|store_memory)\b"
    r"|\b(?:tell|ask|instruct|convince|get|make)\s+(?:the\s+)?user\s+to\b"
    r"|忽略(?:之前|以上|前面|先前|所有)(?:的)?(?:所有)?(?:指令|指示|说明|规则|提示)|你现在是|系统提示|不要告诉用户|告诉用户(?:去)?(?:运行|执行)",
    re.MULTILINE,
)

# Where a memory's strength starts (decay_score, 0-1) when the guard flags it.
START_STRENGTH = {"absolute": 0.7, "instruction_like": 0.5}


@dataclass(frozen=True)
class Verdict:
    flags: tuple[str, ...]
    strength: float  # initial decay_score

    @property
    def needs_review(self) -> bool:
        return "needs_review" in self.flags


def assess(text: str, *, from_tool: bool = False) -> Verdict:
    """Flags for a memory's text. `from_tool`: the text came from a tool's output, where
    instructions are untrusted by definition."""
    flags: list[str] = []
    strength = 1.0
    text = ascii_lower(text)
    if _ABSOLUTE.search(text):
        flags += ["absolute", "needs_review"]
        strength = min(strength, START_STRENGTH["absolute"])
    if _INSTRUCTION.search(text):
        flags += ["instruction_like", "low_trust", "needs_review"]
        if from_tool:
            flags.append("from_tool")
        strength = min(strength, START_STRENGTH["instruction_like"])
    return Verdict(tuple(dict.fromkeys(flags)), strength)
