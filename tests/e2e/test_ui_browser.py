"""`hindsight ui` in a real browser: Debian's chromium, headless, driven by Playwright (no
browser download: /usr/bin/chromium). `hindsight ui` runs as a subprocess on a free port
against a test database; screenshots go to tests/artifacts/ (or $HINDSIGHT_TEST_ARTIFACTS).

Outside CI a missing chromium or playwright skips these tests, saying why; in CI (CI=true)
it fails them: .ci/run installs both."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import anyio
import pytest
from mcp_client import server_env
from ui_seed import seed

from hindsight.upkeep.maintenance import Maintenance

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
ARTIFACTS = Path(os.environ.get("HINDSIGHT_TEST_ARTIFACTS") or Path(__file__).resolve().parents[1] / "artifacts")


def _need_browser() -> None:
    missing = []
    if not CHROMIUM.exists():
        missing.append("Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install -e '.[test]')")
    if missing:
        why = "browser tests need " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(why + "; .ci/run installs them")
        pytest.skip(why)


@pytest.fixture
async def ui_url(db_url, memories, tmp_path):
    """`hindsight ui --port 0 --no-browser` on the test database: (the URL it printed, ids)."""
    _need_browser()
    ids = await seed(memories)
    await Maintenance(memories.db, None).run(datetime.now(timezone.utc))  # a run for the overview to show
    exe = Path(sys.executable).parent / "hindsight"
    log = open(tmp_path / "ui.stderr", "w+", encoding="utf-8")
    proc = subprocess.Popen(
        [str(exe), "ui", "--port", "0", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="dev", HINDSIGHT_HOME=str(tmp_path / "home")),
    )
    try:
        with anyio.fail_after(180):
            line = await anyio.to_thread.run_sync(proc.stdout.readline)
        log.seek(0)
        assert line.startswith("http://127.0.0.1:") and "/?token=" in line, f"no URL printed: {log.read()}"
        yield line.strip(), ids
    finally:
        proc.terminate()
        code = await anyio.to_thread.run_sync(lambda: proc.wait(timeout=60))
        rest = proc.stdout.read()
        log.seek(0)
        print(f"hindsight ui exited with {code}; stderr:\n{log.read()}")
        log.close()
        assert code == 0 and rest == ""  # stopped cleanly; stdout carried the URL alone


async def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"ui-{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


async def test_overview_search_memory_and_forget_in_chromium(ui_url):
    from playwright.async_api import async_playwright

    url, ids = ui_url
    base = url.split("/?token=")[0]
    problems: list[str] = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = await (await browser.new_context(viewport={"width": 1280, "height": 800})).new_page()
            refused = await page.goto(base + "/")
            assert refused.status == 403 and "needs the token" in await page.inner_text("body")
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            await page.goto(url)
            assert page.url == base + "/"  # the token moved into the session cookie
            assert await page.inner_text("h1") == "What dev remembers"
            assert await page.locator("svg").count() >= 3
            await shot(page, "overview")

            await page.click("text=Search")
            await page.fill("input[name=q]", "which database does production use?")
            await page.click("button:has-text('Search')")
            hits = page.locator("article.hit")
            assert await hits.count() >= 3
            first = await hits.first.inner_text()
            assert "Why it came back" in first and "relevance" in first and "confidence" in first
            await shot(page, "search")

            await page.click("article.hit a:has-text('PostgreSQL 14')")
            assert "/memory/" + ids["db_old"] in page.url
            await page.click("button:has-text('Confirm: the newer replaces the older')")
            assert "Confirmed" in await page.inner_text("p.notice")
            await page.goto(f"{base}/memory/{ids['db_old']}?agent=dev")
            timeline = await page.inner_text("ol.timeline")
            assert "Stored" in timeline and "Reinforced" in timeline and "Superseded" in timeline
            assert "by ui" in timeline
            await shot(page, "memory-history")

            await page.goto(f"{base}/search?agent=dev&q=ruff+release+notes")
            await page.click("article.hit a:has-text('Skimmed the release notes')")
            await page.check("input[name=confirm]")
            await page.click("button:has-text('Forget for good')")
            assert "forgotten" in await page.inner_text("h1")
            assert "Skimmed the release notes" not in await page.inner_text("main")
            await page.goto(f"{base}/search?agent=dev&q=ruff+release+notes")
            assert "Skimmed the release notes" not in await page.inner_text("main")
            await shot(page, "forgotten-search")

            narrow = await (await browser.new_context(viewport={"width": 400, "height": 800})).new_page()
            narrow.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            await narrow.goto(url)
            await narrow.goto(f"{base}/memory/{ids['zh_pref']}?agent=dev")
            assert "用户希望所有回复都使用中文" in await narrow.inner_text(".content")
            assert await narrow.evaluate("document.documentElement.scrollWidth") <= 400
            await shot(narrow, "memory-narrow")
            await narrow.goto(base + "/")
            assert await narrow.evaluate("document.documentElement.scrollWidth") <= 400
            await shot(narrow, "overview-narrow")
        finally:
            await browser.close()
    assert problems == []  # e.g. a style the Content-Security-Policy blocked
