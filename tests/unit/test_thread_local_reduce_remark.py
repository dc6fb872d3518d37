"""The compiled kernel says when a SIMT reduction kept its partials in place
(``tileaa_to_simt/thread_local_reduce.py``): a cuTile full reduction of a ``(1, N)`` row
(``ct.max(x)``, the unit dimension reduced first, which needs no exchange) carries the driver's
remark; with ``TILEORCH_SIMT_REDUCE_EXCHANGE=1`` the exchange stays and the remark is gone.  Needs
cuda-tile, no GPU."""

from __future__ import annotations

import re

import pytest

ct = pytest.importorskip("cuda.tile")

SAID = r"remark: @row_max\w*: 1 reduction\(s\) whose every thread already holds the result elements"


@ct.kernel
def row_max(x, y, tn: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, index=(row,), tile=ct.reshape(ct.max(t), (1,)))


@pytest.mark.parametrize("exchange", ["", "1"])
def test_the_driver_remarks_a_reduction_without_exchange(monkeypatch, exchange):
    from tileorch.testing.gemm_emulation import compile_cutile

    monkeypatch.setenv("TILEORCH_SIMT_REDUCE_EXCHANGE", exchange)
    prog = compile_cutile(row_max, [((64, 4096), "float32"), ((64,), "float32"), 4096], "row_max")
    assert prog.kind == "simt", prog.remarks
    assert any(re.match(SAID, r) for r in prog.remarks) == (exchange != "1"), prog.remarks
