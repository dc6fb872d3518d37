"""Session 45's varlen attention (``tileorch.testing.varlen45_programs``, issue 20): Q, K and V gathered at
``start + positions`` under a row mask, O scattered back, on the chained tier through ``tileas-row-window-gather``
(row windows loaded by TMA at a dynamic row, the rows past a window's end zeroed in shared memory).  Each chained
kernel's PTX runs on the CPU (``tileorch.testing.ptx_emulator``: every CTA, the launcher's tensor maps) against numpy
float64 per sequence, O NaN-prefilled, **Inf, -Inf and NaN planted in every row after a sequence's used rows** (what
TMA reads for the tile that straddles a sequence's end): a kernel that let one of them into a WGMMA, or wrote a row no
sequence uses, fails.  The emulator's WGMMA is f16: a bf16 program runs as its f16 twin (its bf16 form compiles here
and runs on the GPU in tests/gpu/test_varlen45_gpu.py).  Also session 43's ``a43_varlen_gathered_d64`` with Inf / NaN
past its last sequence.  CI runs :data:`QUICK`; ``TILEORCH_EMULATE_ALL=1`` every program.  Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing import varlen45_programs  # noqa: E402
from tileorch.testing.varlen45_programs import PROGRAMS, inputs, reference  # noqa: E402

RNG = np.random.default_rng(45020)
SOURCE = str(Path(varlen45_programs.__file__))
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
QUICK = {"a45_short_d64", "a45_padded_keys_d64", "a45_no_exit_d64"}
"""The programs CI emulates (the rest with ``TILEORCH_EMULATE_ALL=1``)."""
CHAINED = sorted(n for n, p in PROGRAMS.items() if p.path == "chained")


@pytest.fixture(autouse=True)
def _sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _make(shape, dtype):
    return RNG.standard_normal(shape).astype(np.float16)  # (bf16: f16 twins)


def _check(got, ref):
    got = np.asarray(got, np.float64)
    owned = ~np.isnan(ref)
    assert owned.any()
    assert not np.isnan(got[owned]).any(), "a used row unwritten (or NaN): an Inf / NaN row reached a WGMMA?"
    assert np.isnan(got[~owned]).all(), "a row no sequence uses was written"
    np.testing.assert_allclose(got[owned], ref[owned], atol=3e-3, rtol=1e-2)


@pytest.mark.parametrize("name", CHAINED)
def test_varlen_program_matches_numpy(name):
    if name not in QUICK and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every program")
    x = inputs(name, _make)
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    out = s3._chained(key, x, tuple(PROGRAMS[name].grid))
    _check(out[5], reference(name, x))


@pytest.mark.skipif(not ALL, reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it")
def test_a43_varlen_gathered_with_poison_past_the_last_sequence(monkeypatch):
    """Session 43's program (sequences back to back, ``n = CuSeq[b + 1] - start``) on the chained tier: Inf / NaN in
    the rows past the last sequence (the buffer is 8 rows longer than the sequences) are never read as values."""
    from tileorch.testing import attnsweep43_refs as R
    from tileorch.testing.attnsweep43_programs import PROGRAMS as P43
    from tileorch.testing.attnsweep43_programs import VARLEN

    p = P43["a43_varlen_gathered_d64"]
    t = sum(VARLEN) + 8
    p = dataclasses.replace(p, spec=[((t, 2, 64), "float16")] * 3 + [p.spec[3], ((t, 2, 64), "float16")] +
                            list(p.spec[5:]))
    s4.add_sweep_programs(monkeypatch, {"a43_varlen_poisoned": p})
    x = {i: _make((t, 2, 64), "float16") for i in range(3)}
    for i in range(3):
        x[i][sum(VARLEN):] = np.inf
        x[i][sum(VARLEN) + 1::2] = np.nan
    x[3] = R.cu_seqlens()
    out = s3._chained("a43_varlen_poisoned", x, tuple(p.grid))
    ref = np.full((t, 2, 64), np.nan)
    cu = R.cu_seqlens().tolist()
    for a, b in zip(cu[:-1], cu[1:]):
        for h in range(2):
            ref[a:b, h] = varlen45_programs._attn(x[0][a:b, h], x[1][a:b, h], x[2][a:b, h], 1 / 8, True)
    _check(out[4], ref)


def _proofs(module):
    from tileorch.analysis.extract import extract
    from tileorch.testing.check_memo import check_once as check

    return [(r.ok, str(r.violation)) for r in (check(p) for p in extract(module))]


@pytest.mark.parametrize("name", ["a45_short_d64", "a45_causal_d128", "a45_causal_bm128_d64", "a45_no_exit_d64",
                                  "a45_q_dense_kv_d64"])
def test_row_window_kernel_takes_the_tier_and_is_proved(name):
    """The chained kernel (remarks at Q's, K's and V's gathers), and ``tileorch check`` proves its pipelines with the
    zeroing of the rows past a window's end (generic stores, ``fence.proxy.async``, the warp group's named barrier)
    in the consumers.  CI: the short sequences' d64 kernel."""
    if name != "a45_short_d64" and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 proves it")
    import inspect

    from tileorch.testing.compile_memo import compile_once_deriving
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    prog, proved = compile_once_deriving(cutile_bytecode(p.kernel, p.spec), name, _proofs, "varlen45-proofs",
                                         arch="sm_90a", ptxas=False)
    assert prog.kind == "chained", list(prog.remarks)
    src, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    for text, what in (("q = ct.gather(Q", "Q"), ("k = ct.gather(K", "K / V"), ("v = ct.gather(V", "K / V")):
        lines = [first + i for i, ln in enumerate(src) if text in ln]  # (the dense context: no K / V gather)
        assert lines or what != "Q"
        assert all(any(r.startswith(f"{SOURCE}:{line}:") and f"{what} rows gathered at consecutive rows" in r
                       for r in prog.remarks) for line in lines), (text, list(prog.remarks))
    assert proved and all(ok for ok, _ in proved), proved


