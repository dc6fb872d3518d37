"""Session 45's varlen attention on the GPU (``varlen45_programs``: Q, K, V gathered at ``start + positions`` under a
row mask, O scattered back; the chained tier loads row windows by TMA and zeroes the rows past a window's end in shared
memory) through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: O NaN-prefilled inside a larger buffer whose tail
must stay unwritten), **Inf, -Inf and NaN planted in every row after a sequence's used rows**, against torch float32
``F.scaled_dot_product_attention`` per sequence (KV head ``h // G``); the rows no sequence uses must stay NaN; the path
the table names (test_user_sweep_gpu.check_path).  Also session 43's ``a43_varlen_gathered_d64``.  bf16 programs run
in bf16.  Skipped without a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import run  # noqa: E402

from tileorch.testing.varlen45_programs import LENS, PROGRAMS, WHICH, a45_varlen_causal, cu_seqlens, inputs  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}
DT = {"float16": torch.float16, "bfloat16": torch.bfloat16}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_varlen_on_the_gpu(name):
    p = PROGRAMS[name]
    rng = np.random.default_rng(45)
    x = inputs(name, lambda shape, dt: rng.standard_normal(shape).astype(np.float32))
    dt = p.spec[0][1]
    t = {i: torch.from_numpy(x[i]).cuda().to(DT[dt]) for i in range(3)}
    t[3], t[4] = torch.from_numpy(x[3]).cuda(), torch.from_numpy(x[4]).cuda()
    args = run(name, t)
    out = args[5]
    h, hk = t[0].shape[1], t[1].shape[-2]
    owned = torch.zeros(out.shape[0], dtype=torch.bool, device=out.device)
    causal = p.kernel is a45_varlen_causal
    for bi, ((n, _), a) in enumerate(zip(LENS[WHICH[name]], cu_seqlens(LENS[WHICH[name]])[:-1].tolist())):
        if not n:
            continue
        owned[a:a + n] = True
        q = t[0][a:a + n].transpose(0, 1).float()
        step = 2 if name == "a45_strided_keys_d64" else 1  # (its keys: every other row of the sequence)
        rows = (lambda x: x[bi]) if t[1].dim() == 4 else (lambda x: x[a:a + n:step])  # a dense context: batch bi's
        k = rows(t[1]).transpose(0, 1).float().repeat_interleave(h // hk, 0)
        v = rows(t[2]).transpose(0, 1).float().repeat_interleave(h // hk, 0)
        if name == "a45_padded_keys_d64":  # no key mask: the zero keys / values to whole 64-key tiles count
            pad = -(-n // 64) * 64 - n
            k, v = (torch.cat([x, x.new_zeros(x.shape[0], pad, x.shape[2])], 1) for x in (k, v))
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                               scale=p.spec[6] / 1.4426950408889634)
        got = out[a:a + n].transpose(0, 1)
        assert not torch.isnan(got).any(), f"{name}: sequence at {a} unwritten (or an Inf / NaN row reached it)"
        torch.testing.assert_close(got.double(), ref.double(), **TOL[dt])
    assert torch.isnan(out[~owned]).all(), f"{name}: a row no sequence uses was written"
    sweep.check_path(name, args)


def test_a43_varlen_gathered_on_the_gpu():
    """Session 43's program (sequences back to back) on the chained tier (was SIMT), vs torch float32 per sequence."""
    from tileorch.testing import attnsweep43_refs as R
    from tileorch.testing.attnsweep43_programs import PROGRAMS as P43

    sweep.PROGRAMS.update({"a43_varlen_gathered_d64": P43["a43_varlen_gathered_d64"]})
    p = P43["a43_varlen_gathered_d64"]
    g = torch.Generator(device="cuda").manual_seed(43)
    t = {i: torch.randn(p.spec[i][0], device="cuda", generator=g).half() for i in range(3)}
    t[3] = torch.from_numpy(R.cu_seqlens()).cuda()
    args = run("a43_varlen_gathered_d64", t)
    cu = R.cu_seqlens().tolist()
    for a, b in zip(cu[:-1], cu[1:]):
        q, k, v = (t[i][a:b].transpose(0, 1).float() for i in range(3))
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1 / 8)
        torch.testing.assert_close(args[4][a:b].transpose(0, 1).double(), ref.double(), **TOL["float16"])
    sweep.check_path("a43_varlen_gathered_d64", args)
