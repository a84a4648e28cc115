"""Writes hook_prompts.jsonl: prompts as a developer types them into an IDE agent (tasks more
often than questions), in the world of the IDE benchmark's memories (../shared/bench/
idebench_dev: Ethan's repositories courier, granary, basket, infra), each with the repository
open and the memories that bear on it (`gold`, the benchmark's ids), or none.

    python benchmarks/data/make_hook_prompts.py

`relevant`: a memory would change what the agent does (the command that worked, the rule to
follow, the fact it needs); the block should hold one of `gold`. `none`: nothing remembered
bears on it (general programming, other systems, small talk about the world); the block
should be empty. `set`: every other prompt of each kind (`fit`) may be used to tune the hook's
relevance decision, the others (`check`) only to measure it. Written before any was run; four
prompts were rewritten after the first run because their only gold memories had expired by the
benchmark's date (importance 2, over 30 days old), which no recall may return.
"""

from __future__ import annotations

import json
from pathlib import Path

RELEVANT = [  # (project, lang, prompt, gold)
    ("courier", "en", "Deploy my courier branch to staging", ["n035", "z031"]),
    ("courier", "en", "vault login fails with address already in use on 8250, fix it", ["i019"]),
    ("infra", "en", "tofu plan in prod says it can't acquire the state lock", ["i009"]),
    ("granary", "en", "Run dbt build for fct_orders against prod so I can check the numbers", ["p028", "a039"]),
    ("granary", "en", "Set up linting for the new dags package", ["p002"]),
    ("courier", "en", "Write the commit message for these changes", ["p006", "z035", "p024"]),
    ("granary", "en", "This refactor is getting big, split it up before the MR", ["p022"]),
    ("basket", "en", "Merge the feature branch for the ETA range into main", ["p027"]),
    ("granary", "en", "docker pull of the spark image says unauthorized", ["i026"]),
    ("granary", "en", "aws s3 ls on the dev lake says my token expired", ["i020"]),
    ("granary", "en", "kubectl get pods -n spark-jobs fails with invalid apiVersion", ["a025"]),
    ("courier", "en", "The store list endpoint returns CROSSSLOT errors since the redis move", ["n030"]),
    ("granary", "en", "feature_push is failing with MOVED errors when writing to redis", ["z015", "z029"]),
    ("basket", "en", "Make an internal test build of basket for Android", ["b004"]),
    ("basket", "en", "pod install times out downloading the CDN trunk file", ["b006"]),
    ("basket", "en", "Metro can't resolve @pantry/ui-tokens, fix the build", ["b007"]),
    ("basket", "en", "CI fails on yarn install --immutable, the lockfile would be modified", ["b018"]),
    ("basket", "en", "The Maestro checkout flow can't find the Place order button on CI", ["b020"]),
    ("basket", "en", "Run the Maestro flows on the Android emulator", ["b035"]),
    ("basket", "en", "Upgrade basket to the next Expo SDK", ["z025"]),
    ("basket", "en", "Where do I look at Android crash reports now?", ["b021", "z023"]),
    ("basket", "en", "Add a feature gate for the new checkout banner", ["b036", "b017"]),
    ("courier", "en", "go vet fails in CI with non-constant format string", ["n034"]),
    ("courier", "en", "golangci-lint can't load its config after the upgrade", ["n010", "z030"]),
    ("courier", "en", "nomad job run for staging returns 403 permission denied", ["n011"]),
    ("courier", "en", "Profile courier on staging, the p99 went up", ["n017"]),
    ("courier", "en", "Add a config option for the redis address", ["n019"]),
    ("courier", "en", "Which redis does courier read the store features from now?", ["n029", "z029"]),
    ("granary", "en", "Backfill the finance marts for June 2nd", ["a061", "a031"]),
    ("granary", "en", "Who should review my change to models/marts/finance?", ["p014", "z019"]),
    ("granary", "en", "Add a new staging model for the rider shifts source", ["z001", "p017"]),
    ("granary", "en", "Add httpx as a dependency of granary", ["p026", "p030"]),
    ("granary", "en", "Write a new DAG that snapshots the stores table daily", ["p018", "p021"]),
    ("granary", "en", "My notebook queries to trino are queued behind Metabase", ["z010", "a036", "a056"]),
    ("granary", "en", "Backfill raw.orders for last quarter without touching main", ["a047"]),
    ("granary", "en", "How do I see the logs of a task pod that already finished?", ["a034"]),
    ("granary", "en", "Rebuild fct_orders from scratch", ["a027"]),
    ("infra", "en", "ssh into nomad-client-12 to check the disk", ["i017", "z034"]),
    ("infra", "en", "Apply the staging bucket change", ["z032", "p035"]),
    ("courier", "en", "The new eta-gbm version is in Production but courier still serves the old one", ["z016"]),
    ("granary", "zh", "帮我把 fct_orders 全量重建一下", ["a027"]),
    ("granary", "zh", "feature_push 写 redis 报 MOVED 错误", ["z015", "z029"]),
    ("courier", "zh", "courier 怎么发到 staging？", ["n035", "z031"]),
    ("basket", "zh", "Android 崩溃现在去哪里看？", ["z023", "b021"]),
    ("basket", "zh", "帮我升级一下 Expo SDK", ["z025"]),
    ("granary", "zh", "给陈昊写一下这次数据问题的排查记录", ["p029"]),
    ("granary", "zh", "notebook 连 trino 要注意什么？", ["z010", "a036"]),
    ("infra", "zh", "本地 apply 一下 staging 的改动", ["z032", "p035"]),
    ("granary", "zh", "算 GMV 用哪个字段？", ["z012"]),
    ("granary", "zh", "月初可以改 finance marts 的模型吗？", ["a061"]),
    ("granary", "zh", "Metabase 上 fct_deliveries 的报表很慢", ["a042"]),
    ("courier", "zh", "Go 的日志现在用什么库？", ["p004", "n024"]),
    ("granary", "en", "Summarise the 14 May events_ingest incident for the Shenzhen team", ["p036", "a055", "a054"]),
    ("granary", "zh", "dbt 的命名规范是什么？", ["z001"]),
    ("courier", "en", "Load test courier before the lunch peak", ["n032"]),
    ("granary", "en", "After the airflow upgrade six DAGs show import errors", ["a052"]),
]

