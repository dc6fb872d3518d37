"""``TILEORCH_REMATERIALIZE_FLOAT_LOADS=1`` (tileaa_to_simt/rematerialize.py: a broadcast float tile
load loaded again by each thread at the coordinates it needs; a second broadcast of the same source
in the block takes the first one's tile) on the PTX emulator: sweep 15's rotary (the f32 cos / sin
table rows at a runtime int64 position, each broadcast over the heads twice, before and after the
first store) against numpy through test_user_sweep15_interp's test (NaN-prefilled output, ragged
heads); the kernel then passes no ``bar.sync`` and touches no shared memory (default: the
broadcasts are exchanged through shared memory between barriers).  And, switched on and off, two loops
emitted two (or three) iterations a trip: a float column broadcast per K step, and a gather whose column index
``k tk + arange`` is broadcast per K step; each iteration must take its own tile (session 30: the reused-tile
memo, keyed by the IR block only, gave the trip's later iterations the first one's).  Needs cuda-tile and
ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep15_interp as s15  # noqa: E402

from tileorch.testing.user_programs15 import PROGRAMS  # noqa: E402


def _ptx(name: str) -> str:
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False).ptx


@pytest.mark.parametrize("on", ["1", "0"])
def test_rope_tables_rematerialized(on, monkeypatch):
    monkeypatch.setenv("TILEORCH_REMATERIALIZE_FLOAT_LOADS", on)
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s15, "run", s10e.emulate)
    s15.test_rope_halves_table_rows()
    ptx = _ptx("rope_halves_table_rows")
    assert ("bar.sync" in ptx) == (on == "0")
    assert ("st.shared" in ptx) == (on == "0")


ct = pytest.importorskip("cuda.tile")
C = ct.Constant


@ct.kernel
def column_scaled_tile_sum(X, S, Y, tm: C[int], tn: C[int]):
    """``Y = sum_k X[:, k tile] * S[:, k]``: per K step a ``(tm, 1)`` float column of ``S`` broadcast over
    the ``(tm, tn)`` tile of ``X``, in a loop whose loads are prefetched (two iterations a trip)."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(S, axis=1, shape=(tm, 1))):
        acc = acc + ct.load(X, index=(bm, k), shape=(tm, tn)) * ct.load(S, index=(bm, k), shape=(tm, 1))
    ct.store(Y, index=(bm, 0), tile=acc)


@pytest.mark.parametrize("depth", ["1", "2"])
@pytest.mark.parametrize("on", ["1", "0"])
def test_broadcast_column_reloaded_per_iteration_of_a_trip(on, depth, monkeypatch):
    """The loop body is lowered once per iteration of a trip (``prefetch.unrolled``: two; depth 2's rotation:
    three); with the switch on, each iteration's broadcast reloads its own column.  Before the fix the
    rematerialized-tile memo was keyed by the IR block only, so a trip's later iterations took the first's
    column (odd K steps scaled by the even step's column).  5 K steps: a trip's guard off at the end."""
    import numpy as np

    monkeypatch.setenv("TILEORCH_REMATERIALIZE_FLOAT_LOADS", on)
    monkeypatch.setenv("TILEORCH_PREFETCH_DEPTH", depth)
    rng = np.random.default_rng(30)
    tm, tn, k = 16, 32, 5
    x = rng.standard_normal((2 * tm, k * tn)).astype(np.float32)
    s = rng.standard_normal((2 * tm, k)).astype(np.float32)
    y = np.full((2 * tm, tn), np.nan, np.float32)
    out = s10e.emulate_kernel(monkeypatch, f"remat_column_scaled_sum_{on}_{depth}", column_scaled_tile_sum,
                              [x, s, y], [tm, tn], grid=(2,))[2]
    ref = sum(x[:, j * tn:(j + 1) * tn].astype(np.float64) * s[:, j:j + 1] for j in range(k))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


@ct.kernel
def gathered_plus_loaded_tiles_sum(X, Z, Y, tm: C[int], tk: C[int]):
    """``Y = sum_k X[rows, k tile] + Z[:, k tile]``: the gather's column index ``k tk + arange(tk)`` broadcast
    (an integer chain, recomputed) in a loop that the tiled load of ``Z`` makes prefetching (two iterations a
    trip), as sweep 9's MoE / grouped GEMMs gather their A rows."""
    bm = ct.bid(0)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    acc = ct.zeros((tm, tk), dtype=ct.float32)
    for k in range(ct.num_tiles(Z, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        acc = acc + ct.gather(X, (rows[:, None], cols[None, :])) + ct.load(Z, index=(bm, k), shape=(tm, tk))
    ct.store(Y, index=(bm, 0), tile=acc)


@pytest.mark.parametrize("on", ["1", "0"])
def test_gathered_column_index_recomputed_per_iteration_of_a_trip(on, monkeypatch):
    """The memo (active under the switch) took any recomputed source, integer chains too: before the fix a
    trip's second iteration gathered the first iteration's columns (session 29's sweep-9, sweeps 4-7 and
    gathered-dot interpreter failures with the switch on)."""
    import numpy as np

    monkeypatch.setenv("TILEORCH_REMATERIALIZE_FLOAT_LOADS", on)
    rng = np.random.default_rng(31)
    tm, tk, k = 16, 32, 5
    x = rng.standard_normal((2 * tm, k * tk)).astype(np.float32)
    z = rng.standard_normal((2 * tm, k * tk)).astype(np.float32)
    y = np.full((2 * tm, tk), np.nan, np.float32)
    out = s10e.emulate_kernel(monkeypatch, f"remat_gathered_plus_loaded_{on}", gathered_plus_loaded_tiles_sum,
                              [x, z, y], [tm, tk], grid=(2,))[2]
    ref = sum(x[:, j * tk:(j + 1) * tk].astype(np.float64) + z[:, j * tk:(j + 1) * tk] for j in range(k))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
