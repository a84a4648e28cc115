"""Where secrets and personal data sit in a text. Pure: text in, spans out.

Three kinds of evidence, strongest first:
- a provider's token format (ghp_…, AKIA…, sk-ant-…, a PEM private key, a JWT, a URL with a
  password): caught wherever it appears;
- a credential's name next to a value ("DB_PASSWORD=…", "api_key: …", "my password is …",
  "密码是…"): the value is caught when it looks like a value — not a reference to one
  (`${VAR}`, `$(cat …)`, `os.environ[…]`, a path), not a shell command, not prose;
- personal data: e-mail addresses (but not `git@host:repo` remotes or `ssh user@host`
  targets), card numbers (issuer prefix and Luhn), Chinese ID numbers, phone numbers.

The word lists (credential names; the commands and prose words that are no value) live in
rules.credential_words.
Measured on tests/data/secrets_labelled.jsonl by benchmarks/secrets_detector.py.
"""

from __future__ import annotations

import base64
import binascii
import re
from functools import lru_cache
from typing import Callable, Iterator

from .credential_words import COMMANDS, CRED_PAIRS, CRED_WORDS, JOINED, NOT_A_VALUE, PASSWORDY, STOPWORDS
from .text import ascii_lower

Span = tuple[int, int, str]  # start, end, kind


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|2))")


def _card(text: str) -> bool:
    digits = re.sub(r"\D", "", text)
    return 13 <= len(digits) <= 19 and bool(_CARD_PREFIX.match(digits)) and _luhn(digits)


def _random_looking(token: str) -> bool:
    """Letters and digits mixed the way generated keys are (not words-with-dashes)."""
    digits = sum(c.isdigit() for c in token)
    upper = any(c.isupper() for c in token)
    lower = any(c.islower() for c in token)
    return digits >= 2 and (upper or lower) or (upper and lower and len(token) >= 20)


_LOWER_RUNS = re.compile(r"[a-z]+")


