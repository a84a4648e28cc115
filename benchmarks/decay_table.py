"""Days until an unused memory leaves default recall, per layer and importance: the first
day its decay_score (PostgreSQL's own hindsight_decay) falls below recall's 0.3 cut, or
the day it expires (importance-based retention), whichever comes first.

    python benchmarks/decay_table.py [--strength 1.0]

Runs against a throwaway embedded database; prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hindsight.data import migrate
from hindsight.data import pg_embedded as embedded
from hindsight.data.db import connect_once
from hindsight.rules.policy import RETENTION_DAYS, WORKING_TTL
from hindsight.rules.scoring import RECALL_CUT
from hindsight.upkeep.maintenance import DECAY_LAMBDA

LAYERS = ("working", "episodic", "semantic", "procedural")
HORIZON = 4000  # days


async def hidden_after(url: str, layer: str, importance: int, strength: float) -> int | None:
    """The first whole day the decay falls below the cut (None: never within the horizon)."""
    conn = await connect_once(url)
    try:
        t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
        day = await conn.fetchval(
            "SELECT min(d) FROM generate_series(0, $6) d "
            "WHERE hindsight_decay($1::real, 0, $2::timestamptz, $3::smallint, $4::text, "
            "$2::timestamptz + d * interval '1 day', $5::float8) < $7",
            strength,
            t0,
            importance,
            layer,
            DECAY_LAMBDA,
            HORIZON,
            RECALL_CUT,
        )
        return day
    finally:
        await conn.close()


def expires_after(layer: str, importance: int) -> float | None:
    days = RETENTION_DAYS[importance]
    if layer == "working":
        return min(WORKING_TTL, timedelta(days=days)).days if days else WORKING_TTL.days
    return days


def cell(decay: int | None, expiry: float | None) -> str:
    if decay is None and expiry is None:
        return "never"
    if expiry is not None and (decay is None or expiry <= decay):
        return f"{expiry:g} (expires)"
    return f"{decay} (decay)"


async def main(strength: float) -> None:
    with tempfile.TemporaryDirectory(prefix="hs-decay-") as home:
        url = embedded.start(Path(home))
        try:
            await asyncio.to_thread(migrate.upgrade, url)
            print(
                f"Days until an unused memory (strength {strength}) leaves default recall "
                f"(decay < {RECALL_CUT} or expiry)\n"
            )
            print("| layer | " + " | ".join(f"importance {i}" for i in range(1, 6)) + " |")
            print("|---|" + "---|" * 5)
            for layer in LAYERS:
                cells = [
                    cell(await hidden_after(url, layer, i, strength), expires_after(layer, i)) for i in range(1, 6)
                ]
                print(f"| {layer} | " + " | ".join(cells) + " |")
        finally:
            embedded.release()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strength", type=float, default=1.0, help="1.0, or the guard's 0.7 / 0.5")
    asyncio.run(main(parser.parse_args().strength))
