"""Writes hook_day.jsonl: a day of an IDE agent's hook events as Claude Code sends them (its
fields: session_id, cwd, prompt, tool_name, tool_input, tool_response, error, source,
transcript_path), in sessions across four repositories, English and Chinese, each event
labelled `keep` (a memory should come of it) or `drop`, with why.

    python benchmarks/data/make_hook_day.py     # rewrites the file (no randomness: same output)

Labelled by what a later session needs, not by what hindsight's rules do: a failed build,
test, install or deploy is a lesson (keep), and so is the fix that followed it; a command
that fails because the agent was looking around (ls of a missing folder, grep finding
nothing, diff showing differences) is not; reads, searches, edits and successful routine
commands are not; a prompt is kept when it states a preference, a standing rule or a
correction, never when it asks or assigns work; the same failure again in a session adds
nothing; a turn's end (Stop) is kept when the session's outcome is new (a failure, a fix, a
decision since the last Stop), dropped when nothing worth a memory happened.
"""

from __future__ import annotations

import json
from pathlib import Path

HOME = "/home/dev/src"
EVENTS: list[dict] = []
_COUNTER = {"tool": 0}


def _add(session: str, project: str, event: str, label: str, why: str, **fields) -> None:
    EVENTS.append(
        {"session_id": session, "cwd": f"{HOME}/{project}", "event": event, "label": label, "why": why, **fields}
    )


def prompt(s, p, text, label="drop", why="asks or assigns work"):
    _add(s, p, "UserPromptSubmit", label, why, prompt=text)


def read(s, p, path):
    _add(s, p, "PostToolUse", "drop", "a read", tool_name="Read", tool_input={"file_path": f"{HOME}/{p}/{path}"},
         tool_response={"type": "text", "file": {"filePath": path, "numLines": 120}})  # fmt: skip


def grep(s, p, pattern):
    _add(s, p, "PostToolUse", "drop", "a search", tool_name="Grep", tool_input={"pattern": pattern},
         tool_response={"mode": "files_with_matches", "numFiles": 3})  # fmt: skip


def edit(s, p, path):
    _add(s, p, "PostToolUse", "drop", "an edit", tool_name="Edit",
         tool_input={"file_path": f"{HOME}/{p}/{path}", "old_string": "a", "new_string": "b"},
         tool_response={"filePath": path, "structuredPatch": []})  # fmt: skip


def ok(s, p, command, stdout="", label="drop", why="a routine command that worked"):
    _add(s, p, "PostToolUse", label, why, tool_name="Bash", tool_input={"command": command, "description": "run"},
         tool_response={"stdout": stdout, "stderr": "", "interrupted": False})  # fmt: skip


def fail(s, p, command, error, code=1, label="keep", why="a lesson: a build, test, install or deploy failed"):
    _add(s, p, "PostToolUseFailure", label, why, tool_name="Bash",
         tool_input={"command": command, "description": "run"}, error=f"Exit code {code}\n{error}")  # fmt: skip


def tool_fail(s, p, tool, arguments, error, label, why):
    _add(s, p, "PostToolUseFailure", label, why, tool_name=tool, tool_input=arguments, error=error)


def stop(s, p, label, why):
    _add(s, p, "Stop", label, why, transcript_path="")


def fix_a_failing_test_courier():
    s, p = "d1-courier-tests", "courier"
    prompt(s, p, "The ETA handler tests are failing since this morning, please fix them")
    read(s, p, "internal/eta/handler.go")
    read(s, p, "internal/eta/handler_test.go")
    grep(s, p, "func TestBatchEta")
    fail(
        s,
        p,
        "go test ./internal/eta/...",
        "--- FAIL: TestBatchEta (0.00s)\n    handler_test.go:88: expected 404, got 0\nFAIL\tgitlab.pantry.io/fleet/courier/internal/eta\t0.412s",
    )
    read(s, p, "internal/eta/batch.go")
    edit(s, p, "internal/eta/batch.go")
    ok(s, p, "go test ./internal/eta/...", "ok  \tgitlab.pantry.io/fleet/courier/internal/eta\t0.398s",
       label="keep", why="the fix of the failure above")  # fmt: skip
    ok(s, p, "git status", "modified: internal/eta/batch.go")
    ok(s, p, "git diff --stat", " internal/eta/batch.go | 4 ++--")
    stop(s, p, "keep", "the session's outcome: a failure and its fix")
    prompt(s, p, "thanks!", why="chit-chat")
    stop(s, p, "drop", "nothing new since the last Stop")