def _bare_key(token: str) -> bool:
    """A key with no name beside it — an AWS secret access key (40 characters of base64), an
    Azure storage key (88, ending ==) — rather than ordinary data of the same length and
    alphabet: both cases and a digit or + or / (a hex digest has one case), lower-case runs
    as short as random text has them (1.7 letters on average, one in six of 3 or more; the
    words of an identifier run longer), and bytes that do not decode to text (base64 of a
    sentence does). About 1 random key in 100 has word-like runs and is not caught."""
    upper = sum(c.isupper() for c in token)
    lower = sum(c.islower() for c in token)
    if upper < len(token) // 10 or lower < len(token) // 10:
        return False
    if not any(c.isdigit() or c in "+/" for c in token):
        return False
    runs = [len(run) for run in _LOWER_RUNS.findall(token)]
    if sum(runs) / len(runs) > 3.0 or sum(n >= 3 for n in runs) > len(runs) / 2:
        return False  # words: CourierDispatchHandler42, internal/platform/api
    try:
        decoded = base64.b64decode(token, validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return True  # random bytes: almost never valid UTF-8
    return sum(ch.isprintable() or ch.isspace() for ch in text) < 0.9 * len(text)


# Provider formats: (kind, pattern, group, check, needs). `needs`: words (lower case) one of
# which a text must hold for the pattern to match in it; the pattern is skipped over text
# without them (a substring test is far cheaper than a scan, and most text holds none).
_FORMATS: list[tuple[str, re.Pattern[str], int, Callable[[str], bool] | None, tuple[str, ...]]] = [
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.S,
        ),
        0,
        None,
        ("-----begin",),
    ),
    (
        "api_key",
        re.compile(r"(?<![\w-])sk-(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-)?[\w-]{20,}(?![\w-])"),
        0,
        _random_looking,
        ("sk-",),
    ),
    (
        "api_key",
        re.compile(
            r"(?<![\w-])(?:"
            r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}"
            r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}"
            r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}"
            r"|gl(?:pat|dt|rt|ptt)-[\w-]{20,}"
            r"|xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}"
            r"|AIza[\w-]{35}|ya29\.[\w-]{20,}|GOCSPX-[\w-]{20,}"
            r"|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}|pypi-AgE[\w-]{50,}"
            r"|SG\.[\w-]{16,}\.[\w-]{16,}|SK[0-9a-fA-F]{32}"
            r"|do[por]_v1_[a-f0-9]{64}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"
            r"|lin_api_[A-Za-z0-9]{40}|dapi[a-f0-9]{32}|AGE-SECRET-KEY-1[0-9A-Z]{58}"
            r"|\d{8,10}:AA[\w-]{33}"
            r")(?![\w-])"
        ),
        0,
        None,
        (),
    ),
    (
        "api_key",
        re.compile(
            r"https://(?:hooks\.slack\.com/services/T\w+/B\w+/\w+"
            r"|discord(?:app)?\.com/api/webhooks/\d+/[\w-]+)"
        ),
        0,
        None,
        ("https://",),
    ),
    (  # bare keys: 30 or 64 random bytes in base64, alone (not inside a longer run of that alphabet)
        "secret",
        re.compile(r"(?<![\w+/=-])(?:[A-Za-z0-9+/]{40}|[A-Za-z0-9+/]{86}==)(?![\w+/=-])"),
        0,
        _bare_key,
        (),
    ),
    ("api_key", re.compile(r"(?<![\w-])key-[0-9a-f]{32}(?![\w-])"), 0, None, ("key-",)),  # Mailgun
    ("token", re.compile(r"\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}"), 0, None, ("eyj",)),
    ("token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)"), 1, _random_looking, ("bearer",)),
    ("token", re.compile(r"(?i)\bauthorization:\s*basic\s+([A-Za-z0-9+/]{8,}={0,2})"), 1, None, ("authorization",)),
    (
        "secret",
        re.compile(r"(?i)\b(?:AccountKey|SharedAccessKey|sig)=([A-Za-z0-9+/%]{30,}={0,2})"),
        1,
        None,
        ("accountkey", "sharedaccesskey", "sig="),
    ),
    (
        "password",
        re.compile(r"(?i)(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,30}://[^\s:/@]{0,256}:([^\s@/]{1,256})@"),
        1,
        None,
        ("@",),
    ),
    (
        "password",
        re.compile(r"(?<![\w/:.@-])[a-z_][\w.\-]{0,64}:([^\s:@/]{4,128})@(?:[\w-]{1,63}\.){1,10}[\w-]{1,63}"),
        1,
        _random_looking,
        ("@",),
    ),
]

# The value sits in a lookahead: a match consumes only the name, so a value that is itself a
# name ("Error: aws_secret_access_key = …") is still looked at as one.
_ASSIGN = re.compile(
    r"(?<![\w.$])-{0,2}([A-Za-z_][\w.\-]{0,63})(?=[\"']?(\s*(?:=>|=|:(?!//)|：)\s*|\s+(?:is|was)\s+)"
    r"(?:(?P<q>[\"'])(?P<quoted>[^\"'\n]{3,200})(?P=q)|(?P<bare>[^\s\"'`,;，。]{3,128})))"
)
_PROSE = re.compile(
    r"(?i)(?:\b(?:password|passwd|passphrase|passcode|pwd|api[ _-]?key|access[ _-]?key|secret[ _-]?key|"
    r"secret|token)|密码|口令|密钥|令牌)(?=(?:\s+for\s+[\w .'-]{1,40}?)?\s*(?:\bis\b|\bwas\b|是|为|：|:)\s*"
    r"(?:(?P<q>[\"'])(?P<quoted>[^\"'\n]{3,200})(?P=q)|(?P<bare>[^\s\"'`,;，。]{3,128})))"
)
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_REFERENCE = re.compile(
    r"^(?:[$%<({\[@*`]|\.{1,2}/|~|\\)|^[A-Za-z_][\w.]*\(|\$\{|\{\{|process\.env|os\.environ|getenv|"
    r"secrets\.|vault|/run/secrets|^(?:none|null|nil|true|false|undefined|empty|unset|"
    r"required|optional|hidden|redacted|masked|see|use|run|ask|set|prompt|stdin)$",
    re.I,
)


