"""What a question asks for, and whether a memory holds it (hindsight/rules/asks.py): a
question that asks for a cost, a number, how often or a time of day is answered only by a
text that holds one; a noun only mentioned asks for nothing. Ranking puts a memory that holds
a kind few memories hold first among comparably relevant ones (rules.scoring's `value`)."""

from __future__ import annotations

import pytest

from hindsight.rules import asks, scoring
from hindsight.rules.scoring import Candidate


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is the monthly cost of the Redis cluster?", asks.MONEY),
        ("How much did we pay for the Sentry plan?", asks.MONEY),
        ("How much does the company spend on AWS per month?", asks.MONEY),
        ("granary 的 S3 存储每个月花多少钱？", asks.MONEY),
        ("下个季度数据平台的预算是多少？", asks.MONEY),
        ("How often is Vault backed up?", asks.FREQUENCY),
        ("推荐系统的模型多久更新一次？", asks.FREQUENCY),
        ("What time does the office close on Fridays?", asks.TIME),
        ("What time did the deploy start last time?", asks.TIME),
        ("深圳办公室几点下班？", asks.TIME),
        ("Which Go version is courier on?", asks.VERSION),
        ("Which Expo SDK and React Native version is basket on?", asks.VERSION),
        ("Which Elasticsearch version runs the product search?", asks.VERSION),
        ("How many replicas does the coordinator have?", asks.NUMBER),
        ("How much disk does each Nomad client have?", asks.NUMBER),
        ("What is the phone number of the reception?", asks.NUMBER),
        ("Kafka 集群用的是哪个版本？", asks.VERSION),
        ("上个月 courier 的 Go 版本升到了多少？", asks.VERSION),  # 多少 of a version: a version, not any number
        ("courier 的日志保留多少天？", asks.DURATION),
        ("How long does the Android release build take?", asks.DURATION),
        ("How long does the dispatch service wait for an ETA?", asks.DURATION),
        ("How long ago did we move to Nessie?", asks.DURATION),
        ("部署一次要多长时间？", asks.DURATION),
        ("App Store 审核一般要几天？", asks.DURATION),
        ("备份多长时间做一次？", asks.FREQUENCY),
        ("旧分支多久清理一次？", asks.FREQUENCY),
        ("模型每隔多久重新训练？", asks.FREQUENCY),
        ("Vault 每天备份几次？", asks.FREQUENCY),  # 几次 per day: how often, not a count of what happened
        ("一周部署多少次？", asks.FREQUENCY),
        ("How many times a week does the eval job run?", asks.FREQUENCY),
        ("dbt docs 多久往 S3 上传一次？", asks.FREQUENCY),
        ("数据多久同步？", asks.FREQUENCY),
        ("今年夏天数据组来了几个实习生？", asks.NUMBER),
        ("Which Slack channel do courier's alerts go to?", asks.CHANNEL),
        ("What channel should I post the incident in?", asks.CHANNEL),
        ("这里出问题的时候告警发到哪个频道？", asks.CHANNEL),
        ("数据质量的告警在什么群里？", asks.CHANNEL),
        ("What is the address of the test server?", asks.ADDRESS),
        ("What's the staging URL for this?", asks.ADDRESS),  # "What's" is "What is"
        ("What’s the monthly cost of the Redis cluster?", asks.MONEY),
        ("Which hostname should a notebook use for Trino?", asks.ADDRESS),
        ("Which endpoint does the Consul health check hit?", asks.ADDRESS),
        ("What IP does the Redis node have?", asks.ADDRESS),
        ("测试服务器地址是什么？", asks.ADDRESS),
        ("Redis 的 IP 是多少？", asks.ADDRESS),  # an IP, not any number
        ("dbt 文档的网址是什么？", asks.ADDRESS),
        ("深圳办公室的地址在哪？", asks.ADDRESS),
    ],
)
def test_what_a_question_asks_for(question, kind):
    assert asks.asked_kind(question) == kind


@pytest.mark.parametrize(
    "question",
    [
        "How do I deploy a new courier version to prod?",  # a version mentioned, not asked for
        "What fields come back from the newer version of the ETA API?",
        "Which font does basket use for prices?",  # asks for a font
        "Which Grafana dashboard shows granary's storage costs?",  # asks for a dashboard
        "Does order_total include the delivery fee?",  # asks yes or no
        "How long should my answers be?",  # "short" answers it: a length need not be a number
        "How long is the retention of the logs?",  # a length or a span: not sure, so nothing
        "几天前 Trino 报了什么错？",  # 几天前 names a time, it does not ask for a number of days
        "几个月前我们为什么换掉了 Detox？",
        "The checks fail again, .env.test is missing. What did we do last time?",  # a time named, none asked
        "What broke the first time we ran the migration?",
        "How many times did the courier deploy fail this month?",  # a count the memories make up together
        "courier 这个月发版失败了几次？",
        "这几天 courier 有什么问题？",  # 这几天, 过去几周: a time named
        "过去几周 granary 改了什么？",
        "Nomad 节点每个月哪几天换 AMI？",  # 哪几天, 哪几个: which days, which people, not how many
        "哪几个人能点 deploy:prod？",
        "数据平台的年度预算是谁批的？",  # asks who
        "What should every MR include for the reviewer?",
        "Who reviews courier's Go code?",
        "How do I address the review comments?",  # a verb
        "What host did Dave invite to the party?",  # "host" alone may be a person
        "When did Jon host a dance competition?",
        "测试服务器的地址是怎么配置的？",  # asks how, not where
        "basket 的深链接是怎么配置的？",
    ],
)
def test_a_noun_only_mentioned_asks_for_nothing(question):
    assert asks.asked_kind(question) is None


