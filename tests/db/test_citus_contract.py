"""Citus-ready, by test (docs/scale-out.md). Citus is not installed here, so the contract it
needs is checked on the migrated schema and on the statements in sql/queries:

* every table is classified: DISTRIBUTED by agent_id (colocated with memories), REFERENCE
  (small, shared, a copy on every node) or LOCAL to the coordinator; a new table must be
  added to one of the lists;
* every primary key and unique index of a distributed table includes agent_id (Citus
  enforces uniqueness per shard), every foreign key between distributed tables pairs
  agent_id with agent_id, and none uses an action Citus refuses;
* every statement filters each distributed table it touches by agent_id, so it runs on the
  one shard of that agent; the exceptions are listed below with the reason each is fine.

Known violations are listed too (with the fix proposed in docs/scale-out.md): the test
passes with them and fails on anything new, and on an entry that no longer applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import pytest

from hindsight.data import queries

REPO = Path(__file__).resolve().parents[2]

# ---- the classification ---------------------------------------------------------------------

DISTRIBUTED = {  # create_distributed_table(name, 'agent_id', colocate_with => 'memories')
    "memories": "the memories themselves",
    "memory_state": "decay and access counters, one row per memory",
    "memory_history": "every change of a memory, written by triggers",
    "memory_terms": "keyword postings of a memory (BM25)",
    "term_stats": "per agent and word: document frequency",
    "agent_stats": "per agent: memory count and total length",
    "memory_tools": "which memories used which tool",
    "project_roots": "the root folders an agent's IDE declared and the project each maps to",
    "memories_archive": "expired and long-superseded memories",
    "hook_sessions": "per agent and IDE session: what its lifecycle hooks did",
    "hook_shown": "per agent and IDE session: each memory a prompt's hook showed",
}
REFERENCE = {  # create_reference_table(name): one row or a few, read on every node
    "hindsight_embedder": "one row: which embedder wrote the vectors; read at startup",
    "hindsight_agent_roles": "role -> agents; read by the row-level security policy of every shard",
}
LOCAL = {  # plain tables of the coordinator: no agent_id, never joined with agents' rows
    "alembic_version": "the schema revision; migrations run on the coordinator",
    "maintenance_runs": "the maintenance job's log; the job is scheduled on the coordinator",
    "reembed_jobs": "hindsight reembed's progress (created by reembed_prepare, not by a migration)",
    "hindsight_tokens": "the HTTP transport's token hashes, looked up by hash on every request; never joined",
}
NOT_FROM_MIGRATIONS = {"reembed_jobs"}

# Schema objects Citus refuses today, with the fix proposed in docs/scale-out.md.
KNOWN_SCHEMA_VIOLATIONS: dict[str, str] = {}  # (0008 made the last one, a SET NULL key, NO ACTION)

# ---- the statements -------------------------------------------------------------------------

# The hot paths are the statements of the read and write paths (every statement the code in
# these packages names) and the per-agent statements of the maintenance job and the CLI.
HOT_PATH_PACKAGES = ("recall", "store")
PER_AGENT_UPKEEP = (
    "consolidation_candidates",
    "mark_consolidated",
    "archived_memory",
    "restore_memory",
    "restore_state_fresh",
    "forget_archived",
    "memory_decay",
    "resolve_id_prefix",
    "show_archived",
)

SHARED_READS = {  # reference reads: the agent's rows OR the small set every agent may read
    "get_memory": "one memory by id, the agent's own or one any agent shared (agent_id = $1 OR shared)",
    "get_sealed": "the sealed original of a memory the agent may read: its own or a shared one",
    "list_memories": "with include_shared, the shared memories of every agent too (a branch of their own)",
    "channel_shared_keyword": "full-text matches among other agents' shared memories (shared AND agent_id <> $1)",
    "recall_vector": "the vector channel: the agent's memories, and with $2 other agents' shared ones",
    "recall_vector_hinted": "recall_vector with hints: its window reads the agent's rows and ($2) shared ones apart",
    "recall_rows": "the candidates' rows by key: the agent's memories OR ($2 AND shared)",
}
CROSS_AGENT = {  # run by the operator or the scheduler on the coordinator: multi-shard by design
    "decay_pages": "nightly decay of every agent by heap pages of memory_state: a multi-shard UPDATE",
    "decay_preview": "maintain --dry-run: what decay would change, counted over every agent",
    "archive_batch": "archives expired/superseded memories of every agent; needs a per-agent form on Citus",
    "archive_preview": "maintain --dry-run: what archive would move, counted over every agent",
    "counts": "the maintenance run's reconciliation: live and archived rows of all agents",
    "agents_with_episodes": "which agents consolidation visits (each is then consolidated per agent)",
    "stats_by_state": "hindsight stats and the UI overview: one agent or all ($3 IS NULL OR agent_id = $3)",
    "stats_archived": "hindsight stats and the UI overview: one agent or all",
    "stats_decay_histogram": "hindsight stats and the UI overview: one agent or all",
    "ui_agents": "the UI's agent switcher: the agents that have memories",
    "memories_exist": "startup: whether any memory exists at all (the embedder guard)",
    "reembed_counts": "hindsight reembed: progress over every agent",
    "hook_forget_sessions": "nightly: forget every agent's hook sessions not seen for 30 days (a multi-shard DELETE)",
    "reembed_batch": "hindsight reembed: the next memories of any agent, in key order",
    "reembed_store": "hindsight reembed: new vectors for a batch that spans agents (joined on agent_id)",
    "agent_row_counts": "the maintenance job: which agents are large enough for a vector index of their own",
    "agent_rows_total": "the maintenance job: the table's size, for each large agent's share of it",
}
SCHEMA_CHANGES = {  # DDL: run on the coordinator, which propagates it to every shard
    "reembed_prepare": "the shadow column and its trigger (triggers need citus.enable_unsafe_triggers)",
    "reembed_index": "CREATE INDEX CONCURRENTLY on the shadow column",
    "reembed_lock": "the switch's table lock",
    "reembed_switch": "drop the old column, rename the new one",
    "embedding_set_dimension": "re-declare the vector dimension of an empty table",
}
KNOWN_STATEMENT_VIOLATIONS: dict[str, str] = {}  # per-agent statements that do not tell Citus the agent everywhere
EXCEPTIONS = {**SHARED_READS, **CROSS_AGENT, **SCHEMA_CHANGES, **KNOWN_STATEMENT_VIOLATIONS}


# ---- reading the schema ---------------------------------------------------------------------


async def _fetch(url: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(sql)
    finally:
        await conn.close()


TABLES = """
SELECT c.relname FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
"""

UNIQUE_INDEXES = """
SELECT t.relname AS table_name, i.relname AS index_name, x.indisprimary AS primary_key,
       pg_get_indexdef(x.indexrelid) AS definition,
       ARRAY(SELECT a.attname::text
             FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
             WHERE k.n <= x.indnkeyatts ORDER BY k.n) AS key_columns
