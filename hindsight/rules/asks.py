"""What kind of value a question asks for, and whether a text holds one: pure rules, no I/O.

A question that asks how much something costs is answered by a text that names an amount of
money; one that asks for a version, by a text that holds one ("Go 1.24", "SDK 53", "v14": not
just any number — "only one emulator" names no version), of the thing it names when it names one
("Which Postgres version…" is not answered by "courier is on Go 1.24"); one that asks for a count, a port or
a rate, by a text that holds a number; one that asks how often, by a text that says how often
("weekly", "every 15 minutes", 每天); one that asks what time, by a text that holds a time;
one that asks how long something takes or lasts, by a text that holds a span of time ("150
ms", "about 40 minutes", 5 个小时); one that asks which chat channel (哪个频道), by a text that
names one ("#plat-alerts"); one that asks for an address (a URL, a host name, an IP, an
endpoint; 测试服务器地址是什么), by a text that holds one ("test-01.example.cn", "10.30.4.12",
"/healthz"). A memory about the right thing that holds no such value does not answer the
question, however close it is in meaning: "What is the monthly cost of the Redis cluster?" is
not answered by the note on the cluster's shards.

This is evidence for the relevance decision (rules.relevance), weighed there with the rest;
a rule beside it (relevance.lacking: none of the first hits holds one); and, for the kinds
few memories hold (TELLING), evidence for ranking. A question that asks for no such kind
("How do I deploy?", "Who reviews…?", "How long should answers be?") has none: when unsure,
no kind.
"""

from __future__ import annotations

import bisect
import re

from .text import ascii_lower

MONEY, FREQUENCY, TIME, NUMBER = "money", "frequency", "time", "number"
DURATION, VERSION, CHANNEL, ADDRESS = "duration", "version", "channel", "address"
# The kinds few texts hold, so that holding one sets a memory apart from its neighbours (ranking
# reads it: rules.scoring's `value`): of the IDE benchmark's 260 memories, 18 % say how often,
# 12 % how long, 8 % a time of day, none an amount of money — and 58 % hold some number
# (23 % an address).
TELLING = frozenset({MONEY, FREQUENCY, TIME, DURATION, CHANNEL})
# The kinds no memory's date can give: "What time did we deploy yesterday?" is answered by when
# the note was written, "How many MRs did I merge last week?" and "How often did we deploy last
# week?" by counting the notes, "How long did the migration take?" by two of them; how much,
# which version and which address only by a text that says so (rules.relevance.says_nothing).
UNDATED = frozenset({MONEY, VERSION, ADDRESS})

