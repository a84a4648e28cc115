"""Which project a memory belongs to, and what a project is called: pure rules, no I/O.

The open project comes from the client (the call's `project`, else the session's MCP roots,
else HINDSIGHT_PROJECT). A write belongs to the open project unless it is about the user
rather than the code: a preference or a standing rule for how to work holds in every
repository, so it stays global (no project) unless the call names a project. Recall ranks
the open project's memories and global ones as before, and another project's lower
(scoring.Weights.other_project), still found when it is clearly the best match.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

GLOBAL = ""  # a call's project "": explicitly no project
USER_SLOTS = ("preference:", "user:")  # slots that name something about the user
USER_REASONS = ("preference", "constraint")  # what record_interaction keeps about the user
_USER_STATES = re.compile(  # the user's own taste: "I" and "the user", not "we" (a team's or repo's way)
    r"(?i)\b(?:i\s+(?:really\s+|strongly\s+|much\s+)?(?:prefer|like|love|hate|dislike|would rather)"
    r"|i'd rather|my (?:favou?rite|preference|preferred)|(?:the )?user (?:prefers|likes|wants|hates|dislikes))\b"
    r"|我(?!们)(?:更|比较|一直)?(?:喜欢|偏好|习惯|讨厌|不喜欢)|用户(?:更|比较)?(?:喜欢|偏好|习惯|讨厌)"
)


def about_user(memory_type: str, slot: str | None, reason: str | None, content: str) -> bool:
    """Whether a memory is about the user rather than the code: a preference slot, what
    record_interaction kept as a stated preference or constraint, or a semantic memory in
    which the user states a preference ("I prefer …", "我喜欢 …")."""
    if slot is not None and slot.startswith(USER_SLOTS):
        return True
    if reason in USER_REASONS:
        return True
    return memory_type == "semantic" and _USER_STATES.search(content) is not None


def for_write(
    given: str | None, open_project: str | None, memory_type: str, slot: str | None, reason: str | None, content: str
) -> str | None:
    """The project a write is stored under: the call's own (GLOBAL for none), else the open
    project unless the memory is about the user, else none."""
    if given is not None:
        return given or None
    if open_project is None or about_user(memory_type, slot, reason, content):
        return None
    return open_project


_GIT_TAIL = re.compile(r"\.git/?$")


def from_remote(url: str) -> str | None:
    """The repository's name in a git remote URL: https://host/group/name(.git),
    git@host:group/name.git, ssh://…/name, a local path. None if it has none."""
    tail = _GIT_TAIL.sub("", url.strip().rstrip("/"))
    name = re.split(r"[/:\\]", tail)[-1] if tail else ""
    return name or None


def folder_of(root_uri: str) -> str | None:
    """The local path of a file:// root; None for another scheme."""
    parts = urlsplit(root_uri)
    if parts.scheme != "file":
        return None
    path = unquote(parts.path)
    if re.match(r"^/[A-Za-z]:/", path):  # file:///C:/src/app on Windows
        path = path[1:]
    return path.rstrip("/") or "/"


def from_folder(path: str) -> str | None:
    """A folder's own name: the last part of its path."""
    name = re.split(r"[/\\]", path.rstrip("/\\"))[-1]
    return name or None


def origin_url(git_config: str) -> str | None:
    """The URL of remote "origin" (else the first remote) in the text of a .git/config."""
    remotes: dict[str, str] = {}
    current = None
    for line in git_config.splitlines():
        line = line.strip()
        section = re.match(r'^\[remote\s+"([^"]+)"\]$', line)
        if section:
            current = section.group(1)
        elif line.startswith("["):
            current = None
        elif current is not None:
            key, _, value = line.partition("=")
            if key.strip() == "url" and value.strip():
                remotes.setdefault(current, value.strip())
    return remotes.get("origin") or next(iter(remotes.values()), None)
