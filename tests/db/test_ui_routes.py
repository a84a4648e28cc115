"""`hindsight ui` over HTTP (httpx against the Starlette app) on a real database with the
real embedder: the gate, every page, search explanations, corrections and their history."""

from __future__ import annotations

import re
import socket
import uuid
from datetime import datetime, timedelta, timezone
from html import unescape

import httpx
import pytest
from cryptography.fernet import Fernet
from faced import faced
from ui_seed import HOSTILE, seed

from hindsight.config import Settings
from hindsight.errors import ConfigError
from hindsight.rules.privacy import Sealer
from hindsight.services import Services
from hindsight.store.memories import WritePolicy
from hindsight.ui.app import Ui, create_app
from hindsight.upkeep.maintenance import Maintenance

TOKEN = "t0ken-for-tests"
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
ORIGIN = {"Origin": BASE}


@pytest.fixture
def services(db, embedder) -> Services:
    """The one Services, over the test database and the session's embedder, in UTC, with a key."""
    s = Services(Settings.from_env({"HINDSIGHT_AGENT_ID": "dev"}), db, url="")
    s.embedder, s.tz = embedder, timezone.utc
    s.write_policy = WritePolicy(sealer=Sealer(Fernet.generate_key().decode()))
    return s


@pytest.fixture
async def ids(services) -> dict[str, str]:
    return await seed(services.memories)


def client_for(services: Services, allowed: frozenset[str] | None = frozenset({"dev", "ops"})) -> httpx.AsyncClient:
    app = create_app(Ui("dev", allowed, services), token=TOKEN, port=PORT)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)


@pytest.fixture
async def client(services, ids):
    async with client_for(services) as c:
        opened = await c.get(f"/?token={TOKEN}")
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        yield c


def csrf(page: httpx.Response) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


async def post(c: httpx.AsyncClient, path: str, page: httpx.Response, **fields) -> httpx.Response:
    return await c.post(path, data={"csrf": csrf(page), "agent": "dev", **fields}, headers=ORIGIN)


async def history(db, memory_id: str) -> list[tuple]:
    rows = await db.pool.fetch(
        "SELECT action, call, reason, related_id FROM memory_history WHERE memory_id = $1 ORDER BY seq",
        uuid.UUID(memory_id),
    )
    return [tuple(r) for r in rows]


# The gate ------------------------------------------------------------------------------


async def test_requests_without_the_token_are_refused(services, ids):
    async with client_for(services) as c:
        for path in ("/", "/search?q=x", f"/memory/{ids['polars']}", "/archive", f"/?token={TOKEN}x"):
            refused = await c.get(path)
            assert refused.status_code == 403, path
            assert "polars" not in refused.text and "needs the token" in refused.text
            assert refused.headers["x-frame-options"] == "DENY"
        forged = await c.post(f"/memory/{ids['polars']}/forget", data={"confirm": "yes"}, headers=ORIGIN)
        assert forged.status_code == 403
        elsewhere = await c.get(f"/?token={TOKEN}", headers={"Host": f"evil.example:{PORT}"})
        assert elsewhere.status_code == 403  # a DNS-rebinding page cannot use the token either
    assert (await faced(services.memories).get("dev", ids["polars"]))["id"] == ids["polars"]


async def test_the_token_opens_a_strict_httponly_session_and_leaves_the_url(services, ids):
    async with client_for(services) as c:
        opened = await c.get(f"/search?q=polars&token={TOKEN}")
        assert opened.status_code == 303 and opened.headers["location"] == "/search?q=polars"
        cookie = opened.headers["set-cookie"].lower()
        assert f"hindsight_ui_{PORT}=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        page = await c.get("/search?q=polars")
        assert page.status_code == 200 and "polars" in page.text
        nonce = re.search(r"style-src 'nonce-([^']+)'", page.headers["content-security-policy"]).group(1)
        assert f'<style nonce="{nonce}">' in page.text and "<script" not in page.text
        assert "default-src 'none'" in page.headers["content-security-policy"]
        assert page.headers["cache-control"] == "no-store"


