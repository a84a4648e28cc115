"""Settings, read once from the environment. Few settings, good defaults."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ConfigError
from .rules.dedup import DEFAULT_CONFLICT_THRESHOLD, DEFAULT_THRESHOLD

if TYPE_CHECKING:
    from datetime import tzinfo

NO_CAPTURE = ".hindsight-no-capture"  # in a project's folder: its hooks store nothing (HINDSIGHT_CAPTURE)

EMBEDDERS = ("e5-small", "openai")
DEFAULT_CRON = "0 3 * * *"  # nightly at 03:00
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
# A client's own variables for the project folder it opened and the session it runs, read
# after ours (HINDSIGHT_PROJECT_DIR, HINDSIGHT_SESSION_ID); the first one set wins.
PROJECT_DIR_VARS = ("HINDSIGHT_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
SESSION_VARS = ("HINDSIGHT_SESSION_ID", "CLAUDE_CODE_SESSION_ID")
HTTP_READ_TIMEOUT = 30.0  # seconds an HTTP client has for a request's headers, and then for its body
SIMILARITY = "a cosine similarity"  # what the duplicate and conflict thresholds are
SECONDS = "a number of seconds"
OPENAI_EXAMPLES = {"HINDSIGHT_EMBED_URL": "http://localhost:8000/v1", "HINDSIGHT_EMBED_MODEL": "text-embedding-3-small"}


def default_home() -> Path:
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "hindsight"


@dataclass(frozen=True)
class Settings:
    database_url: str | None  # None: the embedded PostgreSQL in `home`
    home: Path
    agent_id: str
    embedder: str
    embed_url: str | None
    embed_model: str | None
    embed_api_key: str | None
    log_level: str
    embed_threads: int | None  # None: OMP_NUM_THREADS if set, else 1
    encryption_key: str | None = None  # Fernet key(s); None: secrets are redacted, not kept
    dedup_threshold: float = DEFAULT_THRESHOLD
    conflict_threshold: float = DEFAULT_CONFLICT_THRESHOLD
    maintenance_cron: str = DEFAULT_CRON
    embed_input_type: bool = False
    timezone: str | None = None  # IANA name: "yesterday" and the schedule; None: the machine's zone
    allowed_agents: frozenset[str] = frozenset()  # others this server may act for; {"*"}: any
    read_database_urls: tuple[str, ...] = ()  # streaming replicas of database_url, for reads
    project: str | None = None  # the open project when the client names none (HINDSIGHT_PROJECT)
    project_dir: str | None = None  # the client's project folder (PROJECT_DIR_VARS)
    session_id: str | None = None  # the client's session, the calls' default (SESSION_VARS)
    http_read_timeout: float = HTTP_READ_TIMEOUT  # HINDSIGHT_HTTP_READ_TIMEOUT
    capture: bool = True  # HINDSIGHT_CAPTURE: whether the IDE's hooks store anything
    hook_tokens: int = 400  # HINDSIGHT_HOOK_TOKENS: the budget of a prompt's block from the hooks

    def may_act_for(self, agent_id: str) -> bool:
        """Whether a call from an MCP client may name `agent_id` (the CLI may name any)."""
        return agent_id == self.agent_id or "*" in self.allowed_agents or agent_id in self.allowed_agents

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        url = env.get("HINDSIGHT_DATABASE_URL") or env.get("DATABASE_URL") or None
        if url is not None and not url.startswith(POSTGRES_SCHEMES):
            raise ConfigError(
                "HINDSIGHT_DATABASE_URL must be a postgresql:// URL "
                "(e.g. postgresql://user:password@host:5432/dbname); "
                "unset it to use the embedded database"
            )
        replicas = read_urls(env.get("HINDSIGHT_READ_DATABASE_URL") or "", primary=url)
        embedder = env.get("HINDSIGHT_EMBEDDER", "e5-small").strip() or "e5-small"
        if embedder not in EMBEDDERS:
            raise ConfigError(f"HINDSIGHT_EMBEDDER={embedder!r} is not known; allowed: {', '.join(EMBEDDERS)}")
        if embedder == "openai":
            missing = [k for k in OPENAI_EXAMPLES if not env.get(k)]
            if missing:
                examples = " ".join(f"{k}={OPENAI_EXAMPLES[k]}" for k in missing)
                raise ConfigError(f"HINDSIGHT_EMBEDDER=openai needs {' and '.join(missing)} (e.g. {examples})")
            if not env["HINDSIGHT_EMBED_URL"].startswith(("http://", "https://")):
                raise ConfigError(f"HINDSIGHT_EMBED_URL={env['HINDSIGHT_EMBED_URL']!r} must be an http(s):// URL")
        input_type = (env.get("HINDSIGHT_EMBED_INPUT_TYPE") or "0").strip().lower()
        if input_type not in ("0", "1", "true", "false", "yes", "no"):
            raise ConfigError(f"HINDSIGHT_EMBED_INPUT_TYPE={input_type!r} must be 1 or 0")
        log_level = (env.get("HINDSIGHT_LOG_LEVEL") or "INFO").strip().upper()
        if log_level not in LOG_LEVELS:
            raise ConfigError(f"HINDSIGHT_LOG_LEVEL={log_level!r} is not known; allowed: {', '.join(LOG_LEVELS)}")
        threads = env.get("HINDSIGHT_EMBED_THREADS") or None
        if threads is not None and (not threads.isdigit() or not 1 <= int(threads) <= 64):
            raise ConfigError(f"HINDSIGHT_EMBED_THREADS={threads!r} must be a whole number from 1 to 64")
        key = env.get("HINDSIGHT_ENCRYPTION_KEY") or None
        if key is not None:
            from .rules.privacy import Sealer

            Sealer(key)  # a malformed key fails here, at startup, not on the first secret
        dedup = _number(env, "HINDSIGHT_DEDUP_THRESHOLD", DEFAULT_THRESHOLD, 0.5, 1.0, SIMILARITY)
        conflict = _number(env, "HINDSIGHT_CONFLICT_THRESHOLD", DEFAULT_CONFLICT_THRESHOLD, 0.5, 1.0, SIMILARITY)
        if conflict > dedup:
            raise ConfigError(
                f"HINDSIGHT_CONFLICT_THRESHOLD={conflict} must not exceed HINDSIGHT_DEDUP_THRESHOLD={dedup}"
            )
        cron = (env.get("HINDSIGHT_MAINTENANCE_CRON") or DEFAULT_CRON).strip()
        zone = (env.get("HINDSIGHT_TIMEZONE") or "").strip() or None
        if zone is not None:
            _check_zone(zone)
        if cron != DEFAULT_CRON or zone is not None:
            cron_trigger(cron, zone)  # a bad expression fails at startup (APScheduler is imported only then)
        home = Path(env["HINDSIGHT_HOME"]).expanduser() if env.get("HINDSIGHT_HOME") else default_home()
        agent_id = env.get("HINDSIGHT_AGENT_ID", "default").strip() or "default"
        allowed = _agents(env.get("HINDSIGHT_ALLOWED_AGENTS", ""))
        for name, value in [("HINDSIGHT_AGENT_ID", agent_id)] + [("HINDSIGHT_ALLOWED_AGENTS", a) for a in allowed]:
            if value != "*" and not _AGENT.match(value):
                raise ConfigError(
                    f"{name} holds {value!r}; an agent id is 1-128 characters without spaces, "
                    "commas or control characters"
                )
        return cls(
            database_url=url,
            home=home,
            agent_id=agent_id,
            embedder=embedder,
            embed_url=env.get("HINDSIGHT_EMBED_URL") or None,
            embed_model=env.get("HINDSIGHT_EMBED_MODEL") or None,
            embed_api_key=env.get("HINDSIGHT_EMBED_API_KEY") or None,
            log_level=log_level,
            embed_threads=int(threads) if threads else None,
            encryption_key=key,
            dedup_threshold=dedup,
            conflict_threshold=conflict,
            maintenance_cron=cron,
            embed_input_type=input_type in ("1", "true", "yes"),
            timezone=zone,
            allowed_agents=allowed,
            read_database_urls=replicas,
            project=_project(env.get("HINDSIGHT_PROJECT", "")),
            project_dir=_first(env, PROJECT_DIR_VARS),
            session_id=_session(env),
            http_read_timeout=_number(env, "HINDSIGHT_HTTP_READ_TIMEOUT", HTTP_READ_TIMEOUT, 1, 3600, SECONDS),
            capture=_switch(env, "HINDSIGHT_CAPTURE", True),
            hook_tokens=_whole(env, "HINDSIGHT_HOOK_TOKENS", 400, 50, 4000),
        )

    def zone(self) -> tzinfo:
        """The zone relative times ("yesterday", "上周") are counted in."""
        return local_zone(self.timezone)


def _first(env, names: tuple[str, ...]) -> str | None:
    return next((env[n].strip() for n in names if (env.get(n) or "").strip()), None)


def _session(env) -> str | None:
    """The client's session id (e.g. Claude Code's CLAUDE_CODE_SESSION_ID), checked as a
    call's session_id is; one that is not usable is an error only when it is ours."""
    from .errors import InvalidInput
    from .rules import validate

    value = _first(env, SESSION_VARS)
    try:
        return validate.identifier("HINDSIGHT_SESSION_ID", value)
    except InvalidInput as exc:
        if (env.get("HINDSIGHT_SESSION_ID") or "").strip():
            raise ConfigError(str(exc)) from None
        return None


