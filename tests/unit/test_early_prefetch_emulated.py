"""``TILEORCH_EARLY_PREFETCH=1`` (tileaa_to_simt/early_prefetch.py: a prefetching loop's first loads
issued right after the last op of its block they depend on or that writes memory) on the PTX
emulator: the online softmax programs of test_online_softmax_emulated.py (a cross entropy with
atomics at one tile and at ragged widths, a 1-D logsumexp, a two-pass log-softmax, a fused cross
entropy forward / backward), whose peeled first tile reduces across the CTA before the loop, run
through that file's tests under the switch: NaN-prefilled outputs, -inf / +inf / NaN rows against
the loop as written, finite rows against numpy.  The cross entropy's PTX then issues the loop's
first tile load before the peel's first shuffle (default: after its two CTA reductions).  Needs
cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_online_softmax_emulated as online  # noqa: E402


@pytest.fixture(autouse=True)
def _early(monkeypatch):
    monkeypatch.setenv("TILEORCH_EARLY_PREFETCH", "1")
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX_FORM", "thread")
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX_EXP", "ex2")


@pytest.mark.parametrize("v", [1029, 2309])
def test_cross_entropy(v, monkeypatch):
    online.test_cross_entropy_scalar_form(v, monkeypatch)


def test_logsumexp(monkeypatch):
    online.test_logsumexp_reshaped_tile(2056, monkeypatch)


def test_log_softmax_two_passes(monkeypatch):
    online.test_log_softmax_keepdims_two_passes(monkeypatch)


def test_cross_entropy_forward_backward(monkeypatch):
    online.test_cross_entropy_forward_backward_keepdims(monkeypatch)


@pytest.mark.parametrize("early", ["1", "0"])
def test_first_loop_load_before_the_peels_reduction(early, monkeypatch):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    monkeypatch.setenv("TILEORCH_EARLY_PREFETCH", early)
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX", "1")
    spec = [((6, 4096), "bfloat16"), ((6,), "int64"), ((6,), "float32"), ((1,), "float32"), ((1,), "int32"), -100, 1024]
    ptx = compile_once(cutile_bytecode(kernel, spec), "ce_early", arch="sm_90a", ptxas=False).ptx
    vector_loads = [i for i, line in enumerate(ptx.splitlines()) if "ld.global.v4" in line]
    first_shuffle = next(i for i, line in enumerate(ptx.splitlines()) if "shfl.sync" in line)
    # the peel's tile and the loop's first tile (each a vector load under three paddings' fill values)
    before = sum(i < first_shuffle for i in vector_loads)
    assert before == (6 if early == "1" else 3), (before, len(vector_loads))