NONE = [  # (project, lang, prompt)
    ("courier", "en", "Write a regex that validates IPv4 addresses"),
    ("granary", "en", "Explain the difference between a mutex and a semaphore"),
    ("basket", "en", "How do I center a div with flexbox?"),
    ("infra", "en", "What is the capital of Australia?"),
    ("courier", "en", "Write a haiku about autumn rain"),
    ("granary", "en", "What's the time complexity of heapq.nsmallest?"),
    ("basket", "en", "Explain Rust lifetimes with a short example"),
    ("infra", "en", "How does TCP slow start work?"),
    ("courier", "en", "Translate 'good morning' into French and Spanish"),
    ("granary", "en", "What does HTTP status 418 mean?"),
    ("basket", "en", "Write a bash one-liner that counts lines in all .txt files"),
    ("infra", "en", "Recommend a book about distributed systems"),
    ("courier", "en", "Create a .gitignore for a Unity project"),
    ("granary", "en", "Show me a Flask hello world"),
    ("basket", "en", "What is a monad, in plain words?"),
    ("infra", "en", "Convert 72 Fahrenheit to Celsius"),
    ("courier", "en", "Who won the 2018 football World Cup?"),
    ("granary", "en", "Explain how a bloom filter works"),
    ("basket", "en", "Write a function that reverses a linked list in Java"),
    ("infra", "en", "What's the difference between UDP and TCP?"),
    ("courier", "en", "Set up a GraphQL server with Apollo"),
    ("granary", "en", "How do I rotate the TLS certificates of the Kafka brokers?"),
    ("basket", "en", "Who approves changes to the App Store listing screenshots?"),
    ("infra", "en", "How much does the company spend on AWS per month?"),
    ("courier", "en", "Which Elasticsearch version runs the product search?"),
    ("granary", "en", "How do I request a new laptop?"),
    ("basket", "en", "Where is the Figma file for the loyalty redesign?"),
    ("infra", "en", "What is the on-call compensation per weekend?"),
    ("courier", "en", "Generate a random password of 20 characters"),
    ("granary", "en", "Summarise the plot of Hamlet in three sentences"),
    ("basket", "en", "Add dark mode to the settings screen"),
    ("infra", "en", "Write a Dockerfile for a Node 22 Express app"),
    ("courier", "en", "Implement an LRU cache in Go"),
    ("granary", "en", "Write a Python function that flattens nested lists"),
    ("basket", "en", "Make the profile avatar round"),
    ("infra", "en", "Explain what a CIDR block is"),
    ("courier", "zh", "帮我写一个快速排序"),
    ("granary", "zh", "解释一下 Rust 的所有权"),
    ("basket", "zh", "用 Python 读 CSV 最快的方法是什么？"),
    ("infra", "zh", "新加坡办公室的 Wi-Fi 密码是多少？"),
    ("courier", "zh", "公司的年假有几天？"),
    ("granary", "zh", "报销发票要交给谁？"),
    ("basket", "zh", "怎么用 CSS 画一个三角形？"),
    ("infra", "zh", "给我讲个笑话"),
    ("courier", "zh", "二分查找的时间复杂度是多少？"),
    ("granary", "zh", "推荐系统的模型多久更新一次？"),
    ("basket", "zh", "App 的启动页广告是谁负责的？"),
    ("infra", "zh", "深圳的会议室怎么预订？"),
    ("courier", "zh", "优惠券服务是用什么语言写的？"),
    ("granary", "zh", "写一首关于秋天的诗"),
    ("basket", "zh", "React 里 useMemo 和 useCallback 有什么区别？"),
    ("infra", "zh", "什么是零信任网络？"),
    ("courier", "en", "Rename the variable tmp to buffer in this file"),
    ("granary", "en", "Fix the typo in the docstring of parse_date"),
    ("basket", "en", "What's a good name for a grey cat?"),
    ("infra", "en", "Explain the CAP theorem"),
]