def test_a_text_holds_the_kind_of_value_asked_for():
    assert asks.holds(asks.VERSION, "courier is on Go 1.24 now")
    assert asks.holds(asks.VERSION, "Hana registered eta-gbm version 14") and asks.holds(
        asks.VERSION, "basket 3.5 版开始"
    )
    assert asks.holds(asks.VERSION, "basket is on Expo SDK 53") and asks.holds(asks.VERSION, "eta-gbm v14")
    # a number that is no version: "only one emulator", "3 allocations", a digit inside a name
    assert not asks.holds(asks.VERSION, "先确认只连了一个模拟器，再跑 maestro test")
    assert not asks.holds(asks.VERSION, "3 allocations in prod on gl-runner-mac-01")
    assert asks.holds(asks.MONEY, "The Redis cluster costs about $1,200 a month")
    assert asks.holds(asks.MONEY, "S3 每个月大概 3000 元")
    assert not asks.holds(asks.MONEY, "redis-feat: three shards, redis-feat-01/02/03")
    assert asks.holds(asks.CHANNEL, "courier pages the platform on-call; the Slack channel is #plat-alerts.")
    assert asks.holds(asks.CHANNEL, "数据质量测试失败会发到 #data-alerts")
    # an issue number, a language, a heading name no channel
    assert not asks.holds(asks.CHANNEL, "fixed in #1423, the C# client, and a '# Runbook' heading")
    assert asks.holds(asks.FREQUENCY, "eta_train retrains weekly (Sunday 20:00 UTC)")
    assert asks.holds(asks.FREQUENCY, "Vault 每天凌晨备份")
    assert not asks.holds(asks.FREQUENCY, "Vault runs on Nomad behind an internal load balancer")
    assert asks.holds(asks.TIME, "code freeze the Monday before at 12:00 SGT")
    assert asks.holds(asks.NUMBER, "courier is on Go 1.24 now")
    assert asks.holds(asks.NUMBER, "basket Android：minSdk 24")
    assert asks.holds(asks.NUMBER, "three shards")
    assert asks.holds(asks.DURATION, "calls BatchEta with a 150 ms timeout")
    assert asks.holds(asks.DURATION, "a full refresh takes about 40 minutes")
    assert asks.holds(asks.DURATION, "events_ingest 停了 5 个小时")
    assert asks.holds(asks.DURATION, "审核一般要三天")
    assert asks.holds(asks.DURATION, "it took a few days")
    assert asks.holds(asks.DURATION, "courier has run on Nomad since March")
    assert not asks.holds(asks.DURATION, "courier is on Go 1.24 with 3 allocations")
    assert not asks.holds(asks.DURATION, "as and ad, s3://bucket on 2026-05-14")
    for where in ("测试服务器地址是 test-01.example.cn", "Vault: https://vault.pantry.internal.", "s3://pantry-lake-dev",
                  "dial tcp 10.30.4.12:9094", "REDIS_TEST_ADDR=localhost:6380", "the broker at kafka-1:9092",
                  "Split health: /healthz and /readyz", "mail kwame@pantry.io", "88 Market Street, 3rd floor",
                  "深圳市南山区科技园路 8 号"):  # fmt: skip
        assert asks.holds(asks.ADDRESS, where), where
    for nowhere in ("compose.yml and compose.nessie.yml", "set spark.sql.catalog.lake.type=rest", "client/server",
                    "image python:3.11", "code freeze at 12:00 SGT", "测试服务器每天凌晨三点自动重启"):  # fmt: skip
        assert not asks.holds(asks.ADDRESS, nowhere), nowhere


@pytest.mark.parametrize(
    "question, name",
    [
        ("Which Postgres version does the courier service store its orders in?", "postgres"),
        ("Which Expo SDK and React Native version is basket on?", "native"),  # the word before "version"
        ("Which eta-gbm version serves in Production now?", "eta-gbm"),
        ("What version of the Go toolchain do we use?", "go"),
        ("courier 的订单存在哪个版本的 Postgres 里？", "postgres"),
        ("上个月 courier 的 Go 版本升到了多少？", "go"),  # the nearest name before 版本
        ("EKS 集群的 Kubernetes 是哪个版本？", "kubernetes"),
        ("Which version are we on?", None),  # names nothing: any version answers
        ("What is the latest version?", None),
        ("What version of the app are we on?", None),  # a kind of thing: a note may not say "app"
        ("现在用的是哪个版本？", None),
    ],
)
def test_what_a_question_asks_the_version_of(question, name):
    assert asks.version_of(question) == name