def explore_granary():
    s, p = "d1-granary-explore", "granary"
    prompt(s, p, "Where does the orders_daily DAG read its source from?")
    grep(s, p, "orders_daily")
    tool_fail(s, p, "Bash", {"command": "ls dags/orders"}, "Exit code 2\nls: cannot access 'dags/orders': No such file or directory",
              "drop", "looking around: a folder that is not there")  # fmt: skip
    ok(s, p, "ls dags", "orders_daily.py\nfeature_push.py\neta_train.py")
    read(s, p, "dags/orders_daily.py")
    tool_fail(s, p, "Bash", {"command": "grep -rn pg-orders-ro dags/ | grep -v test"}, "Exit code 1",
              "drop", "grep finding nothing")  # fmt: skip
    tool_fail(s, p, "Read", {"file_path": f"{HOME}/granary/dags/sources.yaml"}, "File does not exist.",
              "drop", "a file that is not there")  # fmt: skip
    read(s, p, "dags/common/sources.py")
    stop(s, p, "drop", "only looked around and answered")


def preferences_and_corrections():
    s, p = "d1-prefs", "courier"
    prompt(s, p, "From now on always run gofmt and go vet before you show me a diff", "keep", "a standing rule")
    prompt(s, p, "Add a /v2/eta handler test for stores without features")
    read(s, p, "internal/eta/handler_test.go")
    edit(s, p, "internal/eta/handler_test.go")
    ok(s, p, "gofmt -l ./internal", "")
    ok(s, p, "go vet ./internal/...", "")
    ok(s, p, "go test ./internal/eta/...", "ok  \tcourier/internal/eta\t0.41s")
    prompt(s, p, "no, I meant the v2 handler, not v1 — put the test in handler_v2_test.go", "keep", "a correction")
    edit(s, p, "internal/eta/handler_v2_test.go")
    ok(s, p, "go test ./internal/eta/...", "ok  \tcourier/internal/eta\t0.43s")
    prompt(s, p, "I prefer table-driven tests with t.Run for anything with more than two cases", "keep", "a preference")
    stop(s, p, "keep", "the session's outcome: what was decided")
    prompt(s, p, "ok", why="chit-chat")
    stop(s, p, "drop", "nothing new since the last Stop")


def chinese_dbt_session():
    s, p = "d1-granary-dbt-zh", "granary"
    prompt(s, p, "帮我看一下 fct_deliveries 的 unique 测试为什么挂了")
    read(s, p, "dbt/models/marts/ops/fct_deliveries.sql")
    fail(s, p, "dbt test -s fct_deliveries --target dev",
         "Failure in test unique_fct_deliveries_delivery_id (models/marts/ops/schema.yml)\n  Got 312 results, configured to fail if != 0\nDone. PASS=4 WARN=0 ERROR=1 SKIP=0 TOTAL=5")  # fmt: skip
    grep(s, p, "delivery_id")
    read(s, p, "dbt/models/staging/stg_deliveries.sql")
    edit(s, p, "dbt/models/staging/stg_deliveries.sql")
    ok(s, p, "dbt test -s fct_deliveries --target dev", "Done. PASS=5 WARN=0 ERROR=0 SKIP=0 TOTAL=5",
       label="keep", why="the fix of the failure above")  # fmt: skip
    prompt(s, p, "以后改 marts 的模型之前先跟我确认一下", "keep", "a standing rule (zh)")
    prompt(s, p, "好的，谢谢", why="chit-chat (zh)")
    stop(s, p, "keep", "the session's outcome: a failure, its fix, a rule")


