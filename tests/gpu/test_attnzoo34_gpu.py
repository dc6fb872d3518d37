"""Session 34's GQA zoo on the GPU: every program of ``tileorch.testing.attnzoo34_programs`` (query-head loops,
stacked two heads a chain by ``tileas-stack-query-heads`` or left as written) runs through ``tileorch.cutile.launch``
(test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer whose tail must stay unwritten) against a
torch float32 reference, on the path its table names; the stacked ones also with the rewrite off (the kernel before
session 34).  Skipped without a GPU; needs torch and cuda-tile.
Run: ``python -m pytest -q tests/gpu/test_attnzoo34_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attnzoo34_programs import PROGRAMS, STACKED  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there


def _reference(name, q, k, v, slopes=None):
    g = q.shape[1] // k.shape[1]
    kk, vv = k.float().repeat_interleave(g, dim=1), v.float().repeat_interleave(g, dim=1)
    s = (q.float() @ kk.transpose(-1, -2)) * 0.125
    sq, sk = q.shape[2], k.shape[2]
    qi, kj = torch.arange(sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]
    if "alibi" in name:
        h = torch.arange(q.shape[1], device="cuda")[:, None, None]
        slope = torch.exp2(-8.0 * (h + 1) / q.shape[1]) if slopes is None else slopes.float()[:, None, None]
        s = s + (slope * (kj - qi)).float() / 1.4426950408889634  # (the program's slope is in log2 units)
    if "causal" in name or "alibi" in name:
        s = s.masked_fill(kj > qi, float("-inf"))
    return torch.softmax(s, -1) @ vv


@pytest.mark.parametrize("stack", ["1", "0"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gqa_heads_loop(monkeypatch, name, stack):
    if stack == "0" and not STACKED[name]:  # (STACKED: the heads a chain, 0 where left as written)
        pytest.skip("left as written: the same kernel either way")
    monkeypatch.setenv("TILEORCH_ATTN_STACK_HEADS", stack)
    from tileorch.launchers.cutile_bound import clear
    from tileorch.launchers.cutile_native import forget

    clear()  # (a bound launch is keyed by the arguments, not the switch: the other variant's would run)
    forget()
    spec = PROGRAMS[name].spec
    q, k, v = (randn(spec[i][0], spec[i][1], i) for i in range(3))
    if name.endswith("_table"):  # (ALiBi slopes read from a table at the query head)
        slopes = torch.tensor([0.5, -0.25, 0.125, 0.75], device="cuda")
        args = run(name, {0: q, 1: k, 2: v, 3: slopes})
        close(args[4], _reference(name, q, k, v, slopes), atol=3e-3, rtol=1e-2)
        return
    args = run(name, {0: q, 1: k, 2: v})
    close(args[3], _reference(name, q, k, v), atol=3e-3, rtol=1e-2)
