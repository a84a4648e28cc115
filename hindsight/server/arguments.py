"""Tool arguments checked strictly, and refused in our own words.

The SDK validates a tool's arguments with pydantic in lax mode after unpacking JSON found in
strings, so a caller's value can silently become another: "null" → None for an optional
string, "true" → True, "4" → 4, 3.0 → 3; and arguments it does not know are dropped (a
misspelled `agentId` wrote to the default agent). Here every tool's argument model is
strict and forbids unknown names; only a JSON array or object sent as a string is unpacked,
for list and object parameters (some clients stringify those, and no string is a valid
list). A failure names the parameter and says what it accepts, from the same annotation
that publishes the schema.
"""

from __future__ import annotations

import difflib
import json
import types
import typing
from typing import Any, Callable, Literal

import annotated_types as at
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from pydantic import ConfigDict, ValidationError

from ..services.vocabulary import shown


def _container(annotation: Any) -> type | None:
    """list or dict when the parameter is one (optional or not)."""
    for arg in typing.get_args(annotation) if _is_union(annotation) else (annotation,):
        origin = typing.get_origin(arg) or arg
        if origin in (list, dict):
            return origin
    return None


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


class StrictArguments(FuncMetadata):
    """FuncMetadata that unpacks nothing but a stringified array or object."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        out = dict(data)
        for name, value in data.items():
            field = self.arg_model.model_fields.get(name)
            kind = field and _container(field.annotation)
            if kind and isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
                try:
                    parsed = json.loads(value)
                except (ValueError, RecursionError):
                    continue
                if isinstance(parsed, kind):
                    out[name] = parsed
        return out


def strict_tool(fn: Callable[..., Any], title: str | None = None, annotations: Any = None) -> Tool:
    """The SDK's Tool for `fn`, with a strict argument model that forbids unknown names."""
    tool = Tool.from_function(fn, title=title, annotations=annotations)
    lax = tool.fn_metadata.arg_model
    strict = type(
        lax.__name__,
        (lax,),
        {
            "model_config": ConfigDict(strict=True, extra="forbid", arbitrary_types_allowed=True),
            "__module__": lax.__module__,
        },
    )
    meta = StrictArguments(
        arg_model=strict,
        output_schema=tool.fn_metadata.output_schema,
        output_model=tool.fn_metadata.output_model,
        wrap_output=tool.fn_metadata.wrap_output,
    )
    return tool.model_copy(update={"fn_metadata": meta, "parameters": strict.model_json_schema(by_alias=True)})


def explain(tool: Tool, error: ValidationError) -> str:
    """A validation failure as `field: what it accepts`, one clause per field."""
    fields = tool.fn_metadata.arg_model.model_fields
    parts: list[str] = []
    unknown = [str(e["loc"][0]) for e in error.errors() if e["type"] == "extra_forbidden" and e.get("loc")]
    if unknown:
        close = [difflib.get_close_matches(n.lower(), [f.lower() for f in fields], n=1, cutoff=0.7) for n in unknown]
        hints = "".join(f" (did you mean {c[0]}?)" for c in close if c)
        names = ", ".join(shown(n) for n in unknown)
        parts.append(
            f"{names}: {'is not a parameter' if len(unknown) == 1 else 'are not parameters'} of "
            f"{tool.name}{hints}; its parameters are {', '.join(fields)}"
        )
    for e in error.errors():
        loc = e.get("loc") or ("arguments",)
        name = str(loc[0])
        if e["type"] == "extra_forbidden":
            continue
        field = fields.get(name)
        if field is None:
            parts.append(f"{shown(name)}: is not accepted")
            continue
        annotation, metadata = _walk(field.annotation, list(field.metadata), loc[1:])
        path = name + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[1:] if _shown_step(p))
        what = describe(annotation, metadata)
        parts.append(f"{path}: is required ({what})" if e["type"] == "missing" else f"{path}: must be {what}")
    return "; ".join(dict.fromkeys(parts))


def _shown_step(step: Any) -> bool:
    """Path steps worth showing: indexes and dict keys, not pydantic's union branch labels."""
    return isinstance(step, int) or (isinstance(step, str) and not step.startswith(("list[", "dict[", "function-")))


def _walk(annotation: Any, metadata: list, steps: tuple) -> tuple[Any, list]:
    """The annotation (and its constraints) of the part of a parameter at `steps`."""
    for step in steps:
        if not isinstance(step, (int, str)) or not _shown_step(step):
            continue
        inner = _non_none(annotation)
        args = typing.get_args(inner)
        if typing.get_origin(inner) is list and args:
            annotation, metadata = _unannotate(args[0])
        elif typing.get_origin(inner) is dict and len(args) == 2:
            annotation, metadata = _unannotate(args[1])
    return annotation, metadata


def _unannotate(annotation: Any) -> tuple[Any, list]:
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extra = typing.get_args(annotation)
        found = [m for x in extra for m in (getattr(x, "metadata", None) or [x])]
        return base, found
    return annotation, []


def _non_none(annotation: Any) -> Any:
    if _is_union(annotation):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


def _bounds(metadata: list) -> tuple[Any, Any, Any]:
    lo = next((m.ge for m in metadata if isinstance(m, at.Ge)), None)
    hi = next((m.le for m in metadata if isinstance(m, at.Le)), None)
    longest = next((m.max_length for m in metadata if isinstance(m, at.MaxLen)), None)
    return lo, hi, longest


def describe(annotation: Any, metadata: list) -> str:
    """What a parameter accepts, in words: 'a whole number from 1 to 5', 'true or false'."""
    base, more = _unannotate(annotation)
    metadata = metadata + more
    optional = _is_union(base) and type(None) in typing.get_args(base)
    inner = _non_none(base)
    lo, hi, longest = _bounds(metadata)
    origin = typing.get_origin(inner)
    if origin is Literal:
        text = "one of " + ", ".join(str(a) for a in typing.get_args(inner))
    elif inner is bool:
        text = "true or false"
    elif inner in (int, float):
        noun = "a whole number" if inner is int else "a number"
        text = (
            f"{noun} from {lo} to {hi}"
            if lo is not None and hi is not None
            else f"{noun} of at least {lo}"
            if lo is not None
            else noun
        )
    elif inner is str:
        text = f"a string of at most {longest} characters" if longest else "a string"
    elif origin is list:
        item = describe(typing.get_args(inner)[0], []) if typing.get_args(inner) else "values"
        text = f"a list of at most {longest} items, each {item}" if longest else f"a list, each item {item}"
    elif origin is dict or inner is dict:
        args = typing.get_args(inner)
        text = "a JSON object" if not args or args[1] is Any else f"an object whose values are {describe(args[1], [])}"
    else:
        text = "a valid value"
    return text + (" (or null)" if optional else "")