FROM pg_index x
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_class i ON i.oid = x.indexrelid
WHERE t.relnamespace = 'public'::regnamespace AND (x.indisunique OR x.indisexclusion)
"""

FOREIGN_KEYS = """
SELECT c.conname, t.relname AS child, p.relname AS parent, c.confdeltype::text, c.confupdtype::text,
       ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
       ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS parent_columns
FROM pg_constraint c
JOIN pg_class t ON t.oid = c.conrelid
JOIN pg_class p ON p.oid = c.confrelid
WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
"""

DISTRIBUTION_COLUMNS = """
SELECT c.relname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'agent_id' AND NOT a.attisdropped
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
"""


def test_the_lists_do_not_overlap():
    names = [*DISTRIBUTED, *REFERENCE, *LOCAL]
    assert len(names) == len(set(names))


async def test_every_table_is_distributed_reference_or_local(db_url):
    """A table in none of the lists fails here: decide how it scales out (and keep its keys)."""
    tables = {r["relname"] for r in await _fetch(db_url, TABLES)}
    classified = set(DISTRIBUTED) | set(REFERENCE) | set(LOCAL)
    assert tables - classified == set(), "classify the new table(s) above and in docs/scale-out.md"
    assert classified - NOT_FROM_MIGRATIONS - tables == set(), "a classified table no longer exists"


async def test_distributed_tables_share_one_distribution_column(db_url):
    """Colocation needs agent_id of one type in every distributed table, and never NULL."""
    columns = {r["relname"]: (r["type"], r["attnotnull"]) for r in await _fetch(db_url, DISTRIBUTION_COLUMNS)}
    assert {name: columns.get(name) for name in DISTRIBUTED} == {name: ("text", True) for name in DISTRIBUTED}


async def test_primary_keys_and_unique_indexes_include_agent_id(db_url):
    """Citus enforces a unique index shard by shard: it must include the distribution column
    (partial unique indexes too: memories_current_dedup, memories_current_slot)."""
    rows = [r for r in await _fetch(db_url, UNIQUE_INDEXES) if r["table_name"] in DISTRIBUTED]
    assert {r["table_name"] for r in rows if r["primary_key"]} == set(DISTRIBUTED), "each has a primary key"
    assert any(" WHERE " in r["definition"] for r in rows), "the partial unique indexes are read too"
    found = await schema_violations(db_url)
    assert {name: why for name, why in found.items() if name not in KNOWN_SCHEMA_VIOLATIONS} == {}


async def schema_violations(db_url: str) -> dict[str, str]:
    """Unique indexes of distributed tables without agent_id, and foreign keys Citus refuses."""
    found = {
        r["index_name"]: f"unique without agent_id: {r['definition']}"
        for r in await _fetch(db_url, UNIQUE_INDEXES)
        if r["table_name"] in DISTRIBUTED and "agent_id" not in r["key_columns"]
    }
    for fk in await _fetch(db_url, FOREIGN_KEYS):
        if why := fk_problem(dict(fk)):
            found[fk["conname"]] = why
    return found


def fk_problem(fk: dict) -> str | None:
    """Why Citus refuses this foreign key, or None. Citus accepts foreign keys between two
    colocated distributed tables that include the distribution column at the same place on
    both sides, from a distributed to a reference table, and among reference or among local
    tables; never from a reference table to a distributed one, nor across the coordinator's
    local tables and Citus tables. With the distribution column in the key it refuses ON DELETE
    SET NULL / SET DEFAULT and ON UPDATE SET NULL / SET DEFAULT / CASCADE."""

    def kind(table: str) -> str:
        return "distributed" if table in DISTRIBUTED else "reference" if table in REFERENCE else "local"

    child, parent = kind(fk["child"]), kind(fk["parent"])
    if (child == "local") != (parent == "local"):
        return f"a foreign key between a local and a {child if parent == 'local' else parent} table"
    if child == "reference" and parent == "distributed":
        return "a foreign key from a reference table to a distributed one"
    if child == "distributed" and parent == "distributed":
        cols, ref = fk["columns"], fk["parent_columns"]
        if "agent_id" not in cols or "agent_id" not in ref or cols.index("agent_id") != ref.index("agent_id"):
            return "agent_id is not paired with agent_id"
    if child == "distributed" and "agent_id" in fk["columns"]:
        if fk["confdeltype"] in ("n", "d"):
            return "ON DELETE SET NULL/SET DEFAULT with the distribution column in the key"
        if fk["confupdtype"] in ("n", "d", "c"):
            return "ON UPDATE SET NULL/SET DEFAULT/CASCADE with the distribution column in the key"
    return None


async def test_foreign_keys_stay_within_an_agent(db_url):
    fks = await _fetch(db_url, FOREIGN_KEYS)
    assert {fk["child"] for fk in fks} >= {"memory_terms", "memory_tools", "memory_state", "memories"}
    problems = {fk["conname"]: fk_problem(dict(fk)) for fk in fks}
    assert {name: why for name, why in problems.items() if why and name not in KNOWN_SCHEMA_VIOLATIONS} == {}


async def test_known_schema_violations_are_still_there(db_url):
    """When the lead's migration fixes one, remove it here and from docs/scale-out.md."""
    assert set(KNOWN_SCHEMA_VIOLATIONS) - set(await schema_violations(db_url)) == set()


