"""Pathological text: 32 KB (the content limit) of each shape a hook or a tool's output can
feed hindsight — one repeated letter, digits, alternating classes, nested brackets, long CJK
runs, base64, minified code, and text with thousands of matches of one rule. Used by
tests/unit/test_linear_time.py (every text rule on each), tests/fuzzcases.py (stores and
questions made of them) and benchmarks/text_rules.py."""

from __future__ import annotations

import base64
import random

SIZE = 32 * 1024


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
    # many matches: every rule that keeps what it found must not compare each find with the rest
    "many emails": _repeat("x@ab.cd "),
    "many phones": _repeat("+1 555 123 4567 "),
    "many keys": _repeat("AKIAABCDEFGHIJKLMNOP "),
    "many bare keys": _repeat("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY "),
    "many passwords": _repeat("password=Xk3f9aB2 "),
    "many cards": _repeat("4111 1111 1111 1111 "),
    "many dates": _repeat("2026-03-01 "),
    "many relative times": _repeat("yesterday at 3pm, "),
    "many identifiers": _repeat("ERR_SSL_PROTOCOL_ERROR kv/courier/prod "),
}