def deploy_denied():
    s, p = "d1-courier-deploy", "courier"
    prompt(s, p, "Deploy the current branch of courier to staging")
    read(s, p, "deploy/courier.nomad.hcl")
    fail(s, p, "nomad job run -var env=staging deploy/courier.nomad.hcl",
         "Error submitting job: Unexpected response code: 403 (Permission denied)")  # fmt: skip
    fail(s, p, "nomad job run -var env=staging deploy/courier.nomad.hcl",
         "Error submitting job: Unexpected response code: 403 (Permission denied)",
         label="drop", why="the same failure again")  # fmt: skip
    ok(s, p, "nomad acl token self", "AccessorID = 9f2c…\nPolicies = [readonly]")
    prompt(s, p, "My nomad token only has the readonly policy, I'll ask Kwame. Stop here.")
    stop(s, p, "keep", "the session's outcome: an unresolved failure")


def basket_install_fix():
    s, p = "d1-basket-pods", "basket"
    prompt(s, p, "iOS build is broken on my machine, can you look?")
    fail(s, p, "cd ios && pod install",
         "[!] CDN: trunk URL couldn't be downloaded: https://cdn.cocoapods.org/all_pods_versions_2_2_2.txt Response: Timeout was reached")  # fmt: skip
    ok(s, p, "env | grep -i proxy", "HTTPS_PROXY=http://proxy.pantry.internal:3128")
    ok(s, p, "git config --global http.proxy http://proxy.pantry.internal:3128", "",
       why="a step on the way (kept inside the fix)")  # fmt: skip
    ok(s, p, "cd ios && pod install", "Pod installation complete! There are 87 dependencies from the Podfile",
       label="keep", why="the fix of the failure above")  # fmt: skip
    ok(s, p, "npx expo run:ios --device 'iPhone 15'", "Build Succeeded")
    stop(s, p, "keep", "the session's outcome: a failure and its fix")


def infra_plan_lock():
    s, p = "d1-infra-lock", "infra"
    prompt(s, p, "Run a tofu plan for prod and summarise the changes")
    fail(s, p, "cd envs/prod && tofu plan",
         "Error: Error acquiring the state lock\nConditionalCheckFailedException: The conditional request failed\nLock Info:\n  ID: 8b2c41f0\n  Who: kwame@pantry-ci")  # fmt: skip
    prompt(s, p, "Kwame's CI run holds the lock, wait a minute and try again")
    ok(s, p, "sleep 60")
    ok(s, p, "cd envs/prod && tofu plan", "Plan: 2 to add, 1 to change, 0 to destroy.",
       label="keep", why="the fix (waiting for the lock) of the failure above")  # fmt: skip
    prompt(s, p, "不要在本地 apply，提 MR 让 Atlantis 跑", "keep", "a standing rule (zh)")
    stop(s, p, "keep", "the session's outcome: a failure, its fix, a rule")


def chit_chat_only():
    s, p = "d1-chat", "granary"
    for words in ("hi", "good morning", "thanks", "👍", "早上好", "收到"):
        prompt(s, p, words, why="chit-chat")
    stop(s, p, "drop", "nothing happened")


def questions_only():
    s, p = "d1-questions", "basket"
    for words in (
        "What does useFocusEffect do exactly?",
        "Explain the difference between Zustand and Redux in two lines",
        "Which Expo SDK are we on?",
        "Why does the EtaBadge re-render every second?",
        "这个组件为什么要用 React.memo？",
        "Can you summarise the last MR?",
        "Should we use a dataclass here?",
        "How long does an EAS build usually take?",
    ):
        prompt(s, p, words)
    read(s, p, "src/features/eta/EtaBadge.tsx")
    read(s, p, "app.json")
    grep(s, p, "useFocusEffect")
    stop(s, p, "drop", "only questions and reads")