async def test_a_key_without_agent_id_and_an_unclassified_table_are_caught(db_url):
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("CREATE UNIQUE INDEX tool_once ON memory_tools (memory_id, tool) WHERE failed")
        await conn.execute("ALTER TABLE memory_state ADD CONSTRAINT one_per_id UNIQUE (id)")
        await conn.execute("CREATE TABLE memory_notes (agent_id text, memory_id uuid, note text)")
        await conn.execute(
            "ALTER TABLE memory_notes ADD FOREIGN KEY (agent_id, memory_id) REFERENCES memories (agent_id, id) "
            "ON DELETE SET NULL (memory_id)"
        )
    finally:
        await conn.close()
    found = await schema_violations(db_url)
    assert {"tool_once", "one_per_id"} <= set(found)
    classified = set(DISTRIBUTED) | set(REFERENCE) | set(LOCAL)
    assert {r["relname"] for r in await _fetch(db_url, TABLES)} - classified == {"memory_notes"}
    assert "memory_notes_agent_id_memory_id_fkey" in found  # a local table referencing a distributed one


def test_the_foreign_key_check_refuses_what_citus_refuses():
    fk = dict(child="memory_terms", parent="memories", confdeltype="c", confupdtype="a")
    fine = dict(fk, columns=["agent_id", "memory_id"], parent_columns=["agent_id", "id"])
    assert fk_problem(fine) is None
    assert fk_problem(dict(fine, columns=["memory_id"], parent_columns=["id"]))
    assert fk_problem(dict(fine, columns=["memory_id", "agent_id"]))
    assert fk_problem(dict(fine, confdeltype="n"))
    assert fk_problem(dict(fine, confupdtype="c"))
    assert fk_problem(dict(fine, child="hindsight_agent_roles"))
    assert fk_problem(dict(fine, parent="maintenance_runs"))
    assert fk_problem(dict(fine, parent="hindsight_embedder", parent_columns=["singleton"])) is None