def _project(value: str) -> str | None:
    from .errors import InvalidInput
    from .rules import validate

    try:
        return validate.project(value.strip() or None, "HINDSIGHT_PROJECT", allow_global=False)
    except InvalidInput as exc:
        raise ConfigError(str(exc)) from None


def cron_trigger(expression: str, tz: str | None = None):
    """An APScheduler CronTrigger for a five-field cron expression in time zone `tz` (an
    IANA name; None: local time), or a ConfigError."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from apscheduler.triggers.cron import CronTrigger

    try:
        zone = ZoneInfo(tz) if tz else None
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"HINDSIGHT_TIMEZONE={tz!r} is not a time zone; use an IANA name such as UTC or Europe/Berlin"
        ) from None
    try:
        return CronTrigger.from_crontab(expression, timezone=zone)
    except ValueError as exc:
        raise ConfigError(
            f"HINDSIGHT_MAINTENANCE_CRON={expression!r} is not a cron expression "
            f"(five fields: minute hour day month weekday, e.g. '0 3 * * *'): {exc}"
        ) from None


def _check_zone(name: str) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"HINDSIGHT_TIMEZONE={name!r} is not a time zone; use an IANA name such as "
            "'Asia/Singapore' or 'Europe/Berlin' (unset: the machine's own zone)"
        ) from None


def read_urls(raw: str, primary: str | None) -> tuple[str, ...]:
    """HINDSIGHT_READ_DATABASE_URL: one postgresql:// URL or a comma list of them (a comma
    inside one URL, as in libpq's host1,host2 form, stays with it), for the replicas of the
    primary HINDSIGHT_DATABASE_URL."""
    parts = (u.strip(" \t\n,") for u in re.split(r",(?=\s*[A-Za-z][\w+.-]*://)", raw))
    urls = tuple(u for u in parts if u)
    if urls and primary is None:
        raise ConfigError(
            "HINDSIGHT_READ_DATABASE_URL needs HINDSIGHT_DATABASE_URL: the replicas' primary, where "
            "every write goes (the embedded database has no replicas); set both, or unset "
            "HINDSIGHT_READ_DATABASE_URL"
        )
    for n, u in enumerate(urls, 1):
        if not u.startswith(POSTGRES_SCHEMES):
            raise ConfigError(
                f"HINDSIGHT_READ_DATABASE_URL: entry {n} of {len(urls)} must be a postgresql:// URL "
                "(e.g. postgresql://user:password@replica-host:5432/dbname; several: a comma list)"
            )
    return urls


_AGENT = re.compile(r"^[^\s,\x00-\x1f\x7f]{1,128}$")


def _agents(raw: str) -> frozenset[str]:
    """HINDSIGHT_ALLOWED_AGENTS: a comma list of agent ids, or * for any."""
    return frozenset(a.strip() for a in raw.split(",") if a.strip())


def _number(env, name: str, default: float, low: float, high: float, what: str) -> float:
    """A number from `low` to `high` (`what` it is, for the error), or the default when unset."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise ConfigError(f"{name}={raw!r} must be {what} from {low} to {high}")
    return value


def _switch(env, name: str, default: bool) -> bool:
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw in ("on", "1", "true", "yes"):
        return True
    if raw in ("off", "0", "false", "no"):
        return False
    raise ConfigError(f"{name}={raw!r} must be on or off")


def _whole(env, name: str, default: int, low: int, high: int) -> int:
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ConfigError(f"{name}={raw!r} must be a whole number from {low} to {high}")
    return int(raw)


def local_zone(name: str | None = None) -> tzinfo:
    """The zone days are counted in: an IANA name (HINDSIGHT_TIMEZONE), else the machine's."""
    if name:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    from datetime import datetime, timezone

    return datetime.now().astimezone().tzinfo or timezone.utc
