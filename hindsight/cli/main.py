"""The `hindsight` command line. Data goes to stdout; progress, logs and errors to stderr.
Errors are one line and a non-zero exit, never a traceback.

A command is either a plain function of (args, settings) — keygen, doctor, mcp-config, ui,
in offline — or an `async def` of (args, services), in commands: `run` gets the database
ready (one synchronous step: start or join it, migrate), opens the services once and hands
them over. The argparse tree is in parser.
"""

from __future__ import annotations

import inspect
import sys

from ..config import Settings
from ..errors import HindsightError
from .parser import parser


def run(args, settings: Settings) -> int:
    handler = args.handler.resolve()
    if not inspect.iscoroutinefunction(handler):
        return handler(args, settings)
    if getattr(args, "load", None):
        args.loaded = args.load.resolve()(args)
    import asyncio

    from ..services import opened, prepare  # the heavy parts, imported once a command needs the database

    url = prepare(settings, check_embedder=getattr(args, "check_embedder", True), progress=progress(args.command))

    async def work() -> int:
        async with opened(settings, url) as services:
            return await handler(args, services)

    return asyncio.run(work())


def progress(command: str):
    """A slow step, said on stderr as it starts: `hindsight token: starting the embedded database in …`."""

    def say(step: str) -> None:
        print(f"hindsight {command}: {step}…", file=sys.stderr, flush=True)

    return say


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)  # --version and --help end here, before logging is set up
    from .. import logs  # the log redactor compiles the secret detectors' patterns

    logs.setup()
    try:
        settings = Settings.from_env()
        logs.setup(settings.log_level)
        code = run(args, settings)
    except HindsightError as exc:
        print(f"hindsight {args.command}: error: {exc}", file=sys.stderr)
        code = 2
    except OSError as exc:
        print(f"hindsight {args.command}: error: {exc.strerror or exc}: {exc.filename or ''}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    raise SystemExit(code)


if __name__ == "__main__":
    main()
