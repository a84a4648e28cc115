"""A deterministic mix of English and Chinese agent memories for speed benchmarks."""

from __future__ import annotations

import random

TOOLS = ["pip", "git", "docker", "pytest", "npm", "kubectl", "psql", "curl", "terraform", "make"]
LIBS = ["polars", "pandas", "numpy", "fastapi", "django", "react", "pydantic", "sqlalchemy", "httpx", "asyncpg"]
ERRORS = [
    "ImportError",
    "ERR_SSL_PROTOCOL_ERROR",
    "TimeoutError",
    "ECONNREFUSED",
    "OOMKilled",
    "PermissionError",
    "ModuleNotFoundError",
    "SyntaxError",
    "KeyError",
    "exit code 137",
]
EN = [
    "The user prefers {lib} over {lib2} for data work",
    "{tool} failed with {err} while building the {lib} service; fixed by pinning the version",
    "Deploying with {tool} needs the staging credentials loaded first",
    "Running {tool} inside the container hit {err}; the cause was a missing volume mount",
    "Decided to migrate the reporting job from {lib2} to {lib} next sprint",
    "The test suite for {lib} takes about {n} minutes on CI",
    "User asked to always run {tool} with --dry-run before applying changes",
    "{err} again in the nightly job; restarting the worker cleared it",
    "Meeting notes: the team agreed to keep {lib} at version {n}.x until March",
    "The {lib} upgrade broke {n} tests because of a renamed keyword argument",
]
ZH = [
    "用户更喜欢用{lib}而不是{lib2}处理数据",
    "{tool}执行时出现{err}，原因是代理配置错误，已经修复",
    "部署前必须先用{tool}检查配置，否则会失败",
    "上周{lib}升级后有{n}个测试失败",
    "用户要求所有代码注释用中文书写",
    "数据库备份每天凌晨{n}点运行，{tool}负责同步",
    "{err}再次出现在夜间任务中，重启后恢复正常",
    "团队决定下个月把报表服务从{lib2}迁移到{lib}",
]


def memories(n: int, seed: int = 7, chinese_share: float = 0.3) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        template = rng.choice(ZH if rng.random() < chinese_share else EN)
        lib, lib2 = rng.sample(LIBS, 2)
        out.append(
            template.format(lib=lib, lib2=lib2, tool=rng.choice(TOOLS), err=rng.choice(ERRORS), n=rng.randint(2, 40))
            + f" (#{i})"
        )
    return out


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    en = [
        "which dataframe library does the user prefer?",
        "how did we fix {err} last time?",
        "what went wrong with {tool}?",
        "when was {lib} upgraded?",
        "deployment checklist for {tool}",
    ]
    zh = ["用户喜欢哪个数据处理库？", "{tool}出错怎么解决？", "上周{lib}升级出了什么问题", "代码注释用什么语言"]
    out = []
    for _ in range(n):
        template = rng.choice(zh if rng.random() < 0.3 else en)
        out.append(template.format(err=rng.choice(ERRORS), tool=rng.choice(TOOLS), lib=rng.choice(LIBS)))
    return out