def mcp_and_other_tools():
    s, p = "d1-tools", "infra"
    prompt(s, p, "Open a Jira ticket for the state lock problem")
    tool_fail(s, p, "mcp__jira__create_issue", {"project": "OPS", "summary": "tofu state lock held by CI"},
              "Jira API error 403: You do not have permission to create issues in this project.",
              "keep", "a server's tool failed: a lesson")  # fmt: skip
    tool_fail(s, p, "WebFetch", {"url": "https://opentofu.org/docs/cli/state/locking"}, "Request timed out",
              "drop", "a fetch that timed out: nothing to learn")  # fmt: skip
    tool_fail(s, p, "Edit", {"file_path": f"{HOME}/infra/README.md", "old_string": "x"},
              "String to replace not found in file.", "drop", "an edit whose text moved")  # fmt: skip
    tool_fail(s, p, "Bash", {"command": "diff envs/prod/main.tf envs/staging/main.tf"}, "Exit code 1\n3c3\n< a\n---\n> b",
              "drop", "diff showing differences")  # fmt: skip
    stop(s, p, "keep", "the session's outcome: a failure")


def long_fix_granary():
    s, p = "d1-granary-uv", "granary"
    prompt(s, p, "uv sync fails after the airflow bump, sort it out please")
    fail(s, p, "uv sync",
         "× No solution found when resolving dependencies:\n╰─▶ Because apache-airflow-providers-cncf-kubernetes==8.0.1 depends on kubernetes>=29,<30 and your project depends on kubernetes==30.1.0, we can conclude that your project's requirements are unsatisfiable.")  # fmt: skip
    read(s, p, "pyproject.toml")
    grep(s, p, "kubernetes")
    edit(s, p, "pyproject.toml")
    fail(s, p, "uv sync",
         "× No solution found when resolving dependencies:\n╰─▶ Because apache-airflow==2.10.2 depends on pendulum>=3.0 and your project depends on pendulum==2.1.2, we can conclude that your project's requirements are unsatisfiable.",
         why="a new failure of the same command (another error)")  # fmt: skip
    edit(s, p, "pyproject.toml")
    ok(s, p, "uv sync", "Resolved 212 packages in 3.1s\nInstalled 9 packages", label="keep", why="the fix")
    ok(s, p, "uv run pytest -q tests/dags", "37 passed in 12.4s")
    prompt(s, p, "please keep kubernetes pinned below 30 until the provider catches up", "keep", "a standing rule")
    stop(s, p, "keep", "the session's outcome")


def a_day_of_small_things():
    s, p = "d1-small", "courier"
    prompt(s, p, "rename the field eta_minutes to eta_min in the v2 response")
    grep(s, p, "eta_minutes")
    for path in ("internal/eta/v2.go", "internal/eta/v2_test.go", "api/openapi.yaml"):
        read(s, p, path)
        edit(s, p, path)
    ok(s, p, "go build ./...")
    ok(s, p, "go test ./internal/eta/...", "ok  \tcourier/internal/eta\t0.44s")
    ok(s, p, "git diff --stat", " 3 files changed, 9 insertions(+), 9 deletions(-)")
    prompt(s, p, "looks good")
    stop(s, p, "drop", "a routine change: nothing failed, nothing decided")


def lint_zh():
    s, p = "d1-courier-lint-zh", "courier"
    prompt(s, p, "golangci-lint 升级以后跑不起来了，帮我修一下")
    fail(
        s,
        p,
        "golangci-lint run",
        'Error: can\'t load config: unsupported version of the configuration: ""\nThe configuration file must declare `version: "2"`',
    )
    read(s, p, ".golangci.yml")
    edit(s, p, ".golangci.yml")
    ok(s, p, "golangci-lint run", "0 issues.", label="keep", why="the fix of the failure above")
    prompt(s, p, "别自动 push，我自己来", "keep", "a standing rule (zh)")
    stop(s, p, "keep", "the session's outcome")