def test_a_version_answers_only_of_the_thing_asked():
    assert asks.holds(asks.VERSION, "courier moved to Go 1.23 (go.mod `go 1.23.0`)", "go")
    assert asks.holds(asks.VERSION, "Airflow upgraded from 2.8.4 to 2.10.3 (helm chart 1.15)", "airflow")
    assert asks.holds(asks.VERSION, "Hana 把 eta-gbm v14 切到 Production", "eta-gbm")
    assert asks.holds(asks.VERSION, "the image is built FROM python3.11-slim", "python")
    # a version of something else, or the name with no version near it
    assert not asks.holds(asks.VERSION, "courier is on Go 1.24 now", "postgres")
    assert not asks.holds(asks.VERSION, "image registry.pantry.io/data/spark:3.5.1-iceberg1.5", "python")
    assert not asks.holds(asks.VERSION, "courier is the Go service behind delivery ETAs: HTTP on :8080", "go")
    assert not asks.holds(asks.VERSION, 'service "nessie" depends on "postgres-nessie"', "postgres")
    assert not asks.holds(asks.VERSION, "we use Django.\n\nUpgraded Celery to 5.4 last week", "django")
    assert asks.holds(asks.VERSION, "courier is on Go 1.24 now")  # named nothing: any version


def test_a_digit_inside_a_name_is_not_a_number():
    assert not asks.holds(asks.NUMBER, "connect to redis-feat-01 with client tag adhoc")
    assert not asks.holds(asks.NUMBER, "invalid apiVersion client.authentication.k8s.io/v1alpha1")


def test_a_question_that_asks_for_nothing_is_held_by_any_text():
    assert asks.holds(None, "anything at all")


@pytest.mark.parametrize(
    "text",
    ["a" * 32_000, "1" * 32_000, "1." * 16_000, "一" * 32_000, "which " + "a " * 16_000 + "#",
     "what is the " + "a" * 32_000 + "#", "how much " + "a " * 16_000, "费用" + "的" * 32_000, "地址" * 16_000,
     "a." * 16_000, "/a" * 16_000, "1 a " * 8_000],
)  # fmt: skip
def test_32_kb_of_one_character_is_read_once(text):
    """Every pattern tries a run from its start only: a hook's 32 KB of one letter or digit
    must not take the regex engine down every way of splitting it (each case here would
    take hours with nested repeats)."""
    asks.asked_kind(text)
    asks.version_of(text)
    assert [asks.holds(kind, text) for kind in (asks.MONEY, asks.FREQUENCY, asks.TIME)] == [False] * 3
    asks.holds(asks.ADDRESS, text)
    asks.holds(asks.VERSION, text, text[:2])


def _ranked(*cands, weights=None):
    return [c.id for c in scoring.rank(list(cands), query_cjk=0.0, similar=lambda a, b: 0.0, weights=weights)]


def test_ranking_puts_a_memory_that_holds_the_value_asked_for_first_among_comparably_relevant_ones():
    # "feature_push 每隔多久往 Redis 推一次特征？": the freshness-check note is nearer, the schedule answers
    check = dict(similarity=0.915, keyword=5.0)
    schedule = dict(similarity=0.90, keyword=4.6)
    assert _ranked(Candidate("check", **check), Candidate("schedule", **schedule, holds_value=True))[0] == "schedule"
    assert _ranked(Candidate("check", **check), Candidate("schedule", **schedule))[0] == "check"  # another question


def test_holding_the_value_does_not_lift_a_memory_far_below_the_best():
    best = Candidate("best", similarity=0.90, keyword=8.0)
    holder = Candidate("holder", similarity=0.84, keyword=3.0, holds_value=True)  # under value_floor of the best
    filler = [Candidate(f"f{i}", similarity=0.78 + 0.002 * i, keyword=0.5) for i in range(5)]
    assert _ranked(holder, best, *filler)[:2] == ["best", "holder"]
    assert "value" not in holder.parts
    _ranked(holder, best, *filler, weights=scoring.Weights(value_floor=0.3))
    assert holder.parts["value"] == scoring.Weights().value  # the floor, not the kind, held it back


def test_only_a_kind_few_memories_hold_sets_a_memory_apart():
    # most memories hold some number ("Go 1.24", "3 allocations"): holding one is no evidence for ranking
    assert asks.NUMBER not in asks.TELLING
    # an address sets a memory apart too (23 % hold one), but lifting the ones that hold one puts an
    # unrelated URL among the first hits of a question nothing answers (benchmarks/README.md)
    assert asks.ADDRESS not in asks.TELLING
    assert {asks.MONEY, asks.FREQUENCY, asks.TIME, asks.DURATION} <= asks.TELLING
