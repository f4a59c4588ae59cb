"""The compiled golfbillard referee gives the same outcomes and next states as the Python
reference referee (tests/reference) on random strokes: a short run per rule variant here,
>= 100,000 strokes in the slow test. See tests/golf_differential.py."""

import pytest
from golf_differential import VARIANTS, run


@pytest.mark.parametrize("k", range(len(VARIANTS)))
def test_same_answers_short(k):
    stats = run(T=16, strokes=10, seed=100 + k, variant=VARIANTS[k])
    assert stats["strokes"] == 16 * 10


@pytest.mark.slow
def test_same_answers_100k_strokes():
    total = 0
    seen: dict = {}
    for k, variant in enumerate(VARIANTS):
        stats = run(T=128, strokes=112, seed=1000 + k, variant=variant)
        total += stats["strokes"]
        for rule, n in stats["fouls"].items():
            seen[rule] = seen.get(rule, 0) + n
        assert stats["kader"] > 0 and stats["games"] > 0, (variant, stats)
        if variant.get("opening") != "alternate":
            assert stats["openings"] > 0, (variant, stats)
    assert total >= 100_000
    for rule in ("G-3", "G-8", "G-10", "G-11", "G-12", "G-13", "G-14", "G-15", "G-16", "G-17",
                 "G-18", "G-19", "G-21"):
        assert seen.get(rule, 0) > 0, (rule, seen)
