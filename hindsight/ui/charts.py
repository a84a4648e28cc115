"""Bar charts as inline SVG: no script, no external file, scales with the page. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from .html import Safe, fmt, join

WIDTH, HEIGHT = 640, 210
LEFT, RIGHT, TOP, BOTTOM = 44, 18, 26, 36


@dataclass(frozen=True)
class Series:
    name: str
    color: str
    values: list[int]


def _nice_max(value: int) -> int:
    """The axis top: 1, 2 or 5 times a power of ten, at least `value`."""
    step = 1
    while True:
        for m in (1, 2, 5):
            if m * step >= value:
                return m * step
        step *= 10


def bars(
    title: str,
    labels: list[str],
    series: list[Series],
    *,
    label_every: int = 1,
    marker: tuple[float, str] | None = None,
    edges: bool = False,
) -> Safe:
    """Stacked bars, one per label. `marker`: (x position in bars, text) draws a dashed line.
    `edges`: each label (and its tick) sits at its bar's left edge, where a histogram's bin
    starts (0.3 is where the 0.3-0.4 bar begins, so a marker at 3 sits on the 0.3 tick),
    instead of under the bar's middle."""
    n = max(len(labels), 1)
    top = _nice_max(max([sum(s.values[i] for s in series) for i in range(len(labels))] + [1]))
    slot = (WIDTH - LEFT - RIGHT) / n
    parts = _columns(labels, series, top, slot, label_every, 0.0 if edges else 0.5)
    if marker is not None:
        parts.append(_marker(marker, slot))
    return fmt(
        '<svg viewBox="0 0 {w} {h}" role="img" aria-label="{title}" xmlns="http://www.w3.org/2000/svg">'
        "<title>{title}</title>{legend}{axis}{parts}</svg>",
        w=WIDTH,
        h=HEIGHT,
        title=title,
        legend=_legend(series),
        axis=_axis(top),
        parts=join(parts),
    )


def _columns(labels: list[str], series: list[Series], top: int, slot: float, label_every: int, at: float) -> list[Safe]:
    """Each label's stacked rectangles (bottom series first), then its tick and label where
    one is due, `at` (0: the left edge, 0.5: the middle) of its bar."""
    n = max(len(labels), 1)
    plot_h = HEIGHT - TOP - BOTTOM
    parts: list[Safe] = []
    for i, label in enumerate(labels):
        base = 0
        x = LEFT + i * slot + slot * 0.12
        for s in series:
            v = s.values[i]
            if v:
                y0 = TOP + plot_h * (1 - (base + v) / top)
                parts.append(
                    fmt(
                        '<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{c}"><title>{t}</title></rect>',
                        x=f"{x:.1f}",
                        y=f"{y0:.1f}",
                        w=f"{slot * 0.76:.1f}",
                        h=f"{plot_h * v / top:.1f}",
                        c=s.color,
                        t=f"{label}: {v} {s.name}",
                    )
                )
            base += v
        if i % label_every == 0 or i == n - 1:
            parts.append(
                fmt(
                    '<line x1="{x}" x2="{x}" y1="{b}" y2="{tb}" stroke="#b9c1cf"/>'
                    '<text x="{x}" y="{y}" font-size="13" text-anchor="middle" fill="#5b6475">{t}</text>',
                    x=f"{LEFT + (i + at) * slot:.1f}",
                    b=HEIGHT - BOTTOM,
                    tb=HEIGHT - BOTTOM + 4,
                    y=HEIGHT - BOTTOM + 15,
                    t=label,
                )
            )
    return parts


def _marker(marker: tuple[float, str], slot: float) -> Safe:
    mx = LEFT + marker[0] * slot
    return fmt(
        '<line x1="{x}" x2="{x}" y1="{t}" y2="{b}" stroke="#b3261e" stroke-dasharray="4 3"/>'
        '<text x="{tx}" y="{ty}" font-size="13" fill="#b3261e">{label}</text>',
        x=f"{mx:.1f}",
        t=TOP - 4,
        b=HEIGHT - BOTTOM,
        tx=f"{mx + 4:.1f}",
        ty=TOP + 8,
        label=marker[1],
    )


def _axis(top: int) -> Safe:
    """The baseline, the top gridline and their values."""
    return fmt(
        '<line x1="{l}" x2="{r}" y1="{b}" y2="{b}" stroke="#b9c1cf"/>'
        '<line x1="{l}" x2="{r}" y1="{t}" y2="{t}" stroke="#eef1f6"/>'
        '<text x="{tx}" y="{ty}" font-size="13" text-anchor="end" fill="#5b6475">{top}</text>'
        '<text x="{tx}" y="{b}" font-size="13" text-anchor="end" fill="#5b6475">0</text>',
        l=LEFT,
        r=WIDTH - RIGHT,
        b=HEIGHT - BOTTOM,
        t=TOP,
        tx=LEFT - 6,
        ty=TOP + 4,
        top=top,
    )


def _legend(series: list[Series]) -> Safe:
    """A swatch and name per series; none for a single series."""
    return join(
        fmt(
            '<rect x="{x}" y="4" width="10" height="10" fill="{c}"/>'
            '<text x="{tx}" y="13" font-size="13" fill="#1d2330">{name}</text>',
            x=LEFT + 130 * k,
            tx=LEFT + 130 * k + 14,
            c=s.color,
            name=s.name,
        )
        for k, s in enumerate(series)
        if len(series) > 1
    )
