"""Read replicas without a database: the URL list, the verdict on a check, the health state
machine, and the router (hindsight.data.replicas.Reads) over fakes that stand for the primary
and the replicas."""

import asyncio
import logging
import time

import pytest

from hindsight.config import Settings, read_urls
from hindsight.data import replicas
from hindsight.data.db import ReplicaFailed
from hindsight.data.replicas import Health, Reads, Replica, verdict
from hindsight.errors import ConfigError

PRIMARY = "postgresql://app:pw@primary:5432/hs"


# ---- HINDSIGHT_READ_DATABASE_URL ----------------------------------------------------------


def test_read_urls_one_or_a_comma_list():
    assert read_urls("", PRIMARY) == ()
    assert read_urls(" , ", PRIMARY) == ()
    assert read_urls("postgresql://r1/hs", PRIMARY) == ("postgresql://r1/hs",)
    assert read_urls("postgresql://r1/hs, postgres://u:p@r2:6432/hs", PRIMARY) == (
        "postgresql://r1/hs",
        "postgres://u:p@r2:6432/hs",
    )


def test_a_multi_host_url_keeps_its_commas():
    assert read_urls("postgresql://u@r1:5432,r2:5432/hs?target_session_attrs=any", PRIMARY) == (
        "postgresql://u@r1:5432,r2:5432/hs?target_session_attrs=any",
    )


def test_each_read_url_is_checked_like_the_primary():
    with pytest.raises(ConfigError, match="entry 2 of 2 must be a postgresql:// URL"):
        read_urls("postgresql://r1/hs,mysql://r2/hs", PRIMARY)
    with pytest.raises(ConfigError, match="HINDSIGHT_READ_DATABASE_URL"):
        Settings.from_env({"HINDSIGHT_DATABASE_URL": PRIMARY, "HINDSIGHT_READ_DATABASE_URL": "r1:5432/hs"})


def test_replicas_without_a_primary_url_are_refused():
    with pytest.raises(ConfigError, match="needs HINDSIGHT_DATABASE_URL.*embedded database has no replicas"):
        Settings.from_env({"HINDSIGHT_READ_DATABASE_URL": "postgresql://r1/hs"})


def test_settings_carry_the_read_urls():
    env = {"HINDSIGHT_DATABASE_URL": PRIMARY, "HINDSIGHT_READ_DATABASE_URL": "postgresql://r1/hs,postgresql://r2/hs"}
    assert Settings.from_env(env).read_database_urls == ("postgresql://r1/hs", "postgresql://r2/hs")
    assert Settings.from_env({"HINDSIGHT_DATABASE_URL": PRIMARY}).read_database_urls == ()


# ---- a check's verdict and the health state machine -----------------------------------------


def test_verdict_names_what_is_wrong():
    assert verdict(True, 100, True, 0.0) is None
    assert "not a standby" in verdict(False, None, True, 0.0)
    assert "no replay position" in verdict(True, None, True, 0.0)
    assert "no memories table" in verdict(True, 100, False, 0.0)
    assert "12 s behind" in verdict(True, 100, True, 12.0)
    assert verdict(True, 100, True, replicas.MAX_LAG) is None


def test_a_failure_is_news_once_and_retried_later():
    h = Health()
    assert h.due(0.0), "never checked"
    assert h.passed(0.0, 0.1) is None, "the first check"
    assert not h.due(0.1 + replicas.CHECK_EVERY - 0.01) and h.due(0.1 + replicas.CHECK_EVERY)
    assert h.failed(1.0, "gone") is True
    assert h.up is False and h.reason == "gone"
    assert h.failed(1.5, "gone again") is False, "already skipped: no second line"
    assert not h.due(1.5 + replicas.RETRY_AFTER - 0.01) and h.due(1.5 + replicas.RETRY_AFTER)
    assert h.failed(7.0, "still gone") is False
    assert h.passed(12.5, 12.6) is False, "it comes back: worth a line"
    assert h.up and h.reason == ""
    assert h.passed(20.0, 20.1) is True, "nothing changed"


def test_a_check_begun_before_a_failure_does_not_revive_the_replica():
    h = Health()
    h.passed(0.0, 0.1)
    h.failed(5.0, "killed")  # a read failed while a check that began at 4.9 was running
    assert h.passed(4.9, 5.1) is True
    assert h.up is False


def test_lag_is_how_long_the_replica_has_not_replayed_what_the_primary_had():
    h = Health()
    assert h.lag(0.0, 0.1, primary=100, replayed=100) == 0.0, "caught up"
    assert h.lag(0.0, 0.1, primary=None, replayed=50) == 0.0, "the primary's position unknown: no claim"
    assert h.lag(10.0, 10.1, primary=200, replayed=150) == pytest.approx(0.1)
    assert h.lag(15.0, 15.1, primary=300, replayed=190) == pytest.approx(5.1), "still short of 200 (read at 10.0)"
    assert h.lag(20.0, 20.1, primary=400, replayed=250) == pytest.approx(0.1), "past 200; now short of 400"
    assert h.lag(600.0, 600.1, primary=400, replayed=400) == 0.0, "an idle primary makes no lag"


def test_a_read_does_not_wait_again_for_a_position_just_given_up_on():
    h = Health()
    assert h.worth_waiting(500, 0.0)
    h.gave_up = (1.0, 500)
    assert not h.worth_waiting(500, 1.5) and not h.worth_waiting(400, 1.5)
    assert h.worth_waiting(600, 1.5), "a newer write: try again"
    assert h.worth_waiting(500, 1.0 + replicas.WAIT_FOR_WRITE)


# ---- the router over fakes ----------------------------------------------------------------


