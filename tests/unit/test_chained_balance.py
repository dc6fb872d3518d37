"""The host math of the persistent chained kernel's dealing (schedulers/chained_balance.py) and the
launch's CTA count from it (launchers/cutile.py ``chained_ctas``): each instance runs once whatever the
order and CTA count, the modelled work is conserved, small cases worked out by hand, and the decision
on the causal grids the H200 measured (2026-12-04, 128-row query tiles, 132 SMs, 262144 tokens: the
snake dealing on one CTA per SM won at 1k and 4k and lost at 16k, so those must launch 132, 132 and
one CTA per instance)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.launchers.cutile import CHAINED_CTAS_ENV, chained_ctas
from tileorch.schedulers import chained_balance as cb
from tileorch.settings import SettingError


@settings(max_examples=150, deadline=None)
@given(heavy=st.integers(1, 40), rest=st.integers(1, 30), ctas=st.integers(1, 150),
       order=st.sampled_from(cb.ORDERS))
def test_every_instance_once_and_work_conserved(heavy, rest, ctas, order):
    total = heavy * rest
    runs = []
    for b in range(ctas):
        it, w0 = 0, b
        while w0 < total:
            w = cb.dealt(w0, it, b, ctas, total, order != "round_robin")
            assert w // ctas == it  # round it deals the instances [it G, it G + n)
            runs.append(cb.instance(order, w, heavy, rest))
            it, w0 = it + 1, w0 + ctas
    assert sorted(runs) == [(r, t) for r in range(rest) for t in range(heavy)]
    # each instance's work once: rest * (1 + 2 + .. + heavy) key tiles plus one overhead unit each
    assert sum(cb.loads(order, heavy, rest, ctas)) == rest * heavy * (heavy + 1) // 2 + total
    assert cb.busiest_over_mean(order, heavy, rest, ctas) >= 1.0 - 1e-12


@settings(max_examples=150, deadline=None)
@given(heavy=st.integers(1, 64), rest=st.integers(1, 40), sms=st.integers(1, 160),
       order=st.sampled_from(cb.ORDERS))
def test_the_launch_is_one_cta_per_sm_or_per_instance(heavy, rest, sms, order):
    total = heavy * rest
    ctas, ratio = cb.persistent_ctas(order, heavy, rest, sms)
    if total <= sms:
        assert (ctas, ratio) == (total, None)
    else:
        assert ctas == (sms if ratio <= cb.IMBALANCE_LIMIT else total)


def test_hand_worked_dealing():
    """One head of four query tiles (1 .. 4 key tiles), two CTAs, no overhead.  round_robin: CTA 0 runs
    w = 0, 2 (tiles 3, 1: 4 + 2 = 6), CTA 1 w = 1, 3 (3 + 1 = 4): busiest 6 over mean 5.  snake: the
    second round backwards, CTA 0 w = 3 (tile 0), CTA 1 w = 2 (tile 1): 4 + 1 = 3 + 2 = 5, balanced."""
    assert cb.loads("round_robin", 4, 1, 2, 0.0) == [6.0, 4.0]
    assert cb.busiest_over_mean("round_robin", 4, 1, 2, 0.0) == pytest.approx(1.2)
    assert cb.loads("snake", 4, 1, 2, 0.0) == [5.0, 5.0]
    # two heads of two tiles, three CTAs: snake w = (head w // 2, tile 1 - w % 2), snake_lpt (head w % 2,
    # tile 1 - w // 2); round 1 has one instance (w = 3, CTA 0)
    assert cb.instance("snake", 1, 2, 2) == (0, 0) and cb.instance("snake_lpt", 1, 2, 2) == (1, 1)
    assert cb.loads("snake", 2, 2, 3, 0.0) == [2.0 + 1.0, 1.0, 2.0]
    assert cb.loads("snake_lpt", 2, 2, 3, 0.0) == [2.0 + 1.0, 2.0, 1.0]


@pytest.mark.parametrize("seq,want", [(1024, 132), (4096, 132), (16384, 16384 // 128 * 16)])
def test_measured_causal_grids(seq, want, monkeypatch):
    """The H200's causal grids: (query tiles, batch x heads, 1) with the query tiles the heavy-first axis."""
    monkeypatch.delenv(CHAINED_CTAS_ENV, raising=False)
    record = {"heavy_first": 0, "persistent": {"q_slots": 2, "schedule": "snake"}}
    grid = (seq // 128, 262144 // seq, 1)
    ctas, remark = chained_ctas(record, grid, 132)
    assert ctas == want, remark
    assert remark.startswith(f"remark: {want} CTAs (one CTA per ") and "busiest CTA is" in remark, remark
    # the snake_lpt order balances at 16k too (its measured loss there was not the balance)
    assert chained_ctas({**record, "persistent": {"schedule": "snake_lpt"}}, grid, 132)[0] == 132


def test_chained_ctas_without_a_model_or_forced(monkeypatch):
    monkeypatch.delenv(CHAINED_CTAS_ENV, raising=False)
    grid = (128, 16, 1)
    # round-robin (TILEORCH_ATTN_PERSISTENT=1 alone) and grids without a heavy axis: one CTA per SM at most
    assert chained_ctas({"heavy_first": 0, "persistent": {"q_slots": 1}}, grid, 132)[0] == 132
    assert chained_ctas({"heavy_first": None, "persistent": {"schedule": "snake"}}, grid, 132)[0] == 132
    assert chained_ctas({"heavy_first": 0, "persistent": {"schedule": "snake"}}, (5, 2, 1), 132)[0] == 10
    snake = {"heavy_first": 0, "persistent": {"schedule": "snake"}}
    monkeypatch.setenv(CHAINED_CTAS_ENV, "sms")
    ctas, remark = chained_ctas(snake, grid, 132)
    assert ctas == 132 and f"{CHAINED_CTAS_ENV}=sms" in remark
    monkeypatch.setenv(CHAINED_CTAS_ENV, "total")
    assert chained_ctas(snake, (8, 256, 1), 132)[0] == 2048
    monkeypatch.setenv(CHAINED_CTAS_ENV, "many")  # not a choice: an error naming the choices
    with pytest.raises(SettingError, match=f"{CHAINED_CTAS_ENV}='many': expected one of 'auto', 'sms', 'total'"):
        chained_ctas(snake, (8, 256, 1), 132)
    # the heavy axis is the record's, not always x
    monkeypatch.setenv(CHAINED_CTAS_ENV, "auto")
    assert chained_ctas({"heavy_first": 1, "persistent": {"schedule": "snake"}}, (16, 128, 1), 132)[0] == 2048