@lru_cache(maxsize=4096)  # a text repeats its names ("a=a=a=…": 16,000 times one name)
def _name_holds_credential(name: str) -> bool:
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words or words[-1] in NOT_A_VALUE:
        return False
    return (
        any(w in CRED_WORDS or w.endswith(JOINED) for w in words)  # PGPASSWORD, mytoken
        or any(pair in CRED_PAIRS for pair in zip(words, words[1:]))
    )


def _a_path(value: str) -> bool:
    """/etc/app/db.pass, but not a base64 key that happens to start with a slash."""
    return value.startswith("/") and all(not _random_looking(seg) for seg in value.split("/") if seg)


def looks_like_value(value: str, *, passwordy: bool, after: str = "") -> bool:
    """Whether what follows a credential's name is the credential itself."""
    value = value.rstrip(".,;:)]}>!?") if not passwordy else value.rstrip(".,;:)]}>")
    if len(value) < (4 if passwordy else 8) or _REFERENCE.search(value) or _a_path(value):
        return False
    if value.lower() in COMMANDS or value.lower() in STOPWORDS or re.search(r"\(\)?$|\($", value):
        return False
    if re.fullmatch(r"[a-z]+", value) and re.match(r"\s+[a-z]{2,}\b", after):
        return False  # prose goes on: "password: must be 12 characters"
    if re.fullmatch(r"[A-Z][A-Z0-9_]+", value) and not re.search(r"\d", value):
        return False  # a constant's name: api_key = KEY_PATH
    return passwordy or _random_looking(value) or len(value) >= 16


# Every credential's name holds one of these (CRED_WORDS, JOINED, the second word of CRED_PAIRS):
# a text without any has no assignment to look at.
_NAME_HINT = re.compile(r"(?i)pass|pwd|secret|token|key|credential|pat")


def _assignments(text: str) -> Iterator[Span]:
    if not _NAME_HINT.search(text):
        return
    for m in _ASSIGN.finditer(text):
        name = m.group(1)
        if not _name_holds_credential(name):
            continue
        group = "quoted" if m.group("quoted") is not None else "bare"
        if group == "bare" and m.group(2).strip() in ("is", "was") and re.fullmatch(r"[a-z]+", m.group(group)):
            continue  # "the token is expired"
        passwordy = any(w.lower() in PASSWORDY for w in _WORDS.findall(name))
        if looks_like_value(m.group(group), passwordy=passwordy, after=text[m.end(group) : m.end(group) + 20]):
            yield _trimmed(m, group, "password" if passwordy else "secret")


def _prose(text: str) -> Iterator[Span]:
    for m in _PROSE.finditer(text):
        group = "quoted" if m.group("quoted") is not None else "bare"
        value = m.group(group)
        head = m.group(0).lower()
        passwordy = any(w in head for w in ("pass", "pwd", "密码", "口令"))
        if group == "bare" and re.fullmatch(r"[a-z]+", value.rstrip(".,;:!?")):
            continue  # "the passphrase is stored in the keychain"
        if looks_like_value(value, passwordy=passwordy, after=text[m.end(group) : m.end(group) + 20]):
            yield _trimmed(m, group, "password" if passwordy else "secret")


def _trimmed(m: re.Match[str], group: str, kind: str) -> Span:
    start, end = m.span(group)
    value = m.group(group)
    return start, end - (len(value) - len(value.rstrip(".,;:)]}>"))), kind


# A generated-looking token within a few words after a credential's name: "vault token s.Xk3f…"
_NEARBY = re.compile(
    r"(?i)(?:\b(?P<pw>password|passphrase)|\b(?:token|secret|api[ _-]?key|access[ _-]?key)|密钥|令牌|(?P<zh>密码))"
    r"(?:\s+[a-z]+){0,2}\s+([\w.~+/=#!$%&*@^-]{8,})"
)


def _nearby(text: str) -> Iterator[Span]:
    for m in _NEARBY.finditer(text):
        value = m.group(3)
        if _random_looking(value) and not _REFERENCE.search(value) and not re.fullmatch(r"[\d.\-:]+", value):
            yield m.start(3), m.end(3), "password" if m.group("pw") or m.group("zh") else "secret"


