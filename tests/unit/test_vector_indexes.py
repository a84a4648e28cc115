"""Which agents get a vector index of their own (hindsight.rules.vector_indexes)."""

from hindsight.rules import vector_indexes as vi

M = 1_000_000


def test_a_large_agent_that_is_a_small_share_gets_one_largest_first():
    counts = {"big": 100_000, "bigger": 200_000, "medium": vi.MIN_ROWS, "small": 150}
    out = vi.plan(counts, M, {})
    assert out.create == ((vi.index_name("bigger"), "bigger"), (vi.index_name("big"), "big"))
    assert out.drop == () and out.kept == 0


def test_an_agent_that_is_most_of_the_table_is_served_by_the_shared_index():
    assert vi.plan({"alone": 100_000}, 100_000, {}).create == ()
    assert vi.plan({"half": 60_000}, 100_000, {}).create == ()  # above SHARE
    assert vi.plan({"third": 33_000}, 100_000, {}).create == ((vi.index_name("third"), "third"),)


def test_an_index_stays_between_the_thresholds_and_goes_outside_them():
    name = vi.index_name("a")
    assert vi.plan({"a": vi.KEEP_ROWS + 1}, M, {name: True}) == vi.IndexPlan((), (), 1)  # shrank a little
    assert vi.plan({"a": vi.KEEP_ROWS}, M, {name: True}).drop == (name,)
    assert vi.plan({}, M, {name: True}).drop == (name,)  # the agent is gone (or counted below keep_rows)
    assert vi.plan({"a": 700_000}, M, {name: True}).kept == 1  # 70 %: below KEEP_SHARE
    assert vi.plan({"a": 800_000}, M, {name: True}).drop == (name,)


def test_an_invalid_index_is_dropped_and_built_again_and_strangers_are_dropped():
    name = vi.index_name("a")
    out = vi.plan({"a": 50_000}, M, {name: False, vi.PREFIX + "0000": True})
    assert out.drop == tuple(sorted([name, vi.PREFIX + "0000"])) and out.create == ((name, "a"),)


def test_names_are_fixed_and_distinct_whatever_the_agent_id():
    ids = ["a", "A", "o'brien", 'x"; DROP TABLE memories; --', "代理", "a" * 500]
    names = [vi.index_name(i) for i in ids]
    assert len(set(names)) == len(ids)
    assert all(n.startswith(vi.PREFIX) and len(n) <= 63 and n.isascii() for n in names)  # 63: NAMEDATALEN
    assert vi.index_name("a") == vi.index_name("a")


def test_the_table_size_is_at_least_what_the_counts_add_up_to():
    # a stale or zero total (an empty estimate) never makes a large agent look like a small share
    assert vi.plan({"a": 50_000}, 0, {}).create == ()