def test_keys_not_at_consecutive_rows_stay_refused_at_their_gather():
    """``start + 2 positions`` is no contiguous box: left to the refusal at K's gather (located), the SIMT path."""
    import inspect

    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["a45_strided_keys_d64"]
    prog = lower_once(cutile_bytecode(p.kernel, p.spec), "a45_strided_keys_d64", arch="sm_90a")
    assert prog.kind == "simt"
    src, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(src) if "k = ct.gather(K" in ln)
    refusals = [r for r in prog.remarks if "refused" in r]
    assert any(r.startswith(f"{SOURCE}:{line}:") and "gathered" in r for r in refusals), list(prog.remarks)


@pytest.mark.parametrize("name", ["a45_causal_bf16_d64", "a45_gqa_bf16_d128"])
def test_bf16_programs_take_the_tier(name):
    """The bf16 programs themselves (the emulator runs their f16 twins) lower to the chained kernel, bf16 WGMMAs, with
    the row windows' remarks.  CI: the d64 one."""
    if name != "a45_causal_bf16_d64" and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 lowers it")
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    prog = lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")
    assert prog.kind == "chained", list(prog.remarks)
    assert sum("rows gathered at consecutive rows" in r for r in prog.remarks) == 3, list(prog.remarks)
    assert prog.kernel.endswith("_bf16"), prog.kernel


def test_a_padded_query_window_is_refused_at_its_gather():
    """16-row query tiles (the WGMMA's 64 rows padded): the kernel zeroes a Q window's rows only in whole 64-row warp
    group tiles, so the window is refused, located at Q's gather (the SIMT path), never zeroed at the wrong rows."""
    import inspect

    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["a45_full_d64"]
    spec = list(p.spec)
    spec[7] = 16  # BM
    prog = lower_once(cutile_bytecode(p.kernel, spec), "a45_full_d64_bm16", arch="sm_90a")
    assert prog.kind == "simt"
    src, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(src) if "q = ct.gather(Q" in ln)
    assert any(r.startswith(f"{SOURCE}:{line}:") and "is a row window of its array" in r and "padded" in r
               for r in prog.remarks), list(prog.remarks)
