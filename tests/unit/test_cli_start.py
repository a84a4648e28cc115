"""The command line starts at once: `--version` and `--help` import nothing heavy (no
database driver, no numpy, no services); every command's handler, imported only when it runs,
is there to import."""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys

from hindsight.cli.parser import Lazy, parser

HEAVY = ("numpy", "asyncpg", "cryptography", "mcp", "hindsight.services", "hindsight.data.bootstrap")
PROBE = """
import sys
from hindsight.cli.main import main
try:
    main([{arg!r}])
except SystemExit:
    pass
print("heavy:" + ",".join(m for m in {heavy!r} if m in sys.modules))
"""


def test_version_and_help_import_nothing_heavy():
    for arg in ("--version", "--help"):
        done = subprocess.run(
            [sys.executable, "-c", PROBE.format(arg=arg, heavy=HEAVY)], capture_output=True, text=True, check=True
        )
        assert done.stdout.splitlines()[-1] == "heavy:", (arg, done.stdout)


def _handlers(p: argparse.ArgumentParser):
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _handlers(sub)
    for key in ("handler", "load"):
        found = p.get_default(key)
        if found is not None:
            yield found


def test_every_handler_resolves_to_a_function():
    found = list(_handlers(parser()))
    assert len(found) > 20 and all(isinstance(h, Lazy) for h in found)
    for handler in found:
        assert inspect.isfunction(handler.resolve()), handler


def test_the_servers_first_moments_import_nothing_heavy():
    """hindsight-server answers initialize from what server.main imports at the top (the
    front, the handshake, the instructions) while the rest loads behind it: none of that may
    pull the services, the MCP SDK or a database driver in (Claude Code gives up on a server
    that has not answered in time)."""
    probe = "import sys, hindsight.server.main\n" + PROBE.splitlines()[-1].format(heavy=HEAVY) + "\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "heavy:", done.stdout
