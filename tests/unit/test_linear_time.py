"""Every text rule runs in time linear in its input: 32 KB (the content limit) of each
pathological shape — one repeated letter, digits, alternating classes, identifier-like runs,
nested brackets, long CJK runs, base64, minified code — through each rule that reads a
memory's or a question's text. Hooks and tool outputs feed exactly such text; one quadratic
pattern made a 32 KB store of one letter take 227 s (issue 29).

The time is the best of three runs (a loaded machine slows a run, never speeds it). The bound
here, 0.5 s, is what no linear rule comes near even on a loaded machine (the slowest takes
about 0.1 s) and what every quadratic one passes by far (seconds to minutes at 32 KB).
The per-rule figures against the 50 ms target are `python benchmarks/text_rules.py`'s.
"""

from __future__ import annotations

import base64
import random
import time
from datetime import datetime, timezone

import pytest

from hindsight.rules import bilingual, changes, clipping, dedup, detectors, guard, policy, privacy, text, timeparse
from hindsight.rules import validate as v

SIZE = 32 * 1024
LIMIT = 0.5
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def _repeat(unit: str) -> str:
    return (unit * (SIZE // len(unit) + 1))[:SIZE]


SHAPES = {
    "one letter": "y" * SIZE,
    "digits": "7" * SIZE,
    "alternating classes": _repeat("a1"),
    "identifier joints": _repeat("a_"),
    "dotted": _repeat("a."),
    "dashes and slashes": _repeat("a-b/"),
    "nested brackets": "(" * (SIZE // 2) + ")" * (SIZE // 2),
    "brackets and words": _repeat("[a{b(c"),
    "long CJK run": _repeat("测试服务器地址已经改成"),
    "CJK and Latin": _repeat("测a试1"),
    "base64": base64.b64encode(random.Random(7).randbytes(SIZE)).decode()[:SIZE],
    "hex": _repeat("deadbeef"),
    "minified code": _repeat("function(a){return a.b(c,d)||e[f]};"),
    "key=value": _repeat("a="),
    "emails": _repeat("a@b."),
    "spaces": _repeat("a "),
    "newlines": _repeat("x\n"),
    "times": _repeat("last week "),
    "zh times": _repeat("上上周三"),
}

RULES = {  # name -> the rule on one text (benchmarks/text_rules.py times the same table)
    "keyword_text": text.keyword_text,
    "indexed_text": lambda s: text.indexed_text(s, {"error": s[:2000]}, ["t"]),
    "cjk_share": text.cjk_share,
    "estimate_tokens": text.estimate_tokens,
    "content_hash": text.content_hash,
    "detectors.find": detectors.find,
    "privacy.redact": privacy.redact,
    "privacy.scrub": lambda s: privacy.scrub(s, {"note": s[:4000]}),
    "validate.no_secret": lambda s: _quietly(v.no_secret, "content", s),
    "clip": lambda s: clipping.clip(s, 2000),
    "states_change": changes.states_change,
    "subject_words": changes.subject_words,
    "timeparse.resolve": lambda s: timeparse.resolve(s, NOW),
    "guard.assess": guard.assess,
    "is_chitchat": policy.is_chitchat,
    "should_store": lambda s: policy.should_store(policy.Interaction(content=s, error=s[:4000])),
    "query_words": bilingual.query_words,
    "lexical_key": dedup.lexical_key,
}


def _quietly(rule, *args):
    try:
        return rule(*args)
    except Exception:  # refusing the input is an answer too; how long it took is what counts
        return None


def _best_of_three(rule, value) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        _quietly(rule, value)
        best = min(best, time.perf_counter() - started)
        if best < LIMIT / 10:
            break
    return best


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_text_rule_is_linear_on_32_kb_of_every_pathological_shape(rule):
    slow = {}
    for shape, value in SHAPES.items():
        took = _best_of_three(RULES[rule], value)
        if took > LIMIT:
            slow[shape] = f"{took * 1000:.0f} ms"
    assert slow == {}, f"{rule} on 32 KB: {slow}"


def test_an_identifier_is_still_found_whole_and_in_parts():
    """The linear pattern finds what the backtracking one did."""
    found = text.keyword_text("saw ERR_SSL_PROTOCOL_ERROR at kv/courier/prod and v1.2.3, a__b_c, x-")
    assert "errsslprotocolerror" in found and "kvcourierprod" in found and "kv courier prod" in found
    assert "v123" in found and "bc" in found and "x-" not in found.split()[-1]
