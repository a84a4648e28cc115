"""HTML that escapes by default. Memory content is untrusted (it may hold `</script>` or
instructions); every value that reaches a page goes through `fmt`, which escapes all but
`Safe` strings, and `Safe` strings are made only here and by `fmt` itself."""

from __future__ import annotations

import json
from html import escape
from typing import Any, Iterable
from urllib.parse import urlencode


class Safe(str):
    """Markup that is already escaped. Adding text to it escapes the text."""

    def __add__(self, other: Any) -> "Safe":
        return Safe(str.__add__(self, esc(other)))

    def __radd__(self, other: Any) -> "Safe":
        return Safe(str.__add__(esc(other), self))


def esc(value: Any) -> Safe:
    if isinstance(value, Safe):
        return value
    return Safe(escape("" if value is None else str(value), quote=True))


def fmt(template: str, **values: Any) -> Safe:
    """`template` (trusted markup with {name} fields) filled with escaped values."""
    return Safe(template.format(**{k: esc(v) for k, v in values.items()}))


def join(parts: Iterable[Any], sep: str = "") -> Safe:
    return Safe(sep.join(esc(p) for p in parts))


def href(path: str, **params: Any) -> str:
    """A link with its query string; empty values are left out. (Escaped when placed.)"""
    kept = {k: v for k, v in params.items() if v not in (None, "", [], False)}
    return path + ("?" + urlencode(kept, doseq=True) if kept else "")


def pretty_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)


def short(text: str | None, limit: int = 160) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


NAV = (
    ("overview", "/", "Overview"),
    ("search", "/search", "Search"),
    ("memories", "/memories", "Memories"),
    ("conflicts", "/conflicts", "Conflicts"),
    ("archive", "/archive", "Archive"),
)


def layout(
    *, title: str, body: Safe, nonce: str, agent: str, agents: list[str], current: str, notice: str | None = None
) -> str:
    links = join(
        fmt(
            '<a href="{url}"{cls}>{label}</a>',
            url=href(path, agent=agent),
            label=label,
            cls=Safe(' class="here" aria-current="page"' if key == current else ""),
        )
        for key, path, label in NAV
    )
    options = join(
        fmt('<option value="{a}"{sel}>{a}</option>', a=a, sel=Safe(" selected" if a == agent else "")) for a in agents
    )
    switch = (
        fmt(
            '<form class="agent" method="get" action="/"><label>agent <select name="agent">{options}'
            '</select></label> <button type="submit">switch</button></form>',
            options=options,
        )
        if len(agents) > 1
        else fmt('<span class="agent">agent <b>{agent}</b></span>', agent=agent)
    )
    shown = fmt('<p class="notice" role="status">{n}</p>', n=notice) if notice else Safe("")
    return fmt(PAGE, title=title, nonce=nonce, css=Safe(CSS), links=links, switch=switch, notice=shown, body=body)


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>{title} · hindsight</title>
<link rel="icon" href="data:,">
<style nonce="{nonce}">{css}</style>
</head>
<body>
<header><span class="brand">hindsight</span><nav>{links}</nav>{switch}</header>
<main>
{notice}
{body}
</main>
</body>
</html>
"""

CSS = """
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dee7; --bg: #f6f7f9; --card: #fff;
  --accent: #2f5fd0; --warn: #a4461a; --ok: #23744a; --bad: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); line-height: 1.45; font-size: 15px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial,
  "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC",
  "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", sans-serif; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.25rem; padding: .6rem 1rem;
  background: #1d2330; color: #fff; }
header a { color: #cfd8ee; text-decoration: none; padding: .15rem .4rem; border-radius: 4px; }
header a.here, header a:hover { background: #34405a; color: #fff; }
header nav { display: flex; flex-wrap: wrap; gap: .25rem; }
.brand { font-weight: 700; letter-spacing: .02em; }
.agent { margin-left: auto; font-size: .9rem; }
.agent select, .agent button { font: inherit; }
main { max-width: 1180px; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.35rem; margin: .2rem 0 .8rem; }
h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
h3 { font-size: .95rem; margin: .8rem 0 .3rem; }
a { color: var(--accent); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 1rem; margin-bottom: 1rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .9rem 1rem;
  min-width: 0; margin-bottom: 1rem; }
.grid .card { margin-bottom: 0; }
.grid .span { grid-column: 1 / -1; }
.muted, .hint { color: var(--muted); font-size: .88rem; }
.notice { background: #e7f3ec; border: 1px solid #b8dcc6; padding: .5rem .8rem; border-radius: 6px; }
.error { background: #fbeae8; border: 1px solid #eab8b2; padding: .5rem .8rem; border-radius: 6px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .45rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.content { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 1rem; margin: .2rem 0 .6rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f1f3f7; padding: .5rem; border-radius: 6px;
  font-size: .85rem; margin: .3rem 0; }
.tag, .flag, .chan { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .8rem;
  border: 1px solid var(--line); background: #eef1f6; margin: 0 .2rem .2rem 0; }
.flag { background: #fdf0e6; border-color: #f0c9a9; color: var(--warn); }
.chan { background: #e8effd; border-color: #bfcff3; }
.state-current { color: var(--ok); } .state-gone { color: var(--bad); } .state-old { color: var(--warn); }
.hit { border-top: 1px solid var(--line); padding: .7rem 0; }
.hit:first-of-type { border-top: 0; }
.hit .head { display: flex; flex-wrap: wrap; gap: .3rem .8rem; align-items: baseline; }
.hit ul { margin: .3rem 0 0 1.1rem; padding: 0; }
.parts td { padding: .15rem .4rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .9rem; margin: 0; font-size: .9rem; }
dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; overflow-wrap: anywhere; }
form.search { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: .5rem .8rem;
  align-items: end; }
form.search .wide { grid-column: 1 / -1; }
label { display: block; font-size: .85rem; color: var(--muted); }
input, select, textarea { font: inherit; color: var(--fg); width: 100%; padding: .3rem .4rem;
  border: 1px solid #b9c1cf; border-radius: 5px; background: #fff; }
input[type=checkbox] { width: auto; }
.inline label { display: inline; }
button { font: inherit; padding: .35rem .9rem; border-radius: 5px; border: 1px solid #1d3f94;
  background: var(--accent); color: #fff; cursor: pointer; }
button.danger { background: var(--bad); border-color: #7d1a14; }
button.quiet { background: #fff; color: var(--fg); border-color: #b9c1cf; }
form.act { margin: .4rem 0; }
.timeline { list-style: none; margin: 0; padding: 0; }
.timeline li { border-left: 3px solid var(--line); padding: .2rem 0 .6rem .8rem; position: relative; }

.pair { display: grid; grid-template-columns: 1fr 1fr; gap: .8rem; align-items: end; }
.act h3 { margin-top: 0; }
svg { display: block; width: 100%; height: auto; max-width: 100%; }
svg.bar { display: inline-block; width: 120px; height: 8px; }
table.parts { width: auto; min-width: 16rem; }
svg text { font-family: inherit; }
@media (max-width: 640px) {
  main { padding: .6rem; }
  .grid { grid-template-columns: 1fr; }
  .pair { grid-template-columns: 1fr; }
  .agent { margin-left: 0; }
  dl.meta { grid-template-columns: 1fr; }
  dl.meta dt { margin-top: .3rem; }
}
"""
