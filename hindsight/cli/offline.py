"""The commands that run without the services: plain functions of (args, settings).
`run` hands them the settings and nothing else; doctor reaches the database only to report
on it, and the ui's server opens what it needs itself.
"""

from __future__ import annotations

import json
import shutil
import sys

from ..config import Settings


def cmd_keygen(args, settings: Settings) -> int:
    from cryptography.fernet import Fernet

    print(Fernet.generate_key().decode())
    return 0


def cmd_doctor(args, settings: Settings) -> int:
    from ..services import checks
    from .doctor import stdout_check
    from .main import progress

    say = progress("doctor")  # each step on stderr as it starts; what it found on stdout
    say("checking the database")
    url = checks.database(settings, say)
    print(f"database: {checks.shown(url) if settings.database_url else _embedded_where(url)}")
    say("checking pgvector")
    print(f"pgvector: {checks.pgvector(url)}")
    say("checking the search settings")
    in_force, expected = checks.search_settings(url)
    kept = in_force == expected
    shown = ", ".join(f"{k}={v}" for k, v in in_force.items())
    print(f"search:   {shown}" + ("" if kept else f" (expected {', '.join(f'{k}={v}' for k, v in expected.items())})"))
    found, _ = checks.schema(url)
    name, dim = checks.embedder(settings)
    say(f"loading the embedder {name}")
    checks.load_embedder(settings)
    print(f"embedder: {name} ({dim}-d) loads")
    say("starting hindsight-server as an IDE would, to check its stdout")
    clean, detail = stdout_check(_server_exe())  # the server migrates before it serves
    print(f"stdio:    {detail}")
    say("reading the schema's revision")
    current, head = checks.schema(url)
    moved = f", migrated from {found or 'nothing'} by the server's start" if current != found else ""
    print(f"schema:   {current or 'not migrated'} (newest {head}{moved})")
    return 0 if current == head and clean and kept else 1


def _embedded_where(url: str) -> str:
    """The embedded database listens on no TCP port: only on a private unix socket."""
    from urllib.parse import parse_qs, urlsplit

    folder = parse_qs(urlsplit(url).query).get("host", ["?"])[0]
    return f"embedded, on the unix socket in {folder} (no TCP port; psql -h {folder} -U postgres postgres)"


def _server_exe() -> str:
    """The hindsight-server installed with this CLI (same virtualenv), else the one on PATH."""
    from pathlib import Path

    beside = Path(sys.executable).parent / "hindsight-server"
    return str(beside) if beside.exists() else shutil.which("hindsight-server") or "hindsight-server"


def cmd_mcp_config(args, settings: Settings) -> int:
    from .ide_config import config_for, entry_of, toml_for

    config, notes = config_for(args.client, _server_exe(), settings)
    if args.entry:
        print(json.dumps(entry_of(config), ensure_ascii=False))
    elif args.client == "codex":
        print(toml_for(config), end="")
    else:
        print(json.dumps(config, indent=2, ensure_ascii=False))
    for note in notes:
        print(f"hindsight mcp-config: {note}", file=sys.stderr)
    return 0


def cmd_ui(args, settings: Settings) -> int:
    from ..ui.serve import run as serve

    return serve(settings, port=args.port, open_browser=not args.no_browser, agent=args.agent)
