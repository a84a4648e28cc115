"""The Docker stack cannot run here (no engine), so check what its files promise, and
validate compose.yaml with a real Compose implementation when one is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DOCKER = Path(__file__).resolve().parents[2] / "docker"


def compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yaml").read_text())


def test_compose_promises_health_volume_and_order():
    services = compose()["services"]
    db = services["db"]
    assert db["image"] == "pgvector/pgvector:pg17"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert "pgdata:/var/lib/postgresql/data" in db["volumes"] and "pgdata" in compose()["volumes"]
    assert services["migrate"]["entrypoint"] == ["hindsight", "migrate"]
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["scheduler"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["scheduler"]["entrypoint"] == ["hindsight", "scheduler"]
    assert services["server"]["entrypoint"] == ["hindsight-server"] and services["server"]["stdin_open"] is True
    # `docker compose run --rm -i server` (every IDE launch) waits for the database only: the
    # server migrates by itself, so the one-shot migrate service does not run again.
    assert services["server"]["depends_on"] == {"db": {"condition": "service_healthy"}}
    url = services["server"]["environment"]["HINDSIGHT_DATABASE_URL"]
    assert url.startswith("postgresql://") and "@db:5432/" in url


def test_the_password_never_goes_inside_a_url():
    env = compose()["x-hindsight"]["environment"]
    assert "PASSWORD" not in env["HINDSIGHT_DATABASE_URL"]
    assert env["PGPASSWORD"].startswith("${POSTGRES_PASSWORD:?")  # asyncpg reads PGPASSWORD; any character works


def test_the_example_env_cannot_start_without_a_password_and_names_the_time_zone():
    example = dict(
        line.split("=", 1)
        for line in (DOCKER / ".env.example").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert example["POSTGRES_PASSWORD"] == ""  # `${POSTGRES_PASSWORD:?...}` refuses an empty value
    assert example["HINDSIGHT_TIMEZONE"] == "UTC"
    assert compose()["x-hindsight"]["environment"]["HINDSIGHT_TIMEZONE"] == "${HINDSIGHT_TIMEZONE:-UTC}"


def test_the_header_comment_tells_the_commands_in_order():
    head = [line for line in (DOCKER / "compose.yaml").read_text().splitlines() if line.startswith("#")]
    commands = [line.split("#", 2)[1].strip() for line in head if line.startswith("#   ")]
    assert commands == [
        "cd docker && cp .env.example .env",
        "docker compose up -d",
        "docker compose run --rm -i server",
        "docker compose --profile team up -d",
    ]


def test_env_example_defines_every_variable_compose_uses():
    used = set(re.findall(r"(?<!\$)\$\{(\w+)", (DOCKER / "compose.yaml").read_text()))
    defined = {
        line.split("=", 1)[0]
        for line in (DOCKER / ".env.example").read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert used <= defined


def test_dockerfile_runs_as_non_root_and_fetches_nothing_at_run_time():
    text = (DOCKER / "Dockerfile").read_text()
    users = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^ENTRYPOINT \[\"hindsight-server\"\]", text, re.M)
    assert not re.search(r"huggingface|hf_hub|curl |wget ", text)
    for copied in re.findall(r"^COPY (\S+)", text, re.M):
        for part in copied.split():
            assert (DOCKER.parent / part).exists(), part


def _compose_config(env_file: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["docker-compose", "--env-file", str(env_file), "-f", str(DOCKER / "compose.yaml"), "config"],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="no Compose implementation installed")
def test_compose_config_validates(tmp_path):
    example = (DOCKER / ".env.example").read_text()
    as_copied = tmp_path / "copied.env"
    as_copied.write_text(example)
    missing = _compose_config(as_copied)
    assert missing.returncode != 0 and "set POSTGRES_PASSWORD in docker/.env" in missing.stderr
    env = tmp_path / ".env"
    env.write_text(example.replace("POSTGRES_PASSWORD=\n", "POSTGRES_PASSWORD=p@ss:w/rd\n"))
    done = _compose_config(env)
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load(done.stdout)
    for name in ("migrate", "scheduler", "server"):
        environment = config["services"][name]["environment"]
        assert environment["PGPASSWORD"] == "p@ss:w/rd"
        assert environment["HINDSIGHT_DATABASE_URL"] == "postgresql://hindsight@db:5432/hindsight"
    assert config["services"]["db"]["environment"]["POSTGRES_PASSWORD"] == "p@ss:w/rd"
    assert config["services"]["server"]["depends_on"] == {"db": {"condition": "service_healthy"}}
