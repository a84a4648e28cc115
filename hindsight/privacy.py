"""Secrets and personal data: find them, redact them, seal the originals.

Pure except for the cipher: `find` and `redact` are plain functions; `Sealer` wraps the
`cryptography` package's Fernet (AES-128-CBC + HMAC-SHA256) around HINDSIGHT_ENCRYPTION_KEY.
What is stored in plain columns is always the redacted form; the original goes only into
the sealed column, and only when a key is configured.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from .errors import ConfigError, HindsightError


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


# (kind, pattern, group holding the secret: 0 = the whole match)
_PATTERNS: list[tuple[str, re.Pattern, int]] = [
    ("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S), 0),
    ("api_key", re.compile(
        r"(?<![\w-])(?:sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"
        r"|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
        r"|xox[baprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_\-]{35}|glpat-[A-Za-z0-9_\-]{20,}"
        r"|hf_[A-Za-z0-9]{30,})"), 0),
    ("token", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), 0),
    ("token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/\-]{16,}=*)"), 1),
    ("password", re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:([^\s@/]+)@"), 1),
    # "password: hunter2", "api_key=...", "my token is ...", "密码是 ..."
    ("password", re.compile(
        r"(?i)(?:\b(?:password|passwd|pwd|passphrase)|密码|口令)[\"']?\s*(?:[:=：]|\bis\b|是|为)\s*[\"']?([^\s\"',;，。]{3,})"), 1),
    ("secret", re.compile(
        r"(?i)(?:\b(?:api[_\- ]?key|access[_\- ]?key|secret(?:[_\- ]?key)?|client[_\- ]?secret|auth[_\- ]?token|"
        r"access[_\- ]?token|token)|密钥|令牌)[\"']?\s*(?:[:=：]|\bis\b|是|为)\s*[\"']?([^\s\"',;，。]{8,})"), 1),
    ("email", re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"), 0),
    ("card_number", re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])"), 0),
    ("national_id", re.compile(r"(?<!\d)\d{6}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?!\d)"), 0),
    ("phone", re.compile(r"(?<![\w+])\+\d{1,3}[ \-]?(?:\(\d{1,4}\)[ \-]?)?\d{2,4}(?:[ \-]?\d{2,4}){1,3}(?!\d)"), 0),
    ("phone", re.compile(r"(?<!\d)1[3-9]\d{9}(?!\d)"), 0),
    ("phone", re.compile(r"(?<![\w.])\(?\d{3}\)?[ .\-]\d{3}[ .\-]\d{4}(?![\w.])"), 0),
]


def _valid(kind: str, text: str) -> bool:
    if kind == "card_number":
        digits = re.sub(r"\D", "", text)
        return 13 <= len(digits) <= 19 and _luhn(digits)
    return True


_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z_]+\]")


def _outside(text: str, start: int, end: int, kept: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of text[start:end] outside placeholders (a fake placeholder in front of a
    secret does not hide the secret)."""
    parts, pos = [], start
    for s, e in kept:
        if e <= pos or s >= end:
            continue
        if s > pos:
            parts.append((pos, s))
        pos = max(pos, e)
    if pos < end:
        parts.append((pos, end))
    return [(a, b) for a, b in parts if text[a:b].strip()]


def find(text: str) -> list[tuple[int, int, str]]:
    """Spans (start, end, kind) of secrets and personal data in `text`, not overlapping.
    A placeholder left by an earlier redaction is not a secret: redacting is idempotent
    (an exported "api key is [REDACTED:api_key]" imports unchanged)."""
    kept = [(m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)]
    spans: list[tuple[int, int, str]] = []
    for kind, pattern, group in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span(group)
            if start < 0 or not _valid(kind, m.group(group)):
                continue
            for a, b in _outside(text, start, end, kept):
                if not any(s < b and a < e for s, e, _ in spans):
                    spans.append((a, b, kind))
    return sorted(spans)


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with every secret replaced by a placeholder, and the kinds found."""
    spans = find(text)
    if not spans:
        return text, []
    out, last = [], 0
    for start, end, kind in spans:
        out += [text[last:start], placeholder(kind)]
        last = end
    out.append(text[last:])
    return "".join(out), [kind for _, _, kind in spans]


def redact_metadata(metadata: dict[str, Any], sensitive: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Metadata with the caller's sensitive keys replaced whole and secrets in every other
    string redacted; and the kinds found."""
    kinds: list[str] = []

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            clean, found = redact(value)
            kinds.extend(found)
            return clean
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    out = {}
    for key, value in metadata.items():
        if key in sensitive:
            out[key] = placeholder("sensitive")
            kinds.append("sensitive")
        else:
            out[key] = walk(value)
    return out, kinds


@dataclass(frozen=True)
class Redacted:
    content: str              # what plain columns hold
    metadata: dict[str, Any]
    kinds: list[str]          # what was found, in order, e.g. ["api_key", "email"]

    @property
    def changed(self) -> bool:
        return bool(self.kinds)


def scrub(content: str, metadata: dict[str, Any], sensitive: list[str] | None = None) -> Redacted:
    clean, kinds = redact(content)
    clean_meta, meta_kinds = redact_metadata(metadata, sensitive or [])
    return Redacted(clean, clean_meta, list(dict.fromkeys(kinds + meta_kinds)))


class SealError(HindsightError):
    pass


KEY_HINT = ('generate one with: python -c "from cryptography.fernet import Fernet; '
            'print(Fernet.generate_key().decode())"  (or: hindsight keygen)')


class Sealer:
    """Encrypts originals with HINDSIGHT_ENCRYPTION_KEY: one Fernet key, or several separated
    by commas (the first encrypts, all decrypt: how a key is rotated)."""

    def __init__(self, keys: str):
        parts = [k.strip() for k in keys.split(",") if k.strip()]
        if not parts:
            raise ConfigError(f"HINDSIGHT_ENCRYPTION_KEY is empty; {KEY_HINT}")
        try:
            fernets = [Fernet(k.encode()) for k in parts]
        except (ValueError, TypeError):
            raise ConfigError("HINDSIGHT_ENCRYPTION_KEY is not a Fernet key (32 url-safe base64-encoded "
                              f"bytes); {KEY_HINT}") from None
        self._fernet = MultiFernet(fernets)
        # Duplicate detection of sealed content must not publish an unkeyed hash of a secret.
        self._hash_key = hashlib.sha256(b"hindsight dedup\x00" + parts[0].encode()).digest()

    def seal(self, content: str, metadata: dict[str, Any]) -> bytes:
        payload = json.dumps({"content": content, "metadata": metadata}, ensure_ascii=False)
        return self._fernet.encrypt(payload.encode("utf-8"))

    def open(self, token: bytes) -> dict[str, Any]:
        try:
            return json.loads(self._fernet.decrypt(bytes(token)))
        except InvalidToken:
            raise SealError("the sealed content cannot be decrypted with HINDSIGHT_ENCRYPTION_KEY "
                            "(was it written with another key? keep the old key after the new one: "
                            "HINDSIGHT_ENCRYPTION_KEY=new,old)") from None

    def keyed_hash(self, normalised: bytes) -> bytes:
        return hmac.new(self._hash_key, normalised, hashlib.sha256).digest()
