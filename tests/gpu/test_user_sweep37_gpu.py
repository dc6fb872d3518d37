"""The thirty-seventh user sweep on the GPU: every program of ``tileorch.testing.user_programs37`` (attention-shaped
and two-dot cuTile programs) runs through ``tileorch.cutile.launch`` on its spec's ragged shapes and grid
(sweep_harness.gpu_run: every array inside a larger buffer of the fill, outputs NaN, whose tail must stay the fill;
the path the program compiles to AND the path its launch ran checked against its table entry), against the float64
numpy reference of ``tileorch.testing.user_programs37_refs`` (written from the programs' docstrings; the same inputs,
bf16 ones rounded to bf16 first).  bf16 programs run in bf16.  Then the cuTile samples' forward against torch's
``F.scaled_dot_product_attention`` (fp32, an explicit bottom-right causal mask) on the sweep's shapes and at size
(B 2, H 8, S 2048, head dim 128, causal, bf16).  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run:
``python -m pytest -q tests/gpu/test_user_sweep37_gpu.py``."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
ml_dtypes = pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' helpers (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import launch_path  # noqa: E402
from tileorch.testing import user_programs37 as P  # noqa: E402
from tileorch.testing.user_programs37 import PROGRAMS  # noqa: E402
from tileorch.testing.user_programs37_refs import inputs, reference, scale_of  # noqa: E402

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}


def _inputs(name):
    """Program ``name``'s inputs as host numpy arrays: f16 as float16, bf16 as float32 values already rounded to bf16
    (what the launch's bf16 array holds), f32 / integers as they are."""
    p = PROGRAMS[name]
    rng = np.random.default_rng(3745 + sorted(PROGRAMS).index(name))
    x = inputs(name, lambda shape, dt: rng.standard_normal(shape).astype(np.float32), lambda a: a)
    for i, v in x.items():
        dt = p.spec[i][1]
        if dt == "float16":
            x[i] = np.asarray(v, np.float16)
        elif dt == "bfloat16":
            x[i] = np.asarray(v, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
    return x


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_on_the_gpu_against_numpy(name):
    p = PROGRAMS[name]
    x = _inputs(name)
    refs = reference(name, x)
    out = sweep_harness.gpu_run(PROGRAMS, name, x)
    dt = next(s[1] for s in p.spec if isinstance(s, tuple))
    for pos, ref in refs.items():
        got = np.asarray(out[pos], np.float64)
        assert not np.isnan(got).any(), f"{name}: argument {pos} unwritten (NaN)"
        np.testing.assert_allclose(got, ref, **TOL[dt])


def _sdpa(q, k, v, scale, offset=None):
    """torch's SDPA in fp32 (K / V heads repeated to Q's), with an explicit bottom-right causal mask of query offset
    ``offset`` (None: not causal)."""
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, 1).float(), v.repeat_interleave(g, 1).float()
    mask = None
    if offset is not None:
        sq, sk = q.shape[2], k.shape[2]
        mask = torch.arange(sk, device="cuda")[None, :] <= torch.arange(sq, device="cuda")[:, None] + offset
    return torch.nn.functional.scaled_dot_product_attention(q.float(), k, v, attn_mask=mask, scale=scale)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.kernel is P.s37_fmha_sample))
def test_the_samples_forward_against_sdpa(name):
    """The cuTile samples' forward (query offset, GQA, K by ``order``, EVEN_K / CAUSAL constants) on its spec's
    shapes against torch's SDPA (fp32)."""
    p = PROGRAMS[name]
    dt = getattr(torch, p.spec[0][1])
    q, k, v = (torch.randn(p.spec[i][0], device="cuda", generator=_gen(3770 + i)).to(dt) for i in range(3))
    o = torch.full(p.spec[3][0], float("nan"), device="cuda", dtype=dt)
    args = (q, k, v, o) + tuple(p.spec[4:])
    launch_path.checked_launch(name, p.path, p.kernel, p.grid, args, lambda: _launch(p.grid, p.kernel, args))
    pos, causal = p.spec[5], p.spec[11]
    ref = _sdpa(q, k, v, scale_of(name), pos if causal else None)
    torch.testing.assert_close(o.float(), ref, **TOL[p.spec[0][1]])


def test_the_samples_causal_forward_at_size_against_sdpa():
    """B 2, H 8, S 2048, head dim 128, causal, bf16, 128-row query tiles (the samples' benchmark setting): the launch
    must run the chained tier; against torch's SDPA (fp32)."""
    name = "s37_fmha_sample_causal_d128_bf16_tile128"
    p = PROGRAMS[name]
    b, h, s, d = 2, 8, 2048, 128
    q, k, v = (torch.randn((b, h, s, d), device="cuda", generator=_gen(3780 + i)).bfloat16() for i in range(3))
    o = torch.full((b, h, s, d), float("nan"), device="cuda", dtype=torch.bfloat16)
    grid = (math.ceil(s / 128), b * h)
    args = (q, k, v, o, 1 / math.sqrt(d), 0, d, h, 128, 64, 1, True, True)
    launch_path.checked_launch(name, p.path, p.kernel, grid, args, lambda: _launch(grid, p.kernel, args))
    torch.testing.assert_close(o.float(), _sdpa(q, k, v, 1 / math.sqrt(d), 0), **TOL["bfloat16"])


def test_a_decode_tiles_second_output_is_stored_in_the_programs_rows_only():
    """The 16-row decode linear with its pre-activation H (C) and silu(H) into a Y of 40 rows (X and H of 5): the
    launch runs the GEMM tier, Y's rows 0..4 are silu(x W), rows 5..15 silu(0) = 0 (the program's tile), rows 16..39
    stay NaN."""
    import dataclasses

    name = "s37_decode_linear_pre_and_post_activation"
    p = PROGRAMS[name]
    wide = dataclasses.replace(p, spec=[*p.spec[:3], ((40, 200), "float16"), *p.spec[4:]])
    x = _inputs(name)
    out = sweep_harness.gpu_run({**PROGRAMS, name: wide}, name, x)
    h = np.asarray(x[0], np.float64) @ np.asarray(x[1], np.float64)
    got = np.asarray(out[3], np.float64)
    np.testing.assert_allclose(got[:5], h / (1 + np.exp(-h)), **TOL["float16"])
    assert (got[5:16] == 0).all() and np.isnan(got[16:]).all()
