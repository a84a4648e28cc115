"""The Docker stack cannot run here (no engine), so check what its files promise, and
validate compose.yaml with a real Compose implementation when one is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DOCKER = Path(__file__).resolve().parent.parent / "docker"


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
    for name in ("server", "scheduler"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["scheduler"]["entrypoint"] == ["hindsight", "scheduler"]
    assert services["server"]["entrypoint"] == ["hindsight-server"] and services["server"]["stdin_open"] is True
    url = services["server"]["environment"]["HINDSIGHT_DATABASE_URL"]
    assert url.startswith("postgresql://") and "@db:5432/" in url


def test_env_example_defines_every_variable_compose_uses():
    used = set(re.findall(r"(?<!\$)\$\{(\w+)", (DOCKER / "compose.yaml").read_text()))
    defined = {line.split("=", 1)[0] for line in (DOCKER / ".env.example").read_text().splitlines()
               if line and not line.startswith("#")}
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


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="no Compose implementation installed")
def test_compose_config_validates(tmp_path):
    env = tmp_path / ".env"
    env.write_text((DOCKER / ".env.example").read_text())
    done = subprocess.run(["docker-compose", "--env-file", str(env), "-f", str(DOCKER / "compose.yaml"), "config"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "service_completed_successfully" in done.stdout
    empty = tmp_path / "empty.env"
    empty.write_text("")
    missing = subprocess.run(["docker-compose", "--env-file", str(empty), "-f", str(DOCKER / "compose.yaml"),
                              "config"], capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "POSTGRES_PASSWORD" in missing.stderr
