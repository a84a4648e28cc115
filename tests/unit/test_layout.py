"""The package's layout rules, checked on the source: every hindsight/**/*.py is parsed (ast), never
imported, so this runs in well under a second without PostgreSQL or any optional dependency.

    rules/      pure: imports nothing of ours but hindsight.errors and other rules modules, and no
                standard module that does I/O or reads the clock (os, pathlib, socket, time, ...)
    data/       knows no faces (server, cli, ui) and not services
    faces       server, cli, ui import services, config, errors, logs, version, rules and faces;
                the parts only through services (two exceptions, each with its reason)
    parts       store, recall, views, upkeep, data, embedders, rules never import a face or services;
                embedders import only config, errors and embedders; store and recall never
                import each other
    cycles      no import cycle among hindsight modules
    size        no module over 400 lines, no function over 80 (from `def` to its last line,
                decorators excluded; methods and nested functions count on their own)
    packages    every folder with Python files has an __init__.py whose docstring has two
                lines or more: what the folder is and what it may import

What counts as an import: every `import` and `from ... import` statement, relative ones resolved
against the file's package (`from ..data import db` in hindsight/store/memories.py is
hindsight.data.db; `from . import views` in hindsight/ui/app.py is hindsight.ui.views). The
layering rules (rules/, data/, parts) look at all of them, wherever they stand: an import
inside a function or under `if TYPE_CHECKING:` still ties a part to what it names.

The cycle check looks only at imports that run when the module is loaded: those at module
level, outside `if TYPE_CHECKING:`. Imports inside a function run at its first call, when
every module is loaded, so they cannot fail for a cycle; they are excluded from it (a deferred
import is how a module reaches upward, e.g. config reading rules.timeparse for the local zone,
and the layering rules above still see it). Dynamic imports (importlib) are not seen at all.

Each test lists every file, import or function that breaks its rule, one per line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "hindsight"

FACES = ("server", "cli", "ui")
PARTS = ("hooks", "store", "recall", "views", "upkeep", "data", "embedders", "rules")
# A face reaches the parts through services only; it may read the pure rules (the vocabulary
# and checks of a request: memory types, field checks, the recall cut) as services do.
FACE_MAY_IMPORT = ("", "services", "config", "errors", "logs", *FACES)  # "": the package (its version)
PAST_THE_DOOR = {  # (face module, part module) -> why it may
    ("hindsight.server.main", "hindsight.data.pg_embedded"): "SIGINT gives up the embedded database at once, "
    "loading nothing else (Claude Code escalates after 100 ms)",
    ("hindsight.cli.hook_client", "hindsight.hooks.sockets"): "hindsight-hook is standard library only: it finds "
    "the server's socket and hands the event over",
    ("hindsight.cli.parser", "hindsight.rules.kinds"): "`hindsight --help` loads no services (150 ms at most): "
    "the memory types for --type are a constant of the rules, in a module of their own",
}
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
# Standard modules that do I/O or read the clock: rules may not import them.
IMPURE = {
    "os",
    "io",
    "sys",
    "pathlib",
    "shutil",
    "tempfile",
    "glob",
    "socket",
    "ssl",
    "select",
    "subprocess",
    "signal",
    "threading",
    "multiprocessing",
    "asyncio",
    "time",
    "sqlite3",
    "urllib",
    "http",
    "asyncpg",
    "psycopg",
    "httpx",
    "requests",
}
PURE_PARTS = ("urllib.parse",)  # string functions inside an impure package


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, hindsight.store.memories
    target: str  # what it imports, resolved: hindsight.data.db, or os, numpy
    line: int
    at_load: bool  # runs when the module is loaded (module level, not under TYPE_CHECKING)

    def where(self) -> str:
        return f"{path_of(self.source)}:{self.line}"


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module
    lines: int

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@lru_cache(maxsize=None)
def modules() -> dict[str, Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        source = path.read_text(encoding="utf-8")
        found[module_name(path)] = Module(
            module_name(path), path, ast.parse(source, str(path)), len(source.splitlines())
        )
    return found


def path_of(name: str) -> str:
    return str(modules()[name].path.relative_to(ROOT))


def part_of(name: str) -> str:
    """The folder or top-level module a hindsight module belongs to: store, ui, config, services."""
    pieces = name.split(".")
    return pieces[1] if len(pieces) > 1 else ""


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(body: list[ast.stmt], at_load: bool):
    """(import statement, runs at load) for every import in `body`, however deep."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, at_load
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _statements(node.body, False)
        elif isinstance(node, ast.If) and _type_checking(node.test):
            yield from _statements(node.body, False)
            yield from _statements(node.orelse, at_load)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _statements([n for n in inner if isinstance(n, ast.AST)], at_load)


