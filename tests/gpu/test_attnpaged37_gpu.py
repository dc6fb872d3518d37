"""Session 37's paged-KV / decode set on the GPU: every program of ``tileorch.testing.attnpaged37_programs`` runs
through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer whose tail
must stay unwritten) on its spec's sizes, against the float64 reference of ``tileorch.testing.attnpaged37_refs``
(written from the programs' docstrings; the same inputs copied to the host), and takes the path its table entry names
(every one chained but the split-KV combine).  The decode kernels whose page is a key tile, the ``ct.cat``-joined
pages and the slot-by-slot gather (4-D cache) are checked against torch's ``F.scaled_dot_product_attention`` (fp32)
on the K / V gathered through the block table too.  bf16 programs run in bf16.  Skipped without a GPU; needs torch
and cuda-tile.
Run: ``python -m pytest -q tests/gpu/test_attnpaged37_gpu.py``."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing import attnpaged37_programs as P  # noqa: E402
from tileorch.testing.attnpaged37_programs import PROGRAMS  # noqa: E402
from tileorch.testing.attnpaged37_refs import gathered_kv, inputs, reference  # noqa: E402
from tileorch.testing.user_programs import LOG2E  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2),
       "float32": dict(atol=3e-3, rtol=1e-2)}


def _inputs(name):
    seeds = iter(range(1, 100))
    return inputs(name, lambda shape, dt: randn(shape, dt, next(seeds)), lambda a: torch.from_numpy(a).cuda())


def _host(t):
    return (t.float() if t.is_floating_point() else t).cpu().numpy()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_on_the_gpu(name):
    p = PROGRAMS[name]
    x = _inputs(name)
    host = {i: _host(t) for i, t in x.items()}
    refs = reference(name, host)
    args = run(name, x)
    dt = p.spec[0][1]
    for pos, ref in refs.items():
        got = args[pos]
        nan = np.isnan(ref)
        if nan.any():  # split-KV partials of a split without keys: NaN rows (0 / 0), LSE -inf
            assert np.array_equal(np.isnan(_host(got)), nan), f"argument {pos}: NaN where the reference has none"
            got, ref = got[torch.from_numpy(~nan).cuda()], ref[~nan]
        close(got, torch.from_numpy(np.ascontiguousarray(ref)).cuda(), **TOL[dt])
    if p.kernel in (P.p37_decode_page_gather, P.p37_decode_page_item, P.p37_decode_pages_cat,
                    P.p37_decode_slot_gather):
        q = x[0].float()
        lens = host[4]
        hkv = p.spec[1][0][2]
        g = q.shape[1] // hkv
        for b in range(q.shape[0]):
            for h in range(hkv):
                k, v = (torch.from_numpy(a).cuda() for a in gathered_kv(name, host, b, h, int(lens[b])))
                sdpa = torch.nn.functional.scaled_dot_product_attention(
                    q[b, h * g:(h + 1) * g][None], k.float()[None], v.float()[None],
                    scale=p.spec[6] / LOG2E)[0]
                close(args[5][b, h * g:(h + 1) * g].float(), sdpa, **TOL[dt])
    sweep.check_path(name, args)