class Fake:
    """A server: answers each read with its name, a replica's checks with its state."""

    def __init__(self, name: str, replayed: int = 0, catch_up: int = 0):
        self.name, self.replayed, self.position = name, replayed, replayed
        self.catch_up = catch_up  # a replica: how many replay polls before it reaches `position`
        self.down = False
        self.polls = 0
        self.fail_mid_statement = False
        self.committed = None

    async def fetch(self, name, *args):
        return self._answer(name)

    async def fetchrow(self, name, *args):
        return self._answer(name)

    async def fetchval(self, name, *args):
        return self._answer(name)

    def _answer(self, name):
        if self.down:
            raise ReplicaFailed("ConnectionRefusedError: nothing listening", unavailable=True)
        if name == "replica_state":
            return {"in_recovery": True, "replayed": self.replayed, "has_schema": True}
        if name == "replica_replay_lsn":
            self.polls += 1
            if self.catch_up:
                self.catch_up -= 1
                if not self.catch_up:
                    self.replayed = self.position
            return self.replayed
        if name == "primary_wal_lsn":
            return self.position
        if self.fail_mid_statement:
            self.fail_mid_statement = False
            raise ReplicaFailed("ConnectionDoesNotExistError: connection was closed", unavailable=True)
        return self.name

    async def close(self):
        pass


class Session:
    def __init__(self, server: Fake):
        self.server = server

    async def fetchval(self, name, *args):
        return self.server._answer(name)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def lines():
    found: list[str] = []

    class Handler(logging.Handler):
        def emit(self, record):
            found.append(record.getMessage())

    logger = logging.getLogger(replicas.__name__)
    handler, level = Handler(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield found
    logger.removeHandler(handler)
    logger.setLevel(level)


async def _router(*servers: Fake, clock=None):
    primary = Fake("primary", replayed=1000)
    reads = Reads(primary, [Replica(f"postgresql://u:secret@{s.name}/hs", s) for s in servers], clock or Clock())
    reads._check_due(reads._clock())
    return primary, reads


async def test_reads_go_to_a_healthy_replica_in_turn():
    a, b = Fake("a", replayed=1000), Fake("b", replayed=1000)
    _, reads = await _router(a, b)
    answers = [await reads.fetchval("get_memory") for _ in range(4)]
    assert sorted(answers) == ["a", "a", "b", "b"]


async def test_a_replica_down_is_skipped_with_one_line_and_retried(lines):
    clock = Clock()
    down = Fake("down", replayed=1000)
    down.down = True
    _, reads = await _router(down, clock=clock)
    answers = [await reads.fetchval("get_memory") for _ in range(5)]
    assert answers == ["primary"] * 5
    for _ in range(3):  # retried, quietly
        clock.now += replicas.RETRY_AFTER
        assert await reads.fetchval("get_memory") == "primary"
        await reads.replicas[0].checking
        assert reads.replicas[0].health.failed_at == clock.now, "the retry ran, and failed"
    skipped = [line for line in lines if "skipped" in line]
    assert len(skipped) == 1 and "ConnectionRefusedError" in skipped[0] and "secret" not in skipped[0], lines
    down.down = False
    clock.now += replicas.RETRY_AFTER
    await reads.fetchval("get_memory")  # starts the retry
    await reads.replicas[0].checking
    assert await reads.fetchval("get_memory") == "down"
    assert any("is back" in line for line in lines)


async def test_a_read_failing_mid_statement_is_asked_of_the_primary(lines):
    replica = Fake("replica", replayed=1000)
    _, reads = await _router(replica)
    assert await reads.fetchval("get_memory") == "replica"
    replica.fail_mid_statement = True
    assert await reads.fetchval("get_memory") == "primary"
    assert await reads.fetchval("get_memory") == "primary", "skipped until a retry passes"
    assert len([line for line in lines if "skipped" in line]) == 1


async def test_a_read_after_a_write_waits_for_the_replica_to_replay_it():
    replica = Fake("replica", replayed=1000)
    primary, reads = await _router(replica)
    assert await reads.fetchval("get_memory") == "replica"
    primary.position = replica.position = 2000  # a write: the primary is at 2000, the replica at 1000
    replica.catch_up = 3
    await primary.committed(Session(primary))
    assert await reads.fetchval("get_memory") == "replica", "it waited for three polls"
    assert replica.replayed == 2000
    assert await reads.fetchval("get_memory") == "replica"


async def test_a_replica_that_does_not_catch_up_in_time_leaves_the_read_to_the_primary(monkeypatch):
    monkeypatch.setattr(replicas, "WAIT_FOR_WRITE", 0.05)
    replica = Fake("replica", replayed=1000)
    primary, reads = await _router(replica, clock=time.monotonic)
    assert await reads.fetchval("get_memory") == "replica"
    primary.position = 2000
    await primary.committed(Session(primary))
    started = time.monotonic()
    assert await reads.fetchval("get_memory") == "primary"
    assert 0.04 <= time.monotonic() - started < 1, "it waited, boundedly"
    polls = replica.polls
    assert polls > 1
    assert await reads.fetchval("get_memory") == "primary", "not waited for again at once"
    assert replica.polls == polls
    await asyncio.sleep(0.06)
    replica.replayed = 2000
    assert await reads.fetchval("get_memory") == "replica", "caught up later: read there again"


async def test_without_a_write_there_is_no_position_work():
    replica = Fake("replica", replayed=0)
    polled = []
    original = replica._answer
    replica._answer = lambda name: polled.append(name) or original(name)
    _, reads = await _router(replica)
    for _ in range(5):
        assert await reads.fetchval("get_memory") == "replica"
    assert "replica_replay_lsn" not in polled and "primary_wal_lsn" not in polled