def repeated_flaky():
    s, p = "d1-basket-maestro", "basket"
    prompt(s, p, "run the checkout e2e flow")
    fail(s, p, "maestro test .maestro/checkout.yaml", "Element not found: Text matching regex: Place order")
    fail(s, p, "maestro test .maestro/checkout.yaml", "Element not found: Text matching regex: Place order",
         label="drop", why="the same failure again")  # fmt: skip
    ok(s, p, "xcrun simctl spawn booted defaults read -g AppleLanguages", '(\n    "zh-Hans"\n)')
    ok(s, p, "xcrun simctl spawn booted defaults write -g AppleLanguages -array en", "")
    ok(s, p, "maestro test .maestro/checkout.yaml", "Flow Passed: checkout", label="keep", why="the fix")
    prompt(s, p, "Actually, the flows should not depend on the simulator's language — use testIDs, not labels",
           "keep", "a correction that sets a rule")  # fmt: skip
    stop(s, p, "keep", "the session's outcome")


def tasks_without_lessons():
    for n, (p, task, commands) in enumerate(
        [
            ("granary", "add a comment explaining the retry policy in feature_push", ["uv run ruff check dags/"]),
            ("basket", "bump the version to 3.6.0 in app.json", ["yarn tsc --noEmit"]),
            ("infra", "format the terraform files", ["tofu fmt -recursive"]),
            ("courier", "update the README's run instructions", ["go run ./cmd/courier --help"]),
            ("granary", "把 orders_daily 的重试次数改成 3", ["uv run pytest -q tests/dags/test_orders_daily.py"]),
            ("basket", "add a unit test for formatEta", ["yarn jest src/features/eta"]),
        ]
    ):
        s = f"d1-task-{n}"
        prompt(s, p, task)
        read(s, p, "README.md")
        edit(s, p, "README.md")
        for command in commands:
            ok(s, p, command, "ok")
        ok(s, p, "git status", "modified: 1 file")
        stop(s, p, "drop", "a routine task: nothing failed, nothing decided")


def same_failure_next_session():
    s, p = "d1-courier-tests-again", "courier"
    prompt(s, p, "The ETA handler tests fail again after the rebase")
    fail(s, p, "go test ./internal/eta/...",
         "--- FAIL: TestBatchEta (0.00s)\n    handler_test.go:88: expected 404, got 0\nFAIL\tgitlab.pantry.io/fleet/courier/internal/eta\t0.412s",
         label="drop", why="the same failure as an earlier session: already remembered")  # fmt: skip
    read(s, p, "internal/eta/batch.go")
    edit(s, p, "internal/eta/batch.go")
    ok(s, p, "go test ./internal/eta/...", "ok  \tgitlab.pantry.io/fleet/courier/internal/eta\t0.398s",
       label="drop", why="the same fix as an earlier session: already remembered")  # fmt: skip
    stop(s, p, "keep", "the session's outcome (its own session)")


def docker_login():
    s, p = "d1-granary-docker", "granary"
    prompt(s, p, "Pull the spark image and run the job locally")
    fail(
        s,
        p,
        "docker pull registry.pantry.io/data/spark:3.5.1-iceberg1.5",
        "Error response from daemon: unauthorized: HTTP Basic: Access denied",
    )
    ok(s, p, "docker login registry.pantry.io -u ethan --password-stdin < ~/.config/gitlab/token", "Login Succeeded",
       why="a step on the way (kept inside the fix)")  # fmt: skip
    ok(s, p, "docker pull registry.pantry.io/data/spark:3.5.1-iceberg1.5", "Status: Downloaded newer image",
       label="keep", why="the fix of the failure above")  # fmt: skip
    ok(s, p, "docker run --rm registry.pantry.io/data/spark:3.5.1-iceberg1.5 spark-submit --version", "version 3.5.1")
    stop(s, p, "keep", "the session's outcome")


def kubeconfig_zh():
    s, p = "d1-granary-kube-zh", "granary"
    prompt(s, p, "看看 spark-jobs 里有哪些 pod 在跑")
    fail(
        s,
        p,
        "kubectl get pods -n spark-jobs",
        'error: exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"',
    )
    ok(s, p, "aws eks update-kubeconfig --name data-eks-prod --profile data-prod", "Updated context arn:aws:eks:…",
       why="a step on the way (kept inside the fix)")  # fmt: skip
    ok(s, p, "kubectl get pods -n spark-jobs", "NAME  READY  STATUS\norders-daily-driver  1/1  Running",
       label="keep", why="the fix of the failure above")  # fmt: skip
    prompt(s, p, "不对，我要看的是 airflow 命名空间", "keep", "a correction (zh)")
    ok(s, p, "kubectl get pods -n airflow", "NAME  READY  STATUS\nscheduler-0  1/1  Running")
    stop(s, p, "keep", "the session's outcome")


