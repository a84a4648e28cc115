"""Bearer tokens: their form, their digest, their lifetime, and whom a token lets a call act
for. Pure: the caller supplies the random bytes and the time."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import datetime, timedelta

from ..errors import InvalidInput

PREFIX = "hs_"
_FORM = re.compile(r"^hs_[A-Za-z0-9_-]{43}$")
_DURATION = re.compile(r"^(\d{1,5})([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def from_bytes(random: bytes) -> str:
    """A token from 32 random bytes: hs_ and 43 URL-safe characters."""
    if len(random) != 32:
        raise ValueError("a token takes 32 random bytes")
    return PREFIX + base64.urlsafe_b64encode(random).decode("ascii").rstrip("=")


def well_formed(token: str) -> bool:
    return bool(_FORM.match(token))


def digest(token: str) -> bytes:
    """What is stored: SHA-256 of the token (a random 256-bit secret needs no slow hash)."""
    return hashlib.sha256(token.encode("ascii", "replace")).digest()


def lifetime(text: str | None) -> timedelta | None:
    """'90d', '12h', '30m', '2w' -> the duration; None or 'never' -> no expiry."""
    if text is None or text == "never":
        return None
    found = _DURATION.match(text)
    if not found or int(found.group(1)) == 0:
        raise InvalidInput("expires", "must be a number and a unit (m, h, d or w), e.g. 90d, or never")
    return timedelta(**{_UNITS[found.group(2)]: int(found.group(1))})


def usable(expires_at: datetime | None, revoked_at: datetime | None, now: datetime) -> bool:
    return revoked_at is None and (expires_at is None or now < expires_at)
