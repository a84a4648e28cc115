"""The commands that correct one memory: forget (after asking), invalidate, restore.
Each prints a line of text, or JSON with --json."""

from __future__ import annotations

import sys
import uuid

from ..errors import InvalidInput, NotFound
from ..services import Services, delete_request, get_request, invalidate_request
from . import render
from .commands import _json, _now, _resolve


async def cmd_forget(args, s: Services) -> int:
    agent = s.agent(args.agent)
    mid = await _resolve(s, agent, args.memory_id)
    if not args.yes and not await _confirm_forget(s, agent, mid):
        print("hindsight forget: nothing deleted", file=sys.stderr)
        return 1
    try:
        result = {"deleted": True, "id": str(await s.memories.delete(delete_request(agent, mid, call="cli forget")))}
    except NotFound:
        result = await s.forget_archived(agent, mid)
    if args.json:
        _json(result)
    else:
        print(f"deleted {result['id']}{' (from the archive)' if result.get('archived') else ''}")
    return 0


async def _confirm_forget(s: Services, agent: str, mid: uuid.UUID) -> bool:
    """Ask on the terminal before deleting for good; without one, --yes must say so."""
    if not sys.stdin.isatty():
        raise InvalidInput("--yes", "forget deletes for good and there is no terminal to ask; pass --yes to confirm")
    try:
        content = (await s.memories.get(get_request(agent, mid))).content
    except NotFound:
        content = "(archived)"
    answer = input(f"Delete {str(mid)[:8]} for good? {render.one_line(content, 60)}\n[y/N] ")
    return answer.strip().lower() in ("y", "yes")


async def cmd_invalidate(args, s: Services) -> int:
    agent = s.agent(args.agent)
    mid = await _resolve(s, agent, args.memory_id)
    replacement = await _resolve(s, agent, args.replaced_by) if args.replaced_by else None
    m = (
        await s.memories.invalidate(invalidate_request(agent, mid, args.reason, replacement, call="cli invalidate"))
    ).json()
    done = {
        "invalidated": m["id"],
        "at": m["invalidated_at"],
        "reason": m["invalidation_reason"],
        "replaced_by": m["invalidated_by"],
    }
    if args.json:
        _json(done)
    else:
        by = f"; superseded by {done['replaced_by']}" if done["replaced_by"] else ""
        print(f"invalidated {done['invalidated']} at {done['at']}: {done['reason']}{by}")
    return 0


async def cmd_restore(args, s: Services) -> int:
    agent = s.agent(args.agent)
    mid = await _resolve(s, agent, args.memory_id)
    back = await s.restore(agent, mid, _now(None))
    if args.json:
        _json(back)
    else:
        print(
            f"restored {back['restored']} ({'current' if back['current'] else 'as history'}; "
            f"archived for {back['reason']}, decay_score {back['decay_score']:.2f})"
        )
    return 0