def basket_lockfile():
    s, p = "d1-basket-yarn", "basket"
    prompt(s, p, "CI fails on yarn install, can you reproduce?")
    fail(
        s,
        p,
        "yarn install --immutable",
        "YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.",
    )
    tool_fail(s, p, "Bash", {"command": "ls package-lock.json"}, "Exit code 0", "drop", "looking around")
    ok(s, p, "rm package-lock.json", "", why="a step on the way (kept inside the fix)")
    ok(s, p, "yarn install", "YN0000: Done in 14s", why="a step on the way (kept inside the fix)")
    ok(s, p, "yarn install --immutable", "YN0000: Done in 3s", label="keep", why="the fix of the failure above")
    prompt(s, p, "we use yarn in basket, never npm install there", "keep", "a standing rule")
    stop(s, p, "keep", "the session's outcome")


def port_in_use():
    s, p = "d1-courier-port", "courier"
    prompt(s, p, "start courier locally so I can hit /v2/eta")
    fail(s, p, "go run ./cmd/courier", "listen tcp :8080: bind: address already in use")
    ok(s, p, "lsof -i :8080", "courier 4123 ethan  7u  IPv6 TCP *:http-alt (LISTEN)")
    ok(s, p, "kill 4123", "", why="a step on the way (kept inside the fix)")
    ok(s, p, "go run ./cmd/courier", "listening on :8080", label="keep", why="the fix of the failure above")
    ok(s, p, "curl -s localhost:8080/v2/eta?store=12", '{"eta_min":18,"eta_max":27}')
    stop(s, p, "keep", "the session's outcome")


def reading_marathon():
    s, p = "d1-granary-read", "granary"
    prompt(s, p, "Give me an overview of how the feature_push DAG works end to end")
    for path in ("dags/feature_push.py", "dags/common/redis.py", "dags/common/trino.py", "dbt/models/marts/courier_features.sql",
                 "docs/feature_push.md", "tests/dags/test_feature_push.py", "dags/common/alerts.py", "helm/values.yaml"):  # fmt: skip
        read(s, p, path)
    for pattern in ("feat:store", "courier_features", "TTL", "freshness", "slack_data"):
        grep(s, p, pattern)
    ok(s, p, "git log --oneline -5 -- dags/feature_push.py", "a1b2c3 add freshness check")
    stop(s, p, "drop", "only looked around and answered")


def zh_questions_and_prefs():
    s, p = "d1-zh-prefs", "granary"
    prompt(s, p, "dbt 的 incremental 模型怎么全量重建？")
    prompt(s, p, "给陈昊的排查记录以后都用中文写", "keep", "a standing rule (zh)")
    prompt(s, p, "这个查询为什么这么慢？")
    prompt(s, p, "我比较喜欢先看 EXPLAIN ANALYZE 的结果再改 SQL", "keep", "a preference (zh)")
    prompt(s, p, "谢谢", why="chit-chat (zh)")
    read(s, p, "dbt/models/marts/finance/fct_revenue.sql")
    ok(s, p, "uv run dbt compile -s fct_revenue --target dev", "Compiled node 'fct_revenue'")
    stop(s, p, "keep", "the session's outcome: what was decided")


