"""How candidates learn their session neighbours from the statement's rows
(recall/candidates.link_neighbours): each strong seed's row names the memories next to it
and two away; the others learn it from the seed."""

from hindsight.recall.candidates import link_neighbours
from hindsight.rules.scoring import Candidate


def test_a_seed_tells_its_neighbours_and_the_ones_two_away():
    seed = Candidate("s", 0.9, prev="p", prev_minutes=1.0, next="n", next_minutes=2.0, prev2="pp", next2="nn")
    p, n, pp, nn = (Candidate(x, 0.8) for x in ("p", "n", "pp", "nn"))
    link_neighbours([seed, p, n, pp, nn])
    assert (p.next, p.next_minutes, n.prev, n.prev_minutes) == ("s", 1.0, "s", 2.0)
    assert (pp.next2, nn.prev2) == ("s", "s")
    assert (p.next2, n.prev2) == ("n", "p")  # the seed stands between them


def test_what_a_row_named_itself_is_kept():
    seed = Candidate("s", 0.9, prev="p", next="n")
    p = Candidate("p", 0.8, next="other", next2="far")
    n = Candidate("n", 0.8, prev2="elsewhere")
    link_neighbours([seed, p, n])
    assert (p.next, p.next2, n.prev2) == ("other", "far", "elsewhere")


def test_a_neighbour_not_among_the_candidates_is_not_linked():
    seed = Candidate("s", 0.9, prev="gone", next2="nn")
    link_neighbours([seed])
    assert seed.next is None and seed.prev2 is None