def _resolve(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module a `from` statement reads from."""
    if not node.level:
        return node.module or ""
    package = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    if node.level - 1 > len(package) - 1:
        raise AssertionError(f"{path_of(module.name)}:{node.lineno}: relative import beyond the package")
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@lru_cache(maxsize=None)
def imports() -> tuple[Import, ...]:
    known = modules()
    out = []
    for module in known.values():
        for node, at_load in _statements(module.tree.body, True):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(module, node)
                # `from . import views` names a module; `from .html import fmt` names a value in one
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            out += [Import(module.name, target, node.lineno, at_load) for target in dict.fromkeys(targets)]
    return tuple(out)


def ours(target: str) -> bool:
    return target == "hindsight" or target.startswith("hindsight.")


def broken(rule, message: str) -> list[str]:
    return [f"{i.where()}: {i.source} imports {i.target} ({message})" for i in imports() if rule(i)]


def test_the_package_is_found():
    assert "hindsight.rules.policy" in modules() and "hindsight.ui.views" in modules()
    assert any(i.target == "hindsight.data.db" for i in imports() if i.source.startswith("hindsight.store."))


def test_rules_import_only_errors_and_rules():
    bad = broken(
        lambda i: (
            part_of(i.source) == "rules"
            and ours(i.target)
            and not (i.target == "hindsight.errors" or part_of(i.target) == "rules")
        ),
        "rules import nothing of ours but hindsight.errors and other rules",
    )
    bad += broken(
        lambda i: (
            part_of(i.source) == "rules" and i.target.split(".")[0] in IMPURE and not i.target.startswith(PURE_PARTS)
        ),
        "rules are pure: no I/O, no clock",
    )
    assert not bad, "\n" + "\n".join(bad)


def test_data_knows_no_faces_and_no_services():
    bad = broken(
        lambda i: part_of(i.source) == "data" and ours(i.target) and part_of(i.target) in (*FACES, "services"),
        "data knows no faces and no services",
    )
    assert not bad, "\n" + "\n".join(bad)


def test_faces_reach_the_parts_only_through_services():
    bad = broken(
        lambda i: (
            part_of(i.source) in FACES
            and ours(i.target)
            and part_of(i.target) not in FACE_MAY_IMPORT
            and (i.source, i.target) not in PAST_THE_DOOR
        ),
        "a face imports services, config, errors, logs, faces and the version; the parts and the rules through "
        "services (services.vocabulary: what of the rules a face may use)",
    )
    assert not bad, "\n" + "\n".join(bad)
    for face, part in PAST_THE_DOOR:  # each exception is still needed
        assert any(i.source == face and i.target == part for i in imports()), (face, part)


def test_parts_never_import_faces_or_services():
    bad = broken(
        lambda i: part_of(i.source) in PARTS and ours(i.target) and part_of(i.target) in (*FACES, "services"),
        "parts never import faces (server, cli, ui) or services",
    )
    bad += broken(
        lambda i: (
            part_of(i.source) == "embedders"
            and ours(i.target)
            and part_of(i.target) not in ("config", "errors", "embedders")
        ),
        "embedders import only config, errors and embedders",
    )
    bad += broken(
        lambda i: {part_of(i.source), part_of(i.target)} == {"store", "recall"},
        "store and recall never import each other (what both need lives in data or rules)",
    )
    assert not bad, "\n" + "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module, or a module importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:  # Tarjan; the graph is a few dozen modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_at_load():
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    lines: dict[tuple[str, str], int] = {}
    for i in imports():
        if i.at_load and i.target in graph:
            graph[i.source].add(i.target)
            lines.setdefault((i.source, i.target), i.line)
    report = []
    for component in _cycles(graph):
        inside = set(component)
        report.append("cycle among " + ", ".join(component) + ":")
        report += [
            f"    {path_of(a)}:{lines[a, b]}: {a} imports {b}" for a in component for b in sorted(graph[a] & inside)
        ]
    assert not report, "\n" + "\n".join(report)


def test_modules_and_functions_are_short():
    report = [
        f"{path_of(m.name)}: {m.lines} lines (at most {MAX_MODULE_LINES})"
        for m in modules().values()
        if m.lines > MAX_MODULE_LINES
    ]
    for m in modules().values():
        for qualname, node in _functions(m.tree.body, ""):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                report.append(f"{path_of(m.name)}:{node.lineno}: {qualname} is {length} lines (at most 80)")
    assert not report, "\n" + "\n".join(report)


def _functions(body: list[ast.stmt], prefix: str):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from _functions(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _functions([n for n in inner if isinstance(n, ast.AST)], prefix)


def test_every_package_says_what_it_is_and_may_import():
    folders = sorted({p.parent for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts})
    report = []
    for folder in folders:
        init = folder / "__init__.py"
        where = str(init.relative_to(ROOT))
        if not init.exists():
            report.append(f"{where}: missing (a folder of modules is a package with a docstring)")
            continue
        doc = ast.get_docstring(modules()[module_name(init)].tree) or ""
        if len(doc.strip().splitlines()) < 2:
            report.append(f"{where}: the docstring needs two lines or more: what it is, what it may import")
    assert not report, "\n" + "\n".join(report)


CLOCK_CALLS = {"now", "utcnow", "today", "time", "monotonic", "perf_counter"}


def test_rules_read_no_clock():
    """Pure rules take the time they need as an argument: no datetime.now(), date.today(),
    time.time() and the like anywhere in rules/ (the import check cannot see these)."""
    report = []
    for name, module in modules().items():
        if part_of(name) != "rules":
            continue
        for node in ast.walk(module.tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in CLOCK_CALLS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in ("datetime", "date", "time")
            ):
                report.append(f"{path_of(name)}:{node.lineno}: {node.func.value.id}.{node.func.attr}() reads the clock")
    assert not report, "\n" + "\n".join(report)


def test_every_package_is_installed():
    """pyproject.toml lists packages by hand (sql/ and alembic/ are mapped into the package):
    a new folder missing from that list works in a checkout and is absent from a wheel."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts
    }
    assert folders <= listed, f"missing from [tool.setuptools] packages: {sorted(folders - listed)}"