DOC = REPO / "docs" / "scale-out.md"


async def test_the_doc_distributes_every_table_and_drops_real_constraints(db_url):
    """docs/scale-out.md's SQL names exactly these tables, and foreign keys that exist."""
    doc = DOC.read_text(encoding="utf-8")
    distributed = re.findall(r"create_distributed_table\('(\w+)', 'agent_id'", doc)
    assert sorted(distributed) == sorted(DISTRIBUTED) and distributed[0] == "memories"
    assert all(
        f"create_distributed_table('{t}', 'agent_id', colocate_with => 'memories')" in doc for t in distributed[1:]
    )
    assert sorted(re.findall(r"create_reference_table\('(\w+)'\)", doc)) == sorted(REFERENCE)
    dropped = set(re.findall(r"DROP CONSTRAINT (\w+)", doc))
    assert dropped == {fk["conname"] for fk in await _fetch(db_url, FOREIGN_KEYS)}
    assert all(name in doc for name in [*KNOWN_SCHEMA_VIOLATIONS, *KNOWN_STATEMENT_VIOLATIONS, *SHARED_READS])


# ---- reading the statements -----------------------------------------------------------------

_LEXEMES = re.compile(r"--[^\n]*|'(?:[^']|'')*'|\$\$.*?\$\$", re.S)
_TOKEN = re.compile(r"\$\d+|[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*|::|<>|!=|<=|>=|\S")
_AGENT = re.compile(r"^(?:(\w+)\.)?agent_id$", re.I)
_PARAM = re.compile(r"^\$\d+$|^LITERAL$")
_QUERY_HEADS = {"SELECT", "WITH", "VALUES", "INSERT", "UPDATE", "DELETE"}
_REF_AFTER = {"FROM", "JOIN", "UPDATE", "INTO", "USING", "TABLE", "ON"}
_CLAUSES = {
    "SELECT", "FROM", "WHERE", "SET", "ON", "JOIN", "GROUP", "ORDER", "LIMIT", "OFFSET", "RETURNING",
    "HAVING", "UNION", "INTERSECT", "EXCEPT", "VALUES", "WHEN", "THEN", "ELSE", "END", "USING", "FOR",
    "WINDOW", "INTO", "UPDATE", "DELETE", "INSERT", "WITH", "DO", "CONFLICT",
}  # fmt: skip
_NOT_ALIAS = _CLAUSES | {
    "AS", "LEFT", "RIGHT", "INNER", "OUTER", "CROSS", "FULL", "NATURAL", "LATERAL", "ONLY", "AND", "OR",
    "NOT", "IN", "ADD", "ALTER", "DROP", "RENAME", "IS", "ORDINALITY", "TABLESAMPLE",
}  # fmt: skip
_SET_OPS = {"UNION", "INTERSECT", "EXCEPT"}