async def test_every_change_needs_csrf_and_our_origin(client, services, ids):
    page = await client.get(f"/memory/{ids['polars']}")
    target = f"/memory/{ids['polars']}/forget"
    for data, headers in (
        ({"confirm": "yes"}, ORIGIN),
        ({"confirm": "yes", "csrf": "wrong"}, ORIGIN),
        ({"confirm": "yes", "csrf": csrf(page)}, {"Origin": "http://evil.example"}),
        ({"confirm": "yes", "csrf": csrf(page)}, {}),
    ):
        refused = await client.post(target, data=data, headers=headers)
        assert refused.status_code == 403, (data, headers)
    routes = [r.path for r in client._transport.app.app.routes if "POST" in (r.methods or ())]
    assert len(routes) == 6
    for path in routes:  # no change is possible without the form's token
        refused = await client.post(path.replace("{id}", ids["polars"]), data={"agent": "dev"}, headers=ORIGIN)
        assert refused.status_code == 403 and "CSRF" in refused.text, path
    assert (await client.get(target)).status_code == 405  # GET never changes anything
    assert (await faced(services.memories).get("dev", ids["polars"]))["content"].startswith("The user prefers polars")


async def test_agents_are_limited_to_what_the_configuration_allows(client, services, ids):
    await services.memories.store("ops", "The on-call rotation changes on Mondays", memory_type="semantic")
    await services.memories.store("secret-agent", "Launch codes are in the blue folder", memory_type="semantic")
    ops = await client.get("/memories?agent=ops")
    assert ops.status_code == 200 and "on-call rotation" in ops.text
    refused = await client.get("/memories?agent=secret-agent")
    assert refused.status_code == 403 and "Launch codes" not in refused.text
    assert '<option value="secret-agent"' not in (await client.get("/")).text
    async with client_for(services, allowed=None) as anyone:  # HINDSIGHT_ALLOWED_AGENTS=*
        await anyone.get(f"/?token={TOKEN}")
        page = await anyone.get("/?agent=secret-agent")
        assert page.status_code == 200 and '<option value="secret-agent" selected>' in page.text


def test_allowed_agents_setting():
    def ui(**env):
        return Ui.from_settings(Settings.from_env({"HINDSIGHT_AGENT_ID": "dev", **env}))

    assert ui(HINDSIGHT_ALLOWED_AGENTS="*").allowed is None
    assert ui(HINDSIGHT_ALLOWED_AGENTS="ops, qa").allowed == {"dev", "ops", "qa"}
    assert ui().allowed == {"dev"}
    with pytest.raises(ConfigError, match="HINDSIGHT_ALLOWED_AGENTS"):
        ui(HINDSIGHT_ALLOWED_AGENTS="ops,bad agent")


# Pages ---------------------------------------------------------------------------------


async def test_every_page_renders(client, ids):
    overview = await client.get("/")
    assert overview.status_code == 200
    for part in (
        "Memories by type and state",
        "Writes per day",
        "Decay of current memories",
        "Leaving recall in the next 30 days",
        "Possible conflicts",
        "Last maintenance runs",
        "<svg",
    ):
        assert part in overview.text, part
    assert "1</b> newer memory says" in overview.text  # db_new likely replaces db_old
    for path in (
        "/search",
        "/memories",
        "/memories?all=1&type=semantic",
        "/conflicts",
        "/archive",
        f"/memory/{ids['db_new']}",
        f"/memory/{ids['stale']}",
    ):
        page = await client.get(path)
        assert page.status_code == 200, path
        assert page.headers["content-type"] == "text/html; charset=utf-8"
    conflicts = await client.get("/conflicts")
    assert "PostgreSQL 14" in conflicts.text and "PostgreSQL 16" in conflicts.text
    stale = await client.get(f"/memory/{ids['stale']}")
    assert "invalidated" in stale.text and "the runner image was upgraded" in stale.text
    empty = await client.get("/?agent=ops")
    assert empty.status_code == 200 and "No memories yet." in empty.text
    missing = await client.get(f"/memory/{uuid.uuid4()}")
    assert missing.status_code == 404 and "no memory with id" in missing.text