# English: a quantity asked outright, or the noun the question's "which/what" phrase asks for
# ("Which Go version is…", "What is the monthly cost of…"); a noun only mentioned ("How do I
# deploy a new version?", "Which font does basket use for prices?") asks for nothing.
_EN_HOW = (
    # how long something takes or waits, not how long a text should be ("How long
    # should my answers be?", "How long is the retention?" ask for no duration here)
    (
        DURATION,
        re.compile(
            r"(?i)\bhow\s+long\s+(?:ago\b|(?!(?:is|are|was|were|should|must|can|may)\b)(?:[\w'-]+\s+){0,6}?(?:take|takes|took|wait|waits|waited|last|lasts|lasted|run|runs|ran|keep|kept|stay|stays|been|have|has|had)\b)"
        ),
    ),
    (MONEY, re.compile(r"(?i)\bhow\s+much\s+(?:[\w'-]+\s+){0,4}?(?:pay|paid|cost|costs|spend|spent|charge|charged)\b")),
    # "how many times a week": how often; "how many times" alone counts what happened
    (
        FREQUENCY,
        re.compile(
            r"(?i)\bhow\s+(?:often|frequently)\b"
            r"|\bhow\s+many\s+times\s+(?:an?|per|each|every)\s+(?:day|night|week|month|year|hour|minute|sprint|quarter)\b"
        ),
    ),
    # "how many times": a count of what happened, which the memories make up between them
    (NUMBER, re.compile(r"(?i)\bhow\s+(?:many(?!\s+times\b)|much|big|large|high|fast)\b")),
)
_WHAT_IS = re.compile(r"(?i)\b(what|which)['’]s\b")
_AUX = r"(?:is|are|was|were|do|does|did|has|have|had|can|could|should|will|would|'s)"
_EN_WHICH = re.compile(rf"(?i)\b(?:which|what)\s+((?:[\w'./-]+\s+){{0,6}}?){_AUX}\b(.*)")
_EN_AFTER = re.compile(
    r"(?i)^\s*(?:the|its|their|our|his|her|my|your)?\s*((?:[\w'./-]+\s+){0,4}?[\w'./-]+)\s*"
    r"(?:\b(?:of|for|in|on|at|per|that|when|from|to|with)\b|[?.!]|$)"
)
# "time" that asks for none: "What did we do last time?", "the first time it failed"
_NOT_ASKED = re.compile(
    r"(?i)\b(?:last|next|this|that|first|second|third|every|each|same|any|some|one|long|spare|free|full|part|real"
    r"|down|over|lead|run|on|in)\s+times?\b"
)
_EN_NOUNS = {
    VERSION: {"version", "versions"},
    MONEY: {"cost", "costs", "price", "prices", "budget", "bill", "fee", "fees", "salary", "compensation", "spend"},
    TIME: {"time", "hour"},
    FREQUENCY: {"frequency", "interval"},
    CHANNEL: {"channel", "channels"},
    ADDRESS: set("address addresses url urls hostname hostnames ip endpoint endpoints".split()),
    NUMBER: set("port rate ratio percentage size limit number count amount capacity quota timeout retention".split()),
}
# With no verb like "is" or "does" after it, the noun that ends the phrase right after the
# question word, before a verb in -s: "Which Elasticsearch version runs the product search?"
_EN_WHICH_NEAR = re.compile(r"(?i)\b(?:which|what)\s+(?:[\w./-]+\s+){0,2}?([a-z]+)\b(?=\s+(?!of\b|for\b)[a-z]+s\b)")
# Chinese: the question word and what it asks about.
_ZH = (
    # how often before how long: 多久做一次, 多久往 Redis 推一次, 每隔多久, 多久备份, 每天备份几次 ask how often
    (
        FREQUENCY,
        re.compile(
            r"隔多久|(?:多久|多长时间)[^，。？?]{0,12}?一次|多久(?:做|跑|执行|更新|备份|同步|运行)|频率是"
            r"|[每一](?:天|日|晚|周|星期|个月|月|年|小时|季度)[^，。？?]{0,10}?(?:几次|多少次)"
        ),
    ),
    (
        DURATION,
        re.compile(
            r"多久|多长时间|多少(?:天|小时|分钟|秒|周)|(?<![这那哪前近去头后])几(?:天|个小时|小时|分钟|秒|周|个月)(?![前后以之])"
        ),
    ),
    (
        MONEY,
        re.compile(
            r"多少钱|花多少|花了多少|(?:费用|成本|预算|价格|账单|工资|薪水|补贴|报销)[^，。？?]{0,6}?多少|多少(?:补贴|工资|预算|费用|钱)"
        ),
    ),
    (TIME, re.compile(r"几点")),
    # which chat channel: 发到哪个频道, 在什么群里
    (CHANNEL, re.compile(r"(?:哪个|哪一个|什么)(?:频道|群)|频道是")),
    # which address: 测试服务器地址是什么, 哪个域名, IP 是多少 (an IP, not any number); not 地址是怎么配的
    (
        ADDRESS,
        re.compile(
            r"(?:哪个|哪一个|什么)(?:地址|网址|域名|链接)"
            r"|(?:地址|网址|域名|链接|(?<![A-Za-z])(?i:url|ip)(?![A-Za-z]))\s*(?:是(?!怎么|如何|为什么|谁|不是)|在哪|呢)"
        ),
    ),
    # which version: 哪个版本, 版本号, 版本升到了多少
    (VERSION, re.compile(r"(?:哪个|哪一个|哪一|什么)版本|版本号|版本[^，。？?]{0,6}?(?:多少|几|哪)")),
    # 几天前, 几个月前, 这几天, 最近几周 name a time: they ask for no number; 几次, 多少次 a count of what happened;
    # 哪几天, 哪几个 ask which ones (which days, which people), not how many
    (
        NUMBER,
        re.compile(
            r"多少(?!次)|(?<![这那哪前近去头后])几[个台天位条种家年月周小分秒楼层块](?![个月周天小时钟]{0,2}[前后])"
        ),
    ),
)