@dataclass
class Tok:
    text: str
    depth: int = 0
    child: int | None = None  # a sub-query, standing in its parent as one token "(...)"

    @property
    def up(self) -> str:
        return self.text.upper()


@dataclass
class Ref:
    table: str
    name: str  # its alias, else the table's name
    kind: str  # read, update, delete, insert, schema
    at: int
    satisfied: bool = False


@dataclass
class Scope:
    toks: list[Tok] = field(default_factory=list)
    parent: int | None = None
    alias: str | None = None  # a derived table's alias in its parent
    joined: bool = False  # joined to a distributed table on agent_id in its parent


def _tokens(sql: str) -> list[str]:
    def blank(m: re.Match) -> str:
        return " " if m.group().startswith("--") else " LITERAL "

    return _TOKEN.findall(_LEXEMES.sub(blank, sql))


def _scopes(words: list[str]) -> list[Scope]:
    """The statement and each parenthesised sub-query (CTE body, derived table, LATERAL or
    EXISTS sub-query) as scopes of their own; expression parentheses stay in their scope."""
    scopes, stack, opened = [Scope()], [0], [0]
    for i, word in enumerate(words):
        here = scopes[stack[-1]]
        if word == "(" and i + 1 < len(words) and words[i + 1].upper() in _QUERY_HEADS:
            scopes.append(Scope(parent=stack[-1]))
            here.toks.append(Tok("(...)", opened[-1], child=len(scopes) - 1))
            stack.append(len(scopes) - 1)
            opened.append(0)
        elif word == ")" and opened[-1] == 0 and len(stack) > 1:
            stack.pop()
            opened.pop()
        elif word == "(":
            here.toks.append(Tok(word, opened[-1]))
            opened[-1] += 1
        elif word == ")":
            opened[-1] -= 1
            here.toks.append(Tok(word, opened[-1]))
        else:
            here.toks.append(Tok(word, opened[-1]))
    return scopes


def _alias_after(toks: list[Tok], i: int) -> tuple[str | None, int]:
    """The alias following position i (AS optional), and the position it ends at."""
    j = i + 1
    if j < len(toks) and toks[j].up == "AS":
        j += 1
    if j < len(toks) and re.fullmatch(r"[A-Za-z_]\w*", toks[j].text) and toks[j].up not in _NOT_ALIAS:
        return toks[j].text.lower(), j
    return None, i


def _in_from_list(toks: list[Tok], i: int) -> bool:
    """Whether toks[i] follows a comma of a FROM (or DELETE ... USING) list."""
    depth = toks[i].depth
    for t in reversed(toks[: i - 1]):
        if t.depth > depth:
            continue
        if t.depth < depth:
            return False
        if t.up in ("FROM", "USING"):
            return True
        if t.up in _CLAUSES:
            return False
    return False


def _or_ed(toks: list[Tok], k: int) -> bool:
    """Whether the comparison at toks[k] is one side of an OR, in its parentheses or around them."""
    while True:
        depth, lo, hi, enclosing = toks[k].depth, k, k, None
        while lo > 0:
            t = toks[lo - 1]
            if t.depth < depth:
                enclosing = lo - 1
                break
            if t.depth == depth and t.up in _CLAUSES:
                break
            lo -= 1
        while hi + 1 < len(toks):
            t = toks[hi + 1]
            if t.depth < depth or (t.depth == depth and t.up in _CLAUSES):
                break
            hi += 1
        if any(t.up == "OR" and t.depth == depth for t in toks[lo : hi + 1]):
            return True
        if enclosing is None:
            return False
        k = enclosing