# Prompts that name a time, written to hook_time_prompts.jsonl (2026-12-03, before the hook's
# rule for them was run): the benchmark's quarter ends on Monday 1 June 2026 (its DEFAULT_NOW,
# which hooks_replay.py moves to now), so "last week" is 25-31 May, "on Friday" 29 May. Nothing
# was written on 30 or 31 May; no SOC 2 audit, EKS upgrade or stand-up was ever stored.
TIME_RELEVANT = [  # (project, lang, prompt, gold)
    ("basket", "en", "What did we get done on basket last week?", ["b034", "z027"]),
    ("basket", "en", "What did I finish on Friday?", ["z027", "i033"]),
    ("courier", "zh", "上周 courier 有哪些变动？", ["n038", "n042"]),
    ("granary", "en", "Remind me what I worked on last Thursday", ["a062"]),
    ("granary", "zh", "上周值班遗留了哪些事？", ["z020", "a062"]),
    ("infra", "en", "What did Kwame propose at last week's sync?", ["i033"]),
    ("courier", "en", "What did we change in courier's config last week?", ["n042"]),
    ("basket", "zh", "上周 basket 的 Android 埋点问题是怎么修的？", ["b034"]),
]
TIME_NONE = [  # (project, lang, prompt)
    ("courier", "en", "What did we do yesterday?"),
    ("granary", "en", "What is our SOC 2 audit date this year?"),
    ("basket", "zh", "今年的安全审计是哪一天？"),
    ("infra", "en", "Which Kubernetes version did we upgrade the EKS cluster to last week?"),
    ("courier", "zh", "昨天的站会上说了什么？"),
]


def _rows(relevant: list, none: list) -> list[dict]:
    rows = []
    for kind, items in (("relevant", relevant), ("none", [(*i, []) for i in none])):
        for n, (project, lang, prompt, gold) in enumerate(items):
            rows.append({"kind": kind, "set": "fit" if n % 2 == 0 else "check", "project": project, "lang": lang,
                         "prompt": prompt, "gold": gold})  # fmt: skip
    return rows


def main() -> None:
    for name, relevant, none in (
        ("hook_prompts.jsonl", RELEVANT, NONE),
        ("hook_time_prompts.jsonl", TIME_RELEVANT, TIME_NONE),
    ):
        rows = _rows(relevant, none)
        out = Path(__file__).with_name(name)
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"{out}: {len(rows)} prompts, {len(relevant)} with a relevant memory, {len(none)} without")


if __name__ == "__main__":
    main()
