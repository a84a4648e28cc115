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
import logging
import re
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, SealError
from . import detectors

_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z_]+\]")


def find(text: str) -> list[tuple[int, int, str]]:
    """Spans (start, end, kind) of secrets and personal data in `text` (hindsight.rules.detectors).
    A placeholder left by an earlier redaction is not a secret: redacting is idempotent
    (an exported "api key is [REDACTED:api_key]" imports unchanged). Placeholders are read
    as blanks, so one put in front of a secret does not hide it."""
    if "[REDACTED:" not in text:
        return detectors.find(text)
    return detectors.find(_PLACEHOLDER.sub(lambda m: " " * len(m.group()), text))


KIND_WORDS = {
    "api_key": "an API key",
    "private_key": "a private key",
    "token": "a token",
    "secret": "a secret",
    "password": "a password",
    "email": "an email address",
    "phone": "a phone number",
    "card_number": "a card number",
    "national_id": "a national ID number",
}


def kind_words(kind: str) -> str:
    """What a detector found, in words with its article: 'an API key', 'an email address'."""
    if kind in KIND_WORDS:
        return KIND_WORDS[kind]
    words = kind.replace("_", " ")
    return ("an " if words[:1] in tuple("aeiou") else "a ") + words


def shown(value: Any, limit: int = 60) -> str:
    """How a refused value may appear in an error or a log: never when it looks like a secret
    or personal data (only its kind and length), and cut when long."""
    text = value if isinstance(value, str) else repr(value)
    spans = find(text) if isinstance(text, str) else []
    if spans:
        return f"<a value that looks like {kind_words(spans[0][2])} ({len(text)} characters), not shown>"
    text = repr(value) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LogRedactor(logging.Filter):
    """Redacts secrets from every log record (message and traceback) before it is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format: keep as is
            return True
        record.msg, record.args = redact(message)[0], None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))[0]
        return True


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
    """Metadata with the caller's sensitive keys replaced whole, the string value of a key
    that names a credential (db_password, apiKey) replaced whole when it looks like one, and
    secrets in every other string redacted; and the kinds found."""
    kinds: list[str] = []

    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, str):
            if key and detectors.credential_key(key) and detectors.looks_like_value(value, passwordy=True):
                kinds.append("secret")
                return placeholder("secret")
            clean, found = redact(value)
            kinds.extend(found)
            return clean
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        return value

    out = {}
    for key, value in metadata.items():
        if key in sensitive:
            out[key] = placeholder("sensitive")
            kinds.append("sensitive")
        else:
            out[key] = walk(value, key)
    return out, kinds


@dataclass(frozen=True)
class Redacted:
    content: str  # what plain columns hold
    metadata: dict[str, Any]
    kinds: list[str]  # what was found, in order, e.g. ["api_key", "email"]

    @property
    def changed(self) -> bool:
        return bool(self.kinds)


def scrub(content: str, metadata: dict[str, Any], sensitive: list[str] | None = None) -> Redacted:
    clean, kinds = redact(content)
    clean_meta, meta_kinds = redact_metadata(metadata, sensitive or [])
    return Redacted(clean, clean_meta, list(dict.fromkeys(kinds + meta_kinds)))


KEY_HINT = (
    'generate one with: python -c "from cryptography.fernet import Fernet; '
    'print(Fernet.generate_key().decode())"  (or: hindsight keygen)'
)


class Sealer:
    """Encrypts originals with HINDSIGHT_ENCRYPTION_KEY: one Fernet key, or several separated
    by commas (the first encrypts, all decrypt: how a key is rotated)."""

    def __init__(self, keys: str):
        from cryptography.fernet import Fernet, MultiFernet  # only where a key is set: the CLI starts at once

        parts = [k.strip() for k in keys.split(",") if k.strip()]
        if not parts:
            raise ConfigError(f"HINDSIGHT_ENCRYPTION_KEY is empty; {KEY_HINT}")
        try:
            fernets = [Fernet(k.encode()) for k in parts]
        except (ValueError, TypeError):
            raise ConfigError(
                f"HINDSIGHT_ENCRYPTION_KEY is not a Fernet key (32 url-safe base64-encoded bytes); {KEY_HINT}"
            ) from None
        self._fernet = MultiFernet(fernets)
        # Duplicate detection of sealed content must not publish an unkeyed hash of a secret.
        self._hash_key = hashlib.sha256(b"hindsight dedup\x00" + parts[0].encode()).digest()

    def seal(self, content: str, metadata: dict[str, Any]) -> bytes:
        payload = json.dumps({"content": content, "metadata": metadata}, ensure_ascii=False)
        return self._fernet.encrypt(payload.encode("utf-8"))

    def open(self, token: bytes) -> dict[str, Any]:
        from cryptography.fernet import InvalidToken

        try:
            opened: dict[str, Any] = json.loads(self._fernet.decrypt(bytes(token)))
            return opened
        except InvalidToken:
            raise SealError(
                "the sealed content cannot be decrypted with HINDSIGHT_ENCRYPTION_KEY "
                "(was it written with another key? keep the old key after the new one: "
                "HINDSIGHT_ENCRYPTION_KEY=new,old)"
            ) from None

    def keyed_hash(self, normalised: bytes) -> bytes:
        return hmac.new(self._hash_key, normalised, hashlib.sha256).digest()
