"""A database password with @ : / # ? % in it works: as PGPASSWORD beside a URL without a
password (what docker/compose.yaml does), or percent-encoded inside the URL. Checked on the
embedded PostgreSQL with scram-sha-256 required for one role, as a non-superuser would
connect to an external server."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import asyncpg
import pytest

PASSWORD = "p@ss:w/rd#?%x"


@pytest.fixture
async def password_db(pg_url):
    """(a URL without password for a scram-only role owning a fresh database, the database)."""
    role, name = f"hs_pw_{uuid.uuid4().hex[:8]}", f"pw_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(pg_url)
    hba = Path(await admin.fetchval("SHOW hba_file"))
    original = hba.read_text()
    try:
        hba.write_text(f"local all {role} scram-sha-256\n" + original)
        await admin.execute("SELECT pg_reload_conf()")
        await admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}'")
        await admin.execute(f"CREATE DATABASE {name} OWNER {role}")
        ext = await asyncpg.connect(pg_url.replace("/postgres?", f"/{name}?"))
        await ext.execute("CREATE EXTENSION vector")  # as a DBA would, once
        await ext.close()
        host = parse_qs(urlsplit(pg_url).query)["host"][0]
        yield f"postgresql://{role}@/{name}?host={host}", role
    finally:
        hba.write_text(original)
        await admin.execute("SELECT pg_reload_conf()")
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.execute(f"DROP ROLE IF EXISTS {role}")
        await admin.close()


async def test_a_password_with_url_characters_works_as_pgpassword_or_percent_encoded(cli, password_db):
    url, role = password_db
    refused = await cli("migrate", url=url)
    assert refused.code == 2 and "password authentication failed" in refused.err
    assert PASSWORD not in refused.err
    migrated = await cli("migrate", url=url, PGPASSWORD=PASSWORD)
    assert migrated.code == 0, migrated.err
    stored = await cli("store", "The deploy key lives in the vault", "--agent", "pw", url=url, PGPASSWORD=PASSWORD)
    assert stored.code == 0, stored.err
    encoded = url.replace(f"{role}@", f"{role}:{quote(PASSWORD, safe='')}@")
    listed = await cli("list", "--agent", "pw", url=encoded)
    assert listed.code == 0 and stored.out.strip()[:8] in listed.out
    wrong = await cli("list", "--agent", "pw", url=url, PGPASSWORD="p@ss:w/rd#?%y")
    assert wrong.code == 2 and "password authentication failed" in wrong.err
