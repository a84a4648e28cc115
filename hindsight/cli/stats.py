"""`hindsight stats` rendered: counts by agent, type and state, a decay histogram, the last
runs (read by services' views.stats)."""

from __future__ import annotations

from typing import Any

from ..services.vocabulary import RECALL_CUT

STATE_COLUMNS = [
    ("agent", "agent_id"),
    ("type", "memory_type"),
    ("current", "current"),
    ("invalid", "invalidated"),
    ("expired", "expired"),
    ("consol", "consolidated"),
    ("faded", "faded"),
    ("review", "needs_review"),
]
LEGEND = (
    f"invalid: invalidated or superseded; consol: folded into a consolidated memory; "
    f"faded: decay_score below {RECALL_CUT} (default recall skips it); review: flagged needs_review"
)


def render(data: dict[str, Any], width: int = 80, file=None) -> None:
    """Tables that fit `width` columns (80 when the output is not a terminal)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(width=width, file=file, highlight=False)

    def table(title: str, headers: list[str], rows: list[list[str]], right: set[str] = frozenset()) -> None:
        console.print(title, style="bold", overflow="fold")
        t = Table(box=box.SIMPLE)
        for h in headers:
            t.add_column(h, justify="right" if h in right else "left", overflow="fold")
        for row in rows:
            t.add_row(*row)
        console.print(t)

    numbers = {h for h, _ in STATE_COLUMNS[2:]}
    table(
        "memories by agent, type and state",
        [h for h, _ in STATE_COLUMNS],
        [[str(row[key]) for _, key in STATE_COLUMNS] for row in data["by_state"]],
        numbers,
    )
    console.print(LEGEND)
    if data["archived"]:
        table(
            "archived",
            ["agent", "reason", "memories"],
            [[r["agent_id"], r["archive_reason"], str(r["n"])] for r in data["archived"]],
            {"memories"},
        )
    table(
        f"decay_score of current memories (recall skips < {RECALL_CUT})",
        ["decay", "memories"],
        [[bucket, str(n)] for bucket, n in data["decay_histogram"].items()],
        {"memories"},
    )
    if not data["runs"]:
        console.print(
            "\nlast maintenance runs: none yet (`hindsight maintain` runs one; `hindsight scheduler`, nightly)"
        )
        return
    table(
        "last maintenance runs",
        ["run", "started", "as of", "status", "dry", "trigger", "s"],
        [
            [
                str(r["id"]),
                f"{r['started_at']:%Y-%m-%d %H:%M}",
                f"{r['as_of']:%Y-%m-%d %H:%M}",
                r["status"],
                "yes" if r["dry_run"] else "no",
                r["trigger"],
                str((r["report"] or {}).get("seconds", "")),
            ]
            for r in data["runs"]
        ],
        {"run", "s"},
    )
