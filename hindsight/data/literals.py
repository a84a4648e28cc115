"""A statement with all its arguments but one written into its text as typed literals, so that
PostgreSQL can plan it before that one is known (recall plans its statement while the query is
embedded: hindsight.data.ahead).

Only values of the kinds recall passes are written (None, bool, int, float, str, UUID, aware
datetime, JSON for jsonb, flat lists of these for arrays); anything else raises Unwritable, and
the caller runs the statement with parameters as before. Strings are written in the standard
form ('...' with each quote doubled), which reads every character as itself only with
standard_conforming_strings on (hindsight.data.db.SERVER_SETTINGS sets it, ahead checks it).
Comments are dropped while the text is rewritten: a value with a line break written inside a
`--` comment would end it.
"""

from __future__ import annotations

import functools
import json
import math
import re
import struct
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

FLOAT4 = ("real", "float4")
_DOLLAR_QUOTE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*\$|\$\$")
_NUMBER = re.compile(r"\$(\d+)")


class Unwritable(ValueError):
    """A value (or a statement's text) this module does not write as a literal."""


def inline(sql: str, types: Sequence[str], args: Sequence[Any], keep: int) -> str:
    """`sql` with each $n but $`keep` replaced by args[n-1] as a literal of types[n-1] (a type
    as PostgreSQL names it: 'text', 'uuid[]', 'timestamp with time zone'), $`keep` written
    as $1, comments left out."""
    if len(types) != len(args) or not 1 <= keep <= len(args):
        raise Unwritable(f"{len(args)} arguments for {len(types)} parameters, keeping ${keep}")
    code, slots = _compiled(sql)
    if max(slots, default=0) > len(args):
        raise Unwritable(f"the statement reads ${max(slots)}, and {len(args)} arguments were given")
    written = {n: literal(args[n - 1], types[n - 1]) for n in set(slots) if n != keep}
    written[keep] = "$1"
    out = [code[0]]
    for n, text in zip(slots, code[1:]):
        out += (written[n], text)
    return "".join(out)


def literal(value: Any, typ: str) -> str:
    """One value as a literal of type `typ`, cast to it."""
    if typ.endswith("[]") and value is not None:
        base = typ[:-2]
        if not isinstance(value, (list, tuple)):
            raise Unwritable(f"an array of {base} needs a list, not {type(value).__name__}")
        if not value:
            return f"'{{}}'::{typ}"
        return f"ARRAY[{', '.join(literal(v, base) for v in value)}]::{typ}"
    return f"{_scalar(value, typ)}::{typ}"


def _scalar(value: Any, typ: str) -> str:
    if value is None:
        return "NULL"
    if typ == "jsonb":
        return _quoted(json.dumps(value, ensure_ascii=False))  # as the pool's jsonb codec sends it
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _quoted(str(value))
    if isinstance(value, float):
        if typ in FLOAT4:  # asyncpg sends a float4 rounded to single precision: so is this
            value = struct.unpack("f", struct.pack("f", value))[0]
        if math.isnan(value):
            return "'NaN'"
        return _quoted(repr(value) if math.isfinite(value) else ("Infinity" if value > 0 else "-Infinity"))
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise Unwritable("a datetime without a time zone")
        return _quoted(value.isoformat())
    if isinstance(value, (str, uuid.UUID)):
        return _quoted(str(value))
    raise Unwritable(f"no literal for {type(value).__name__}")


def _quoted(text: str) -> str:
    if "\x00" in text:
        raise Unwritable("a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise Unwritable("text that is not UTF-8") from exc
    return "'" + text.replace("'", "''") + "'"


@functools.lru_cache(maxsize=64)
def _compiled(sql: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The text cut at each $n, comments dropped, quoted strings and names untouched: the
    pieces between the parameters, and the parameters' numbers in order."""
    code, slots, piece, i, n = [], [], [], 0, len(sql)
    while i < n:
        c = sql[i]
        if c == "'" or c == '"':
            if c == "'" and i > 0 and sql[i - 1] in "eEbBxXuU&" and (i < 2 or not _word(sql[i - 2])):
                raise Unwritable("a string with escapes (E'...') or a prefix")
            end = _closing(sql, i, c)
            piece.append(sql[i:end])
            i = end
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif sql.startswith("/*", i):
            raise Unwritable("a /* */ comment")
        elif c == "$" and (number := _NUMBER.match(sql, i)) is not None:
            code.append("".join(piece))
            slots.append(int(number.group(1)))
            piece, i = [], number.end()
        elif c == "$" and _DOLLAR_QUOTE.match(sql, i):
            raise Unwritable("a dollar-quoted string")
        else:
            piece.append(c)
            i += 1
    code.append("".join(piece))
    return tuple(code), tuple(slots)


def _closing(sql: str, start: int, quote: str) -> int:
    """Just past the string or quoted name that opens at `start` (a doubled quote is one)."""
    i = start + 1
    while True:
        i = sql.find(quote, i)
        if i < 0:
            raise Unwritable("an unterminated quote")
        if sql.startswith(quote * 2, i):
            i += 2
            continue
        return i + 1


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"
