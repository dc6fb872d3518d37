"""``TILEORCH_SIMT_CTAS_PER_SM=N`` (``tileaa_to_simt/occupancy_cap.py``): a SIMT kernel asks for the dynamic shared
memory that leaves room for at most ``N`` CTAs per SM, never less than its exchanges need, and computes what
it computed (PTX emulator against numpy, NaN-prefilled outputs, ragged rows).  Needs cuda-tile and ml_dtypes,
no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402
from tileorch.transforms.tileaa_to_simt import occupancy_cap  # noqa: E402

H100_SMEM, RESERVED, MAX_CTA_SMEM = 228 * 1024, 1024, 227 * 1024


def _compile(kernel, spec, cap, monkeypatch):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    # the cap's own shared memory only: no row cache (its slots and the bulk fill's barriers are the default's
    # scratch since session 31: TILEORCH_ROW_SMEM_CACHE=auto, TILEORCH_ROW_BULK_FILL=1)
    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", "0")
    if cap is None:
        monkeypatch.delenv("TILEORCH_SIMT_CTAS_PER_SM", raising=False)
    else:
        monkeypatch.setenv("TILEORCH_SIMT_CTAS_PER_SM", str(cap))
    return compile_once(cutile_bytecode(kernel, spec), "cap_probe", arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 6, 8, 16])
def test_reserve_fits_n_ctas_not_more(cap, monkeypatch):
    """Against the H100/H200's 228 KiB per SM, 1 KiB kept per CTA and 227 KiB per CTA at most."""
    monkeypatch.setenv("TILEORCH_SIMT_CTAS_PER_SM", str(cap))
    got = occupancy_cap.reserve(90, 100)
    assert got % 128 == 0 and got <= MAX_CTA_SMEM
    assert cap * (got + RESERVED) <= H100_SMEM < (cap + 1) * (got + RESERVED)


def test_no_cap_asks_for_what_the_kernel_needs(monkeypatch):
    monkeypatch.delenv("TILEORCH_SIMT_CTAS_PER_SM", raising=False)
    assert occupancy_cap.reserve(90, 532) == 532
    monkeypatch.setenv("TILEORCH_SIMT_CTAS_PER_SM", "16")
    assert occupancy_cap.reserve(90, 100_000) == 100_000  # an exchange needing more keeps its bytes


def test_log_softmax_capped(monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    v = 9 * 64 - 5
    x = (np.random.default_rng(6).standard_normal((3, v)) * 3).astype(np.float32)
    x = (x.view(np.uint32) & 0xFFFF0000).view(np.float32)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), 64]
    plain = _compile(kernel, spec, None, monkeypatch)
    assert plain.smem == 0 and not any("CTAs per SM: each asks" in r for r in plain.remarks)
    prog = _compile(kernel, spec, 4, monkeypatch)
    assert prog.smem == (H100_SMEM // 4 - RESERVED - 128) // 128 * 128
    assert any("at most 4 CTAs per SM" in r for r in prog.remarks), prog.remarks
    assert ".extern .shared" in prog.ptx
    monkeypatch.setattr(s10e, "PROGRAMS", {"cap_probe": UserProgram(kernel, spec, (3,), "simt")})
    got = np.asarray(s10e.emulate("cap_probe", {0: x})[1], np.float64)
    want = x - np.log(np.exp(x.astype(np.float64)).sum(1))[:, None]
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=5e-2)