async def test_overview_forecasts_with_hindsight_decay(client, services, ids):
    """An importance-2 episode decays below 0.3 in about 24 days (λ 0.05, weight 1), before
    its 30-day expiry; facts of importance 4-5 never fall under the cut."""
    expected = await services.db.pool.fetchval(
        "SELECT min(d) FROM generate_series(1, 30) d, memory_state s WHERE s.id = $1 AND "
        "hindsight_decay(s.strength, s.access_count, s.stored_at, s.importance, s.memory_type, "
        "now() + make_interval(days => d), 0.05) < 0.3",
        uuid.UUID(ids["fading"]),
    )
    assert 20 <= expected <= 26
    page = (await client.get("/")).text
    assert f'day +{expected}: <a href="/memory/{ids["fading"]}?agent=dev">Skimmed the release notes' in page
    assert ids["polars"] not in page.split("First to fade")[1]


async def test_search_runs_recall_and_explains_each_hit(client, services, ids):
    page = await client.get("/search", params={"q": "which database does production use?", "top_k": "5"})
    assert page.status_code == 200
    direct = await services.recall.retrieve("dev", "which database does production use?", top_k=5)
    shown = re.findall(r'<div class="head"><b>\d+\.</b><a href="/memory/([0-9a-f-]+)\?agent=dev">', page.text)
    assert shown == [m["id"] for m in direct["memories"]]
    assert shown.index(ids["db_new"]) < shown.index(ids["db_old"])
    text = page.text
    assert "Why it came back" in text and "the keyword channel: BM25" in text and "the dense channel" in text
    assert "= 0.6 × dense + 0.4 × keyword" in text and "confidence" in text
    assert "a newer memory says this changed" in text and "Possibly outdated by a newer memory" in text
    tools = await client.get("/search", params={"q": "部署失败", "tools": "kubectl", "type": "procedural"})
    assert "部署脚本在 Kubernetes 上失败了" in tools.text and "it used a tool you named" in tools.text
    assert "boost: used a tool you named" in tools.text
    filtered = await client.get("/search", params={"q": "database", "as_of": "2020-01-01T00:00"})
    assert "No memories found" in filtered.text


async def test_search_refuses_bad_filters_with_the_field_named(client):
    bad = await client.get("/search", params={"q": "x", "top_k": "lots"})
    assert bad.status_code == 400 and "top_k" in bad.text
    bad = await client.get("/search", params={"q": "x", "top_k": "99"})
    assert bad.status_code == 400 and "top_k: must be a whole number from 1 to 50" in bad.text
    bad = await client.get("/search", params={"q": "x", "start": "2026-02-01T00:00", "end": "2026-01-01T00:00"})
    assert bad.status_code == 400 and "start must be before end" in bad.text


async def test_chinese_content_renders(client, ids):
    page = await client.get(f"/memory/{ids['zh_pref']}")
    assert "用户希望所有回复都使用中文，代码注释也用中文" in page.content.decode("utf-8")
    found = await client.get("/search", params={"q": "回复用什么语言？"})
    assert "用户希望所有回复都使用中文" in found.text


async def test_memory_content_is_escaped(client, ids):
    page = await client.get(f"/memory/{ids['hostile']}")
    assert "<script>" not in page.text and "</script>" not in page.text and "<b>bold</b>" not in page.text
    assert "&lt;/script&gt;&lt;script&gt;alert(&#x27;pwned&#x27;)" in page.text
    assert "kept as data, never obeyed" in page.text  # the guard's flag, explained
    listed = await client.get("/memories")
    assert "<script>" not in listed.text and HOSTILE not in listed.text


async def test_sealed_content_stays_sealed_unless_revealed(client, ids):
    page = await client.get(f"/memory/{ids['secret']}")
    assert "hunter2" not in page.text and "[REDACTED:password]" in page.text
    revealed = await post(client, f"/memory/{ids['secret']}/reveal", page)
    assert revealed.status_code == 200 and "hunter2-staging-Xy9" in revealed.text
    assert "hunter2" not in (await client.get(f"/memory/{ids['secret']}")).text


# Corrections ---------------------------------------------------------------------------