_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
# an ssh-family command, then only options, numbers and paths up to the address
_SSH_BEFORE = re.compile(r"\b(?:ssh|scp|sftp|rsync|mosh|autossh|ssh-copy-id)(?:\s+(?:-\S+|\d+|\S*[/~=]\S*))*\s+$")


_SSH_NAMES = ("ssh", "scp", "sftp", "rsync", "mosh")  # each command's name holds one of these


def _after_ssh(before: str) -> bool:
    """Whether `before` ends in an ssh-family command and its options. The names are looked
    for first (a substring test): the pattern alone, tried at each of 80 places before each
    of thousands of addresses, was most of the time a text of addresses took."""
    return any(name in before for name in _SSH_NAMES) and _SSH_BEFORE.search(before) is not None


def _emails(text: str) -> Iterator[Span]:
    for m in _EMAIL.finditer(text):
        before, after = text[max(0, m.start() - 80) : m.start()], text[m.end() : m.end() + 1]
        if after == ":" or before.endswith("://") or _after_ssh(before):
            continue  # git@host:repo, ssh://git@host, ssh user@host: an account on a host, not a mailbox
        yield m.start(), m.end(), "email"


# Numbers of personal data stand alone: not inside a run of ASCII letters and digits (a hex
# digest's digits), though next to Chinese text ("手机13812345678") they count.
_PII: list[tuple[str, re.Pattern[str], Callable[[str], bool] | None]] = [
    ("card_number", re.compile(r"(?<![\dA-Za-z-])\d(?:[ -]?\d){12,18}(?![\dA-Za-z-])"), _card),
    (
        "national_id",
        re.compile(
            r"(?<![\dA-Za-z])\d{6}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![\dA-Za-z])"
        ),
        None,
    ),
    ("phone", re.compile(r"(?<![\w+])\+\d{1,3}[ \-]?(?:\(\d{1,4}\)[ \-]?)?\d{2,4}(?:[ \-]?\d{2,4}){1,3}(?!\d)"), None),
    ("phone", re.compile(r"(?<![\dA-Za-z])1[3-9]\d{9}(?![\dA-Za-z])"), None),
    ("phone", re.compile(r"(?<![\w.])\(?\d{3}\)?[ .\-]\d{3}[ .\-]\d{4}(?![\w.])"), None),
]


_PROSE_WORDS = ("pass", "pwd", "key", "secret", "token", "密码", "口令", "密钥", "令牌")


def _candidates(text: str) -> Iterator[Span]:
    low = ascii_lower(text)
    for kind, pattern, group, check, needs in _FORMATS:
        if needs and not any(word in low for word in needs):
            continue
        for m in pattern.finditer(text):
            if m.start(group) >= 0 and (check is None or check(m.group(group))):
                yield m.start(group), m.end(group), kind
    yield from _assignments(text)
    if any(word in low for word in _PROSE_WORDS):
        yield from _prose(text)
        yield from _nearby(text)
    if "@" in text:
        yield from _emails(text)
    for kind, pattern, check in _PII:
        for m in pattern.finditer(text):
            if check is None or check(m.group(0)):
                yield m.start(), m.end(), kind


def find(text: str) -> list[Span]:
    """Spans (start, end, kind) of secrets and personal data in `text`, not overlapping; the
    first found wins (provider formats before names-with-values before personal data).
    Linear: a candidate is checked against a mask of the characters taken so far (each
    pattern's matches do not overlap one another, so the mask is read at most once per
    pattern), never against every span kept."""
    taken = bytearray(len(text))
    spans: list[Span] = []
    for start, end, kind in _candidates(text):
        if end > start and taken.find(1, start, end) < 0:
            taken[start:end] = b"\x01" * (end - start)
            spans.append((start, end, kind))
    return sorted(spans)


def credential_key(name: str) -> bool:
    """Whether a metadata key names a credential, so its string value is one (db_password)."""
    return _name_holds_credential(name)
