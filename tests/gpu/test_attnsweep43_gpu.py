"""Session 43's attention-shaped sweep on the GPU: every program of ``tileorch.testing.attnsweep43_programs`` runs
through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer whose tail
must stay unwritten) on its spec's ragged sizes, against the float64 reference of
``tileorch.testing.attnsweep43_refs`` (written from the program's docstring; the same inputs copied to the host), and
takes the path its table entry names, the launch's path included (test_user_sweep_gpu.check_path; the refused ones
run on the SIMT path here).  The GQA, cross-attention and Q-pre-scaled kernels are checked against torch's
``F.scaled_dot_product_attention`` (fp32) too.  bf16 programs run in bf16.  Skipped without a GPU; needs torch and
cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_attnsweep43_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing import attnsweep43_programs as P  # noqa: E402
from tileorch.testing.attnsweep43_programs import PROGRAMS  # noqa: E402
from tileorch.testing.attnsweep43_refs import inputs, reference, scale_of  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}


def _inputs(name):
    seeds = iter(range(1, 100))
    return inputs(name, lambda shape, dt: randn(shape, dt, next(seeds)), lambda a: torch.from_numpy(a).cuda())


def _host(t):
    return (t.float() if t.is_floating_point() else t).cpu().numpy()


def _sdpa(q, k, v, causal, scale):
    return torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal,
                                                            scale=scale)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_on_the_gpu(name):
    p = PROGRAMS[name]
    x = _inputs(name)
    refs = reference(name, {i: _host(t) for i, t in x.items()})
    args = run(name, x)
    dt = p.spec[0][1]
    for pos, ref in refs.items():
        got = args[pos]
        # (an f32 output of a bf16 program carries bf16's rounding of P: bf16's tolerance)
        tol = TOL[dt] if got.dtype != torch.float32 or dt == "bfloat16" else dict(atol=3e-3, rtol=1e-3)
        close(got, torch.from_numpy(ref).cuda(), **tol)
    if p.kernel is P.a43_gqa_causal:
        g = x[0].shape[1] // x[1].shape[1]
        close(args[3], _sdpa(x[0], x[1].repeat_interleave(g, 1), x[2].repeat_interleave(g, 1), True,
                             scale_of(name)), **TOL[dt])
    if p.kernel in (P.a43_cross_lse_natural, P.a43_q_prescaled):
        close(args[3], _sdpa(x[0], x[1], x[2], p.kernel is P.a43_q_prescaled, scale_of(name)), **TOL[dt])
    sweep.check_path(name, args)
