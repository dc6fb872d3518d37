"""The model of the persistent kernel's dealing in tools/chained_schedule_balance.py (the docs' balance
table comes from it): every round's backwards dealing is a bijection of the round's instances, so each
instance runs once on one CTA whatever the CTA and instance counts; the two heads' query tiles of the
orders are each instance once."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "chained_schedule_balance.py"


def _tool():
    spec = importlib.util.spec_from_file_location("chained_schedule_balance", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TOOL = _tool()


@settings(max_examples=200, deadline=None)
@given(ctas=st.integers(1, 160), total=st.integers(1, 1200), snake=st.booleans())
def test_dealing_runs_every_instance_once(ctas, total, snake):
    runs = []
    for b in range(ctas):
        it, w0 = 0, b
        while w0 < total:
            w = TOOL.dealt(w0, it, b, ctas, total, snake)
            assert w // ctas == it, (b, it, w)  # round it deals the instances [it G, it G + n)
            runs.append(w)
            it, w0 = it + 1, w0 + ctas
    assert sorted(runs) == list(range(total))


@settings(max_examples=100, deadline=None)
@given(gx=st.integers(1, 40), heads=st.integers(1, 40), order=st.sampled_from(["snake", "round_robin"]))
def test_orders_cover_the_grid(gx, heads, order):
    got = sorted(TOOL.instance(order, w, gx, heads) for w in range(gx * heads))
    assert got == [(h, t) for h in range(heads) for t in range(gx)]
    # heaviest first: instance 0 is a last query tile, and in snake order one head's tiles are consecutive
    assert TOOL.instance(order, 0, gx, heads)[1] == gx - 1
    if order == "snake":
        assert {TOOL.instance(order, w, gx, heads)[0] for w in range(gx)} == {0}


def test_balance_of_a_causal_grid():
    """At 1k (8 query tiles per head, 256 heads, 132 CTAs) every CTA's snake pair of rounds holds 9 key
    tiles (positions p and 7 - p of a head): 16 instances are 72 key tiles, 15 are 63 plus one instance
    of 1 to 8, so no two CTAs differ by more than 8."""
    per = TOOL.loads("snake", 8, 256, 132, 0.0)
    assert max(per) - min(per) <= 8, (max(per), min(per))