async def test_invalidate_and_forget_go_through_the_tools_code_with_call_ui(client, services, ids):
    page = await client.get(f"/memory/{ids['polars']}")
    refused = await post(client, f"/memory/{ids['polars']}/invalidate", page, reason="   ")
    assert refused.status_code == 400 and "reason" in refused.text
    done = await post(client, f"/memory/{ids['polars']}/invalidate", page, reason="switched to duckdb", replaced_by="")
    assert done.status_code == 303 and done.headers["location"].endswith("done=invalidated")
    assert (await history(services.db, ids["polars"]))[-1] == ("invalidate", "ui", "switched to duckdb", None)

    page = await client.get(f"/memory/{ids['fading']}")
    unconfirmed = await post(client, f"/memory/{ids['fading']}/forget", page)
    assert unconfirmed.status_code == 400 and "confirm" in unconfirmed.text
    done = await post(client, f"/memory/{ids['fading']}/forget", page, confirm="yes")
    assert done.status_code == 303
    assert (await history(services.db, ids["fading"]))[-1][:2] == ("delete", "ui")
    gone = await client.get(done.headers["location"])
    assert gone.status_code == 200 and "forgotten" in gone.text and "Skimmed the release notes" not in gone.text
    assert "Forgotten: the memory is deleted" in gone.text
    found = await client.get("/search", params={"q": "ruff release notes"})
    assert ids["fading"] not in found.text


async def test_confirm_and_dismiss_a_possible_conflict(client, services, ids):
    links = await services.db.pool.fetchval(
        "SELECT likely_replaces FROM memories WHERE id = $1", uuid.UUID(ids["db_new"])
    )
    assert links == [uuid.UUID(ids["db_old"])]
    page = await client.get(f"/memory/{ids['db_new']}")
    assert "It likely replaces" in page.text
    dismissed = await post(client, "/conflict/dismiss", page, new_id=ids["db_new"], old_id=ids["db_old"])
    assert dismissed.status_code == 303
    assert (
        await services.db.pool.fetchval("SELECT likely_replaces FROM memories WHERE id = $1", uuid.UUID(ids["db_new"]))
        == []
    )
    assert "not written to the memories' history" in unescape((await client.get(dismissed.headers["location"])).text)
    again = await post(client, "/conflict/dismiss", page, new_id=ids["db_new"], old_id=ids["db_old"])
    assert again.status_code == 400 and "does not name" in again.text

    confirmed = await post(
        client, "/conflict/confirm", page, new_id=ids["db_new"], old_id=ids["db_old"], back="conflicts"
    )
    assert confirmed.status_code == 303 and confirmed.headers["location"].startswith("/conflicts")
    action, call, reason, related = (await history(services.db, ids["db_old"]))[-1]
    assert (action, call, str(related)) == ("supersede", "ui", ids["db_new"])
    assert reason == f"confirmed in hindsight ui: replaced by {ids['db_new']}"
    old = await client.get(f"/memory/{ids['db_old']}")
    assert "Superseded by" in old.text and "PostgreSQL 16" in old.text
    new = await client.get(f"/memory/{ids['db_new']}")
    assert "It superseded" in new.text


async def test_restore_from_the_archive_with_call_ui(client, services, ids):
    short = await services.memories.store("dev", "Temporary build cache lives in /tmp/bc", ttl_seconds=60)
    report = await Maintenance(services.db, None).run(datetime.now(timezone.utc) + timedelta(days=2))
    assert report["archive"]["archived_expired"] >= 1
    listing = await client.get("/archive")
    assert "Temporary build cache" in listing.text and "expired" in listing.text
    page = await client.get(f"/memory/{short['id']}")
    assert "archived (expired)" in page.text
    done = await post(client, f"/archive/{short['id']}/restore", page)
    assert done.status_code == 303 and done.headers["location"].endswith("done=restored")
    assert (await history(services.db, short["id"]))[-2:] == [
        ("archive", "maintain", "archive: expired", None),
        ("restore", "ui", "restored from archive (expired)", None),
    ]
    assert "current" in (await client.get(f"/memory/{short['id']}")).text