# Every pattern here reads a text once: a run (of digits, of 一二三, of words) is tried from
# its start only, so 32 KB of one character costs no more than any 32 KB (tests/unit/test_linear_time.py).
# A number of its own, not a digit inside a name ("redis-feat-01", "v1alpha1", "go1.23"):
# "Go 1.24", "SDK 53", "8GB", ":8080", "3 天", "20%". Or a number written out.
_NUMBER = re.compile(
    r"(?<![A-Za-z_\-/.\d])\d+(?:[.,:]\d+)*"
    r"|(?i:\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty|hundred"
    r"|thousand|million|dozen|half|once|twice)\b)"
    r"|(?<![一二两三四五六七八九十百千万半])[一二两三四五六七八九十百千万半]+(?:个|台|次|天|位|条|种|家|年|月|周|小时|分钟|秒|倍|成|层|楼|号|点)"
)
_MONEY = re.compile(
    r"[$€£¥]\s?\d|(?<![\d.,])\d[\d.,]*\s?(?:k|K|m|M)?\s?(?:USD|EUR|SGD|CNY|RMB|GBP|MYR|dollars?|euros?|bucks|元|块|美元|新币|欧元)"
    r"|(?:USD|EUR|SGD|CNY|RMB|GBP|MYR|S\$|US\$)\s?\d|(?<![一二两三四五六七八九十百千万\d])[一二两三四五六七八九十百千万\d]+\s?(?:元|块钱|美元|新币|欧元)"
)
_FREQUENCY = re.compile(
    r"(?i)\b(?:every|each|per|daily|weekly|monthly|yearly|annually|hourly|nightly|quarterly|biweekly|once|twice"
    r"|a\s+(?:day|week|month|year)|cron|schedule[ds]?)\b|@(?:daily|hourly|weekly)|\*/\d"
    r"|每|一次|天天|隔周|双周|定时"
)
_TIME = re.compile(
    r"\d{1,2}(?::\d{2}|\s?(?:am|pm|AM|PM|点|时))|(?i:\b(?:noon|midnight|morning|evening)\b)|中午|上午|下午|晚上|凌晨"
)

# A span of time: "150 ms", "about 40 minutes", "5 个小时", 三天, "an hour", 半天; or when it
# began ("on Nomad since March", 自从…以来), which says how long too.
_DURATION = re.compile(
    r"(?<![A-Za-z_\-/.\d])\d+(?:[.,]\d+)?\s*-?(?i:ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|d|weeks?|wks?|months?|years?|yrs?)\b"
    r"|(?i:\b(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|few|several|half\s+an?|couple\s+of)\s+"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|\b(?:overnight|all\s+day|since|ago)\b)"
    r"|(?<![\d一二两三四五六七八九十百半几])[\d一二两三四五六七八九十百半几]+\s*(?:个)?(?:毫秒|秒|分钟|小时|钟头|天|日|周|星期|个月|年)|半天|半小时|自从|以来"
)
# A version: "1.24", "2.10.3", "v14", "SDK 53", "Android 9", "version 14", 3.5 版; not any number
# ("only one emulator", "3 allocations" answer no "Which version…?").
_VERSION = re.compile(
    r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*|(?i:\bv\d+\b)"
    r"|(?i:\b(?:version|sdk|api\s+level|minsdk|targetsdk|python|go|node|java|ios|android|react|postgres|postgresql)\s?v?\d+)"
    r"|版本\s?v?\d+|(?<![\d.])\d+(?:\.\d+)*\s?版"
)
# A chat channel by its name: "#data-alerts", "#plat-alerts"; not "#123" (an issue), "C#", "# Heading".
_CHANNEL = re.compile(r"(?<![\w&#])#[A-Za-z][\w.-]*")
# An address: a URL ("https://…", "s3://…"), a host name under a top-level domain of the web or of
# a private network ("vault.pantry.internal", "test-01.example.cn", an e-mail's; not "compose.yml"
# nor "spark.sql.catalog"), an IPv4 address, a host with its port ("redis:6379"), a path as an
# endpoint is ("/healthz", "/v1/stores/{id}"), or a street address ("88 Market Street", 科技园路 8 号).
# Each starts only where no such run goes on before it, so a run of 32 KB is tried from its start alone.
_TLDS = (
    "com net org io dev app ai co me cloud info biz cn sg my uk de jp fr in us eu hk tw"
    " internal local localdomain lan home corp intra intranet svc cluster consul test example localhost"
)
_ADDRESS = re.compile(
    r"(?i)(?<![\w+.-])[a-z][a-z0-9+.-]*://[^\s`'\"<>]"
    r"|(?<![\w./-])(?:[a-z0-9][a-z0-9-]*\.)+(?:" + "|".join(_TLDS.split()) + r")(?![\w-]|\.[a-z0-9])"
    r"|(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])"
    r"|\blocalhost\b|(?<![\w.:/-])[a-z][\w-]*:\d{2,5}(?![\w.:])"
    r"|(?<![\w./-])/[a-z][\w.-]*"
    r"|(?<![\w.])\d+[a-z]?\s+(?:[a-z]+\s+){1,3}?(?:street|st|road|rd|avenue|ave|boulevard|blvd|lane|drive|way)\b"
    r"|[路街道巷弄]\s*\d+\s*号"
)
_HOLDS = {  # each kind and what holds one
    MONEY: _MONEY,
    FREQUENCY: _FREQUENCY,
    TIME: _TIME,
    NUMBER: _NUMBER,
    DURATION: _DURATION,
    VERSION: _VERSION,
    CHANNEL: _CHANNEL,
    ADDRESS: _ADDRESS,
}
KINDS = tuple(_HOLDS)