def _references(scopes: list[Scope]) -> dict[int, list[Ref]]:
    """The distributed tables each scope reads or writes, and the aliases of derived tables."""
    refs: dict[int, list[Ref]] = {}
    for s, scope in enumerate(scopes):
        toks = scope.toks
        for i, t in enumerate(toks):
            before = toks[i - 1].up if i else ""
            if t.child is not None and before in ("FROM", "JOIN", "LATERAL", ","):
                scopes[t.child].alias = _alias_after(toks, i)[0]
            if t.child is not None or t.text.lower() not in DISTRIBUTED:
                continue
            j = i - 1 if before != "ONLY" else i - 2
            before = toks[j].up if j >= 0 else ""
            if before not in _REF_AFTER and not (before == "," and _in_from_list(toks, i)):
                continue
            kind = {"UPDATE": "update", "INTO": "insert", "TABLE": "schema", "ON": "schema"}.get(before, "read")
            if before == "FROM" and j > 0 and toks[j - 1].up == "DELETE":
                kind = "delete"
            alias = _alias_after(toks, i)[0] if kind != "insert" else None
            refs.setdefault(s, []).append(Ref(t.text.lower(), alias or t.text.lower(), kind, i))
    return refs


def _conditions(toks: list[Tok], partners: set[str]) -> tuple[list[tuple[int, str | None]], list, bool]:
    """The comparisons on agent_id that are not one side of an OR: (position, qualifier) of
    those pinned to a parameter (= $n, = ANY (...), a literal), of those joined to another
    distributed table's agent_id; and whether any is pinned."""
    pinned, joined = [], []
    for k, t in enumerate(toks):
        if t.text != "=" or k == 0 or k + 1 >= len(toks) or _or_ed(toks, k):
            continue
        left, right = toks[k - 1].text, toks[k + 1].text
        lm, rm = _AGENT.match(left), _AGENT.match(right)
        sides = ((lm, rm, bool(_PARAM.match(right)) or right.upper() == "ANY"), (rm, lm, bool(_PARAM.match(left))))
        for mine, other, to_value in sides:
            if not mine:
                continue
            qualifier = mine.group(1).lower() if mine.group(1) else None
            if to_value:
                pinned.append((k, qualifier))
            elif other and (other.group(1) or "").lower() in partners:
                joined.append((k, qualifier))
    return pinned, joined, bool(pinned)


def _using_agent(toks: list[Tok]) -> list[int]:
    """Positions just before each `USING (..., agent_id, ...)`: where the joined item ends."""
    ends = []
    for u, t in enumerate(toks[:-1]):
        if t.up == "USING" and toks[u + 1].text == "(":
            depth = toks[u + 1].depth
            close = next(n for n in range(u + 2, len(toks)) if toks[n].depth == depth)
            if any(x.text.lower() == "agent_id" for x in toks[u + 2 : close]):
                ends.append(u - 1)
    return ends


def _insert_writes_agent(toks: list[Tok], at: int) -> tuple[bool, bool]:
    """Whether INSERT INTO toks[at] writes agent_id, and whether it does so from VALUES."""
    rest = toks[at + 1 :]
    if not rest or rest[0].text != "(":
        return True, False  # INSERT ... SELECT of whole rows: agent_id comes with them
    close = next(n for n in range(1, len(rest)) if rest[n].depth == rest[0].depth)
    writes = any(x.text.lower() == "agent_id" for x in rest[1:close])
    return writes, writes and close + 1 < len(rest) and rest[close + 1].up == "VALUES"


def _branches(toks: list[Tok]):
    """Position -> the branch of a UNION / INTERSECT / EXCEPT it is in (its first position)."""
    cuts = [0] + [i for i, t in enumerate(toks) if t.up in _SET_OPS and t.depth == 0]
    return lambda i: max(c for c in cuts if c <= i)