async def test_ui_command_refuses_a_bad_or_busy_port_and_an_agent_not_allowed(cli):
    other = await cli("ui", "--agent", "someone-else", "--no-browser")
    assert other.code == 2 and other.out == ""
    assert "--agent 'someone-else': this process acts for 'default'" in other.err
    bad = await cli("ui", "--port", "70000", "--no-browser")
    assert bad.code == 2 and bad.out == ""
    assert bad.err.strip() == "hindsight ui: error: --port 70000: must be from 1 to 65535 (0: a free port)"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        busy = await cli("ui", "--port", str(port), "--no-browser")
    assert busy.code == 2 and f"cannot listen on 127.0.0.1:{port}" in busy.err and busy.out == ""


# Issue 29: what the page says, beside `hindsight show` ----------------------------------


async def test_a_replaced_memory_is_superseded_by_its_replacement_on_the_page_and_in_show(client, services, ids, cli):
    old, new = ids["db_old"], ids["db_new"]
    await faced(services.memories).invalidate("dev", old, "moved to PostgreSQL 16", new, call="test")
    page = unescape((await client.get(f"/memory/{old}")).text)
    assert f"superseded by {new}: no longer recalled, kept as history" in page
    assert "<dt>superseded</dt>" in page and f"<dt>superseded by</dt><dd>{new}</dd>" in page
    assert "<dt>invalidated</dt>" not in page and "invalidated: no longer" not in page
    newer = unescape((await client.get(f"/memory/{new}")).text)
    assert "It superseded" in newer and "· superseded" in newer
    shown = await cli("show", old, "--agent", "dev")
    assert shown.code == 0, shown.err
    lines = shown.out.splitlines()
    assert any(line.startswith(f"superseded  by {new} at ") for line in lines), shown.out
    assert "superseded" in lines[2] and not any(line.startswith("invalidated") for line in lines)

    plain = unescape((await client.get(f"/memory/{ids['stale']}")).text)  # invalidated, replaced by nothing
    assert "invalidated: no longer recalled, kept as history" in plain and "superseded" not in plain
    stale = (await cli("show", ids["stale"], "--agent", "dev")).out.splitlines()
    assert any(line.startswith("invalidated ") and "the runner image was upgraded" in line for line in stale)
    assert not any("superseded" in line for line in stale)


async def test_the_memories_page_has_a_project_column(client, services):
    await services.memories.store("dev", "Courier deploys need the VPN first", project="courier")
    page = (await client.get("/memories")).text
    header = re.search(r"<tr><th>.*?</tr>", page).group(0)
    assert re.findall(r"<th[^>]*>([^<]+)</th>", header) == [
        "created",
        "type",
        "project",
        "content",
        "importance",
        "decay",
    ]
    row = next(r for r in re.findall(r"<tr><td>.*?</tr>", page) if "Courier deploys" in r)
    assert re.findall(r"<td>([^<]*)</td>", row)[2] == "courier"
    global_row = next(r for r in re.findall(r"<tr><td>.*?</tr>", page) if "polars over pandas" in r)
    assert '<td><span class="muted">global</span></td>' in global_row


async def test_the_decay_charts_cut_line_sits_on_its_tick(client):
    page = (await client.get("/")).text
    svg = re.search(r'<svg[^>]*aria-label="Current memories by decay_score".*?</svg>', page).group(0)
    cut = float(re.search(r'<line x1="([\d.]+)" x2="\1"[^>]*stroke="#b3261e"', svg).group(1))
    label = float(re.search(r'<text x="([\d.]+)"[^>]*>0\.3</text>', svg).group(1))
    ticks = [float(x) for x in re.findall(r'<line x1="([\d.]+)" x2="\1" y1="174" y2="178"', svg)]
    assert cut == label and cut in ticks  # was: the line at 217.4, its label and tick at 246.3


# Issue 30: what the IDE's hooks captured shows as theirs, with its session -------------------


async def test_a_memory_the_hooks_captured_says_so_on_its_page(client, services):
    stored = await services.memories.store(
        "dev",
        "`sh check.sh` failed: error: .env.test is missing. Fixed: then `cp .env.example .env.test` worked.",
        memory_type="procedural",
        session_id="a1c743c0-hooks",
        metadata={"source": "hook", "hook": "PostToolUse", "reason": "error_and_fix"},
    )
    page = unescape((await client.get(f"/memory/{stored['id']}")).text)
    assert "<dt>captured by</dt><dd>the IDE's PostToolUse hook in session a1c743c0-hooks</dd>" in page