def asked_kind(question: str) -> str | None:
    """The kind of value the question asks for (MONEY, FREQUENCY, TIME, NUMBER, DURATION,
    VERSION, CHANNEL, ADDRESS), or None."""
    question = _WHAT_IS.sub(r"\1 is", question)  # "What's the staging URL?"
    for kind, pattern in (*_EN_HOW, *_ZH):
        if pattern.search(question):
            return kind
    question = _NOT_ASKED.sub(" ", question)
    m = _EN_WHICH.search(question)
    if m is None:
        m = _EN_WHICH_NEAR.search(question)
        return next((kind for kind, nouns in _EN_NOUNS.items() if m and m.group(1).lower() in nouns), None)
    phrase = m.group(1)
    if not phrase.strip():  # "What is the monthly cost of …": the phrase after the verb
        after = _EN_AFTER.search(m.group(2))
        phrase = after.group(1) if after else ""
    words = set(re.findall(r"[a-z]+", phrase.lower()))
    return next((kind for kind, nouns in _EN_NOUNS.items() if words & nouns), None)


def holds(kind: str | None, text: str, of: str | None = None) -> bool:
    """Whether `text` holds a value of `kind` (always, for a question that asks for none); a
    version, of `of` when the question names what it asks the version of (`version_of`)."""
    if kind is None:
        return True
    if kind == VERSION and of:
        return _version_after(of, text)
    return bool(_HOLDS[kind].search(text))


# What a question asks the version of: a name in Latin script — "Which Postgres version …" (the
# word before "version"), "What version of Postgres …", 哪个版本的 Postgres, "courier 的 Go 版本" (the
# nearest such word before 版本 in its clause). A version of something else does not answer it:
# the note that courier is on Go 1.24 says nothing of which Postgres stores courier's orders.
_OF_EN = re.compile(r"(?i)\bversions?\s+of\s+(?:the\s+)?([a-z][\w.+-]*+)")
_OF_ZH = re.compile(r"版本的\s*([A-Za-z][\w.+-]*+)")
_BEFORE_EN = re.compile(r"(?<![\w.+-])([A-Za-z][\w.+-]*+)\s+(?i:versions?)\b")
_BEFORE_ZH = re.compile(r"(?<![\w.+-])([A-Za-z][\w.+-]*+)[^A-Za-z，。？?！!；;\n]{0,12}?版本")
# Not a name but a word for a kind of thing: "What version of the app are we on?" asks for the app's
# version, which a note may state without the word ("basket 3.8.0 submitted to both stores").
_NOT_A_NAME = frozenset(
    "which what whose the a an this that its our their your my his her new old latest current minimum min maximum"
    " max exact same right wrong other next last first app apps application service api library lib package tool"
    " client server model image product release build schema protocol plugin framework language database db os"
    " platform system runtime engine driver version software it we they".split()
)
_VERSION_NEAR = 40  # characters after the name in which its version stands ("Airflow upgraded from 2.8.4")
_NUMBER_RIGHT_AFTER = re.compile(r"[\s:@=_/-]{0,2}v?\d")  # "React 19", "SDK 53", "python3.11", "spark:3.5.1"
_WORD_CHAR = re.compile(r"\w")


def version_of(question: str) -> str | None:
    """The name a question asks the version of (in lower case), or None when it names none (then
    any version answers it: "Which version are we on?")."""
    for pattern in (_OF_ZH, _OF_EN):
        m = pattern.search(question)
        if m and (name := _name(m.group(1))):
            return name
    for pattern in (_BEFORE_EN, _BEFORE_ZH):
        for m in pattern.finditer(question):
            if name := _name(m.group(1)):
                return name
    return None


def _name(word: str) -> str | None:
    word = word.rstrip(".+-").lower()
    return word if len(word) >= 2 and word not in _NOT_A_NAME else None


def _version_after(name: str, text: str) -> bool:
    """Whether `text` names `name` (as a word of its own, a digit may follow: "go1.23") with a
    version right after it or within _VERSION_NEAR characters of the same line: "Go 1.24",
    "eta-gbm version 14", "Airflow upgraded from 2.8.4 to 2.10.3". The name is found with
    str.find and the text's versions are read once: linear, whatever the text ("go go go …")."""
    low = ascii_lower(text)
    versions: list[int] | None = None  # where each version in the text starts, read when first needed
    at = low.find(name)
    while at != -1:
        end = at + len(name)
        if not (at and _WORD_CHAR.match(low, at - 1)) and not (end < len(low) and low[end].isalpha()):
            if _NUMBER_RIGHT_AFTER.match(low, end, end + 4):
                return True
            if versions is None:
                versions = [m.start() for m in _VERSION.finditer(low)]
            near = min(len(low), end + _VERSION_NEAR)
            line = low.find("\n", end, near)
            first = bisect.bisect_left(versions, end)
            if first < len(versions) and versions[first] < (near if line == -1 else line):
                return True
        at = low.find(name, at + 1)
    return False
