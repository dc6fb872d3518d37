"""Session 44's attention forms on the GPU: query rows routed by an index vector (``attnforms44_programs``: the
consumer warp groups gather Q into the swizzled Q tile, K / V by TMA) through ``tileorch.cutile.launch``
(test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer whose tail must stay unwritten) on the table's
ragged sizes, against torch float32 ``F.scaled_dot_product_attention`` of ``Q[Idx]``, and the path the table names
(test_user_sweep_gpu.check_path; the program putting O back by ``ct.scatter``: its rows ``Idx`` compared, the
others must stay NaN).  The sink-arrays form (a dot before the loop) runs in test_attnsweep43_gpu.py
(``a43_sink_block_dot_before``) and test_user_sweep6_gpu.py (``attn_learned_sink_kv``), now on the chained tier.
bf16 programs run in bf16.  Skipped without a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attnforms44_programs import PROGRAMS, inputs  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_routed_queries_on_the_gpu(name):
    p = PROGRAMS[name]
    seeds = iter(range(7, 100))
    x = inputs(name, lambda shape, dt: randn(shape, dt, next(seeds)), lambda a: torch.from_numpy(a).cuda())
    args = run(name, x)
    idx = x[1].long()
    q = x[0][idx].transpose(0, 1).float()  # [H, n, D]
    ref = torch.nn.functional.scaled_dot_product_attention(q, x[2].float(), x[3].float(),
                                                           scale=p.spec[5] / 1.4426950408889634)
    out = args[4]
    if out.shape[0] != idx.shape[0]:  # O [T, H, D] written back at the tokens' rows, the other rows untouched
        others = torch.ones(out.shape[0], dtype=torch.bool, device=out.device)
        others[idx] = False
        assert torch.isnan(out[others]).all()
        out = out[idx]
    close(out, ref.transpose(0, 1), **TOL[p.spec[0][1]])
    sweep.check_path(name, args)