def second_day_tasks():
    for n, (p, task) in enumerate(
        [
            ("courier", "add request ids to the slog access log"),
            ("granary", "add a freshness alert for raw.app_events"),
            ("basket", "hide the ETA range behind the basket_eta_range gate"),
            ("infra", "add the pantry-dbt-artifacts bucket to the staging env"),
            ("granary", "给 fct_orders 加一个 not_null 测试"),
            ("courier", "bump the BatchEta timeout test to 150 ms"),
            ("basket", "translate the checkout button label to Chinese"),
            ("infra", "document how to run atlantis plan for staging"),
        ]
    ):
        s = f"d2-task-{n}"
        prompt(s, p, task)
        grep(s, p, task.split()[-1])
        read(s, p, "README.md")
        read(s, p, "src/main")
        edit(s, p, "src/main")
        ok(s, p, "make check", "ok")
        stop(s, p, "drop", "a routine task: nothing failed, nothing decided")


def android_build_zh():
    s, p = "d2-basket-android-zh", "basket"
    prompt(s, p, "赵敏说 Android 打包失败了，帮忙看一下")
    fail(s, p, "cd android && ./gradlew assembleRelease",
         "Execution failed for task ':app:checkReleaseAarMetadata'.\n> Dependency 'androidx.core:core:1.15.0' requires libraries and applications that depend on it to compile against version 35 or later of the Android APIs.")  # fmt: skip
    read(s, p, "android/app/build.gradle")
    read(s, p, "app.json")
    edit(s, p, "app.json")
    ok(s, p, "npx expo prebuild --clean", "✔ Finished prebuild", why="a step on the way (kept inside the fix)")
    ok(s, p, "cd android && ./gradlew assembleRelease", "BUILD SUCCESSFUL in 3m 12s", label="keep", why="the fix")
    prompt(s, p, "回复赵敏的时候用中文", "keep", "a standing rule (zh)")
    stop(s, p, "keep", "the session's outcome")


def compaction_day():
    s, p = "d2-granary-long", "granary"
    prompt(s, p, "Port the remaining dbt models to dbt-trino")
    for model in ("int_deliveries", "int_orders", "fct_orders", "fct_deliveries", "dim_stores"):
        read(s, p, f"dbt/models/{model}.sql")
        edit(s, p, f"dbt/models/{model}.sql")
        ok(s, p, f"uv run dbt build -s {model} --target dev", "Completed successfully")
    fail(s, p, "uv run dbt build -s int_riders --target dev",
         'TrinoUserError(type=USER_ERROR, name=FUNCTION_NOT_FOUND, message="line 14:9: Function \'datediff\' not registered")')  # fmt: skip
    edit(s, p, "dbt/models/int_riders.sql")
    ok(s, p, "uv run dbt build -s int_riders --target dev", "Completed successfully", label="keep", why="the fix")
    _add(s, p, "PreCompact", "keep", "the session's outcome before the context is compacted", source="auto",
         transcript_path="")  # fmt: skip
    prompt(s, p, "ok keep going with the marts")
    read(s, p, "dbt/models/marts/fct_revenue.sql")
    edit(s, p, "dbt/models/marts/fct_revenue.sql")
    ok(s, p, "uv run dbt build -s fct_revenue --target dev", "Completed successfully")
    stop(s, p, "drop", "nothing new since the compaction's outcome")


def main() -> None:
    for scenario in (
        fix_a_failing_test_courier, explore_granary, preferences_and_corrections, chinese_dbt_session, deploy_denied,
        basket_install_fix, infra_plan_lock, chit_chat_only, questions_only, mcp_and_other_tools, long_fix_granary,
        a_day_of_small_things, lint_zh, repeated_flaky, tasks_without_lessons, same_failure_next_session, docker_login,
        kubeconfig_zh, basket_lockfile, port_in_use, reading_marathon, zh_questions_and_prefs, second_day_tasks,
        android_build_zh, compaction_day,
    ):  # fmt: skip
        scenario()
    for n, event in enumerate(EVENTS, 1):
        event["n"] = n
    out = Path(__file__).with_name("hook_day.jsonl")
    out.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in EVENTS), encoding="utf-8")
    keep = sum(e["label"] == "keep" for e in EVENTS)
    print(f"{out}: {len(EVENTS)} events in {len({e['session_id'] for e in EVENTS})} sessions, {keep} to keep")


if __name__ == "__main__":
    main()
