"""``tileaa-hoist-online-softmax`` on the PTX emulator: online max / sum-of-exp loops of three
programs (cuTile's scalar ``ct.max(x)`` form in a cross entropy with atomics, a 1-D logsumexp that
reshapes its tile, a keepdims log-softmax with a second pass), at ragged widths (one tile and
five, rewritten from one iteration on (``TILEORCH_ONLINE_SOFTMAX=1``; one tile: the peeled
iteration alone); nine and ten tiles at the default minimum of 8; the last tile of 5 or 8
elements, misaligned rows), NaN-prefilled outputs:

* finite rows against numpy's log-sum-exp in f64;
* rows with special values against the same program compiled as written
  (``TILEORCH_ONLINE_SOFTMAX=0``): NaN exactly where the loop as written gives NaN -- a NaN or a
  ``+inf`` in the row, a first tile of ``-inf`` only -- and otherwise the same value (``-inf``
  elsewhere adds nothing), so the rewrite keeps what the program computes.

Each test runs both forms of the rewrite (``TILEORCH_ONLINE_SOFTMAX_FORM``): ``thread`` (a running
max and sum per thread, the chains' reductions folding each thread's own elements, combined across
threads after the loop) and ``element`` (per element position), and the per-thread form with its
sum's exponentials as ``ex2.approx.ftz`` of ``d * log2 e`` (``TILEORCH_ONLINE_SOFTMAX_EXP=ex2``: the
emulator's ``ex2`` is exact, so this checks the form and its special values, not the MUFU's error,
which the GPU tests measure).  The rewrite's remark is checked on
each compile (it took the loop).  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

INF = np.float32(np.inf)


@pytest.fixture(autouse=True, params=["thread", "element", "thread-ex2"])
def _form(request, monkeypatch):
    form, _, exps = request.param.partition("-")
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX_FORM", form)
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX_EXP", exps or "full")
    return request.param


def _bf16(a):
    return (np.asarray(a, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)


def _lse(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.log(np.exp(np.asarray(x, np.float64)).sum(1))


def _rows(v: int, bv: int, seed: int = 0) -> tuple[np.ndarray, list[int]]:
    """Six rows of width ``v``: finite, first tile all -inf (NaN as written), a +inf, a NaN,
    scattered -inf, finite; and the indices of the finite-answer rows."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((6, v)) * 3).astype(np.float32)
    x[1, :min(bv, v)] = -INF
    x[2, v // 2] = INF
    x[3, v - 1] = np.nan
    x[4, ::3] = -INF
    return x, [0, 4, 5]


def _run(name, kernel, spec, grid, inputs, monkeypatch, online: bool):
    """Emulated outputs of the program rewritten (``online``: for loops of at least 8 iterations, the
    default; narrower rows than 8 tiles from a minimum of 1, so the rewritten loop runs there too,
    down to the peeled iteration alone) or as written."""
    tiles = -(-spec[0][0][1] // spec[-1])
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX", ("8" if tiles >= 8 else "1") if online else "0")
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    out = s10e.emulate(name, inputs)
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    prog = compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)
    # the pass's own remark (the exp count, made on the final kernel since session 33, names the pass
    # among the reasons for its ex2 terms)
    took = [r for r in prog.remarks if "tileaa-hoist-online-softmax" in r and not r.startswith("remark: exp:")]
    assert bool(took) == online, prog.remarks
    if online:  # the form the setting asks for
        import os

        assert ("running max and sum per thread" in took[0]) == (os.environ["TILEORCH_ONLINE_SOFTMAX_FORM"] == "thread")
        assert ("exponentials ex2.approx.ftz" in took[0]) == (os.environ["TILEORCH_ONLINE_SOFTMAX_EXP"] == "ex2")
    return out


def _same_as_written(got, written, finite_rows, want):
    got, written = np.asarray(got, np.float64), np.asarray(written, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(written))
    ok = ~np.isnan(written)
    np.testing.assert_allclose(got[ok], written[ok], rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(got[finite_rows], want[finite_rows], rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("v", [100, 1029, 2053, 2309])
def test_cross_entropy_scalar_form(v, monkeypatch):
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    bv = 256
    x, finite = _rows(v, bv)
    x = _bf16(x)
    labels = np.array([3, -100, 5, 7, v - 1, 0], np.int64)
    spec = [((6, v), "bfloat16"), ((6,), "int64"), ((6,), "float32"), ((1,), "float32"), ((1,), "int32"), -100, bv]
    inputs = {0: x, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)}
    got = _run(f"ce_online_{v}", kernel, spec, (6,), inputs, monkeypatch, True)
    written = _run(f"ce_online_{v}", kernel, spec, (6,), inputs, monkeypatch, False)
    _same_as_written(got[2], written[2], finite, _lse(x))
    assert got[4][0] == written[4][0] == 5
    assert np.isnan(got[3][0]) == np.isnan(written[3][0])


@pytest.mark.parametrize("v", [200, 2056])
def test_logsumexp_reshaped_tile(v, monkeypatch):
    from tileorch.testing.user_programs3 import logsumexp_online as kernel

    bv = 256
    x, finite = _rows(v, bv, seed=1)
    spec = [((6, v), "float32"), ((6,), "float32"), bv]
    got = _run(f"lse_online_{v}", kernel, spec, (6,), {0: x}, monkeypatch, True)
    written = _run(f"lse_online_{v}", kernel, spec, (6,), {0: x}, monkeypatch, False)
    _same_as_written(got[1], written[1], finite, _lse(x))


def test_log_softmax_keepdims_two_passes(monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    v, bv = 2312, 256
    x, finite = _rows(v, bv, seed=2)
    x = _bf16(x)
    spec = [((6, v), "bfloat16"), ((6, v), "bfloat16"), bv]
    got = _run("lsm_online", kernel, spec, (6,), {0: x}, monkeypatch, True)
    written = _run("lsm_online", kernel, spec, (6,), {0: x}, monkeypatch, False)
    want = x - _lse(x)[:, None]
    g, w = np.asarray(got[1], np.float64), np.asarray(written[1], np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    np.testing.assert_allclose(g[ok], w[ok], rtol=1e-2, atol=1e-2)  # bf16 outputs: one ulp apart at most
    fin = np.array(finite)
    np.testing.assert_allclose(g[fin], want[fin], rtol=1e-2, atol=5e-2)


def test_log_softmax_axis1_form_f16(monkeypatch):
    """Sweep 6's form: ``ct.max(x, axis=1)`` into a ``(1,)`` running max, ``m2[:, None]`` broadcast."""
    from tileorch.testing.user_programs6 import log_softmax_two_pass as kernel

    v, bv = 2100, 256
    x, finite = _rows(v, bv, seed=3)
    x16 = x.astype(np.float16)
    spec = [((6, v), "float16"), ((6, v), "float32"), bv]
    got = _run("lsm2_online", kernel, spec, (6,), {0: x16}, monkeypatch, True)
    written = _run("lsm2_online", kernel, spec, (6,), {0: x16}, monkeypatch, False)
    want = x16.astype(np.float64) - _lse(x16)[:, None]
    g, w = np.asarray(got[1], np.float64), np.asarray(written[1], np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    np.testing.assert_allclose(g[ok], w[ok], rtol=2e-6, atol=2e-6)
    fin = np.array(finite)
    np.testing.assert_allclose(g[fin], want[fin], rtol=2e-6, atol=2e-6)


def test_cross_entropy_forward_backward_keepdims(monkeypatch):
    """Sweep 10's fused forward / backward: the running max and sum as ``(1, 1)`` tiles, then a
    gathered target and a second loop writing the gradient from the log-sum-exp."""
    from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab as kernel

    v, bv = 2310, 256
    x, finite = _rows(v, bv, seed=4)
    x16 = x.astype(np.float16)
    labels = np.array([3, -100, 5, 7, v - 1, 0], np.int64)
    spec = [((6, v), "float16"), ((6,), "int64"), ((6,), "float32"), ((6, v), "float16"), -100, 0.125, bv]
    got = _run("cefb_online", kernel, spec, (6,), {0: x16, 1: labels}, monkeypatch, True)
    written = _run("cefb_online", kernel, spec, (6,), {0: x16, 1: labels}, monkeypatch, False)
    lse = _lse(x16)
    keep = labels != -100
    want_loss = np.where(keep, lse - x16.astype(np.float64)[np.arange(6), np.where(keep, labels, 0)], 0.0)
    _same_as_written(got[2], written[2], finite, want_loss)
    g, w = np.asarray(got[3], np.float64), np.asarray(written[3], np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    np.testing.assert_allclose(g[ok], w[ok], rtol=1e-3, atol=1e-6)  # f16 gradients