def agent_filter_problems(sql: str) -> list[str]:
    """What keeps this statement from running on one agent's shard. Each distributed table it
    reads or writes needs agent_id = $n (or = ANY ($n)) that is not one side of an OR, or a join
    on agent_id (= or USING) to another distributed table of the statement (a derived table
    joined so counts for the tables in it); an INSERT must write agent_id; and some table must
    be pinned to a parameter. Empty: the statement filters by agent."""
    scopes = _scopes(_tokens(sql))
    refs = _references(scopes)

    def has_tables(s: int) -> bool:
        return bool(refs.get(s)) or any(has_tables(c) for c, sc in enumerate(scopes) if sc.parent == s)

    partners = {r.name for rs in refs.values() for r in rs}
    partners |= {sc.alias for c, sc in enumerate(scopes) if sc.alias and has_tables(c)}
    anchored = False
    for s, scope in enumerate(scopes):
        toks = scope.toks
        branch = _branches(toks)
        pinned, joined, any_pinned = _conditions(toks, partners)
        anchored |= any_pinned
        marks = {(branch(k), q) for k, q in pinned + joined}
        using = {(branch(e), e) for e in _using_agent(toks)} if len(partners) > 1 else set()
        for i, t in enumerate(toks):
            if t.child is not None:
                alias, end = _alias_after(toks, i)
                scopes[t.child].joined = (branch(i), end) in using or (alias and (branch(i), alias) in marks)
        for ref in refs.get(s, []):
            b = branch(ref.at)
            if ref.kind == "insert":
                ref.satisfied, from_values = _insert_writes_agent(toks, ref.at)
                anchored |= from_values
            elif ref.kind != "schema":
                end = _alias_after(toks, ref.at)[1]
                ref.satisfied = (b, None) in marks or (b, ref.name) in marks or (b, end) in using
    problems = []
    for s, rs in refs.items():
        for ref in rs:
            if ref.kind == "schema":
                problems.append(f"changes the schema of {ref.table}")
            elif not (ref.satisfied or (ref.kind == "read" and scopes[s].joined)):
                verb = {"insert": "inserts into", "update": "updates", "delete": "deletes from"}.get(ref.kind, "reads")
                problems.append(f"{verb} {ref.table} without an agent_id filter")
    if refs and not anchored and not problems:
        problems.append("no agent_id = $n anywhere: Citus cannot tell which shard")
    return problems


def _names_used_by(package: str) -> set[str]:
    calls = r"(?:fetch|fetchrow|fetchval|execute|executemany|execute_count|execute_sized|plan_ahead|queries\.get)"
    found: set[str] = set()
    for path in (REPO / "hindsight" / package).rglob("*.py"):
        found |= set(re.findall(calls + r"\(\s*\"(\w+)\"", path.read_text(encoding="utf-8")))
    return found


def hot_path() -> set[str]:
    names = set(PER_AGENT_UPKEEP)
    for package in HOT_PATH_PACKAGES:
        names |= _names_used_by(package)
    return names


def test_the_hot_path_is_found():
    names = hot_path()
    assert {"insert_memory", "recall_vector", "recall_rows", "record_access", "import_memory", "update_memory"} <= names
    assert names <= set(queries.QUERIES), names - set(queries.QUERIES)


def test_hot_path_statements_filter_by_agent():
    """A hot-path statement runs on the caller's shard; only shared-memory reads (and the known
    violations) reach other shards, and no cross-agent maintenance statement is on the hot path."""
    names = hot_path()
    assert names & (set(CROSS_AGENT) | set(SCHEMA_CHANGES)) == set()
    failing = {
        name: agent_filter_problems(queries.get(name))
        for name in sorted(names)
        if name not in SHARED_READS and name not in KNOWN_STATEMENT_VIOLATIONS
    }
    assert {name: p for name, p in failing.items() if p} == {}


def statements() -> dict[str, str]:
    """Every statement in sql/queries, fragments included where they are used (not alone)."""
    text = "".join(path.read_text(encoding="utf-8") for path in (REPO / "sql" / "queries").glob("*.sql"))
    fragments = set(re.findall(r"--@\s*(\w+)", text))
    return {name: sql for name, sql in queries.QUERIES.items() if name not in fragments}


def test_every_statement_filters_by_agent_or_is_a_listed_exception():
    """The same check over every statement in sql/queries: a new statement that reaches every
    shard fails here until it is listed above with its reason (and in docs/scale-out.md)."""
    failing = {name: agent_filter_problems(sql) for name, sql in statements().items()}
    failing = {name: p for name, p in failing.items() if p}
    assert {name: p for name, p in failing.items() if name not in EXCEPTIONS} == {}
    assert set(EXCEPTIONS) - set(failing) == set(), "these pass now: remove them from the exceptions"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id FROM memories WHERE id = $2",
        "SELECT id FROM memories WHERE id = $2 AND (agent_id = $1 OR shared)",
        "SELECT count(*) FROM memory_state WHERE current AND ($1::text IS NULL OR agent_id = $1)",
        "SELECT m.id FROM memories m JOIN memory_state s USING (agent_id, id)",
        "SELECT m.id FROM memories m WHERE m.agent_id = $1 AND EXISTS (SELECT 1 FROM memory_state s WHERE s.id = m.id)",
        "SELECT id FROM memories WHERE agent_id = $1 UNION SELECT id FROM memories_archive",
        "SELECT id FROM memories, memory_tools t WHERE memories.agent_id = $1 AND t.memory_id = memories.id",
        "INSERT INTO memory_history (memory_id, action, call) VALUES ($1, $2, $3)",
        "UPDATE memory_state SET decay_score = 0 WHERE id = $2",
        "DELETE FROM memories_archive WHERE archived_at < $1",
        "WITH x AS (SELECT agent_id, id FROM memories WHERE agent_id = $1) "
        "UPDATE memory_state s SET access_count = 0 FROM x WHERE s.agent_id = x.agent_id",
        "ALTER TABLE memories ADD COLUMN extra text",
    ],
)
def test_a_statement_without_an_agent_filter_is_caught(sql):
    assert agent_filter_problems(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id FROM memories WHERE agent_id = $1 AND id = $2",
        "SELECT m.id FROM memories m JOIN memory_state s USING (agent_id, id) WHERE m.agent_id = $1",
        "DELETE FROM memories WHERE agent_id = $1 AND id = ANY($2::uuid[]) RETURNING id",
        "INSERT INTO memories (agent_id, id, content) VALUES ($1, $2, 'it''s -- here')",
        "UPDATE memory_state m SET access_count = m.access_count + a.n FROM unnest($2::uuid[], $3::int[]) "
        "AS a(id, n) WHERE m.agent_id = $1 AND m.id = a.id",
        "SELECT id FROM memories WHERE agent_id = $1 AND (slot = $2 OR $2 IS NULL)",
        "SELECT n.id FROM memories n JOIN memories o ON o.agent_id = n.agent_id AND o.id = n.invalidated_by "
        "WHERE n.agent_id = $1",
        "SELECT id FROM memories WHERE agent_id = $1 UNION SELECT id FROM memories_archive WHERE agent_id = $1",
        "SELECT count(*) FROM maintenance_runs",
    ],
)
def test_a_statement_filtered_by_agent_passes(sql):
    assert agent_filter_problems(sql) == []


@pytest.mark.parametrize(
    "name, filtered, unfiltered",
    [
        ("insert_memory", "INSERT INTO memories (agent_id, id,", "INSERT INTO memories (id,"),
        ("ui_open_conflicts", "ON o.agent_id = n.agent_id AND", "ON"),
        ("export_memories", "WHERE m.agent_id = $1", "WHERE true"),
        ("restore_present", "FROM memory_history WHERE agent_id = $1 AND", "FROM memory_history WHERE"),
    ],
)
def test_a_real_statement_loses_its_filter_and_is_caught(name, filtered, unfiltered):
    sql = queries.get(name)
    assert filtered in sql and agent_filter_problems(sql) == []
    assert agent_filter_problems(sql.replace(filtered, unfiltered, 1))
