"""The fourth attention set on the GPU: the programs of ``tileorch.testing.attention_programs4`` run
through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger
buffer whose tail must stay unwritten) against an independent torch float32 reference, and take the
path their table entry names.  The backward: the preprocess, dK/dV and dQ kernels chained as a
training step uses them (M and delta from torch), every head dim / type / causal entry.  Skipped
without a GPU; needs torch and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_attention_programs4.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attention_programs4 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}
LOG2E = 1.4426950408889634


def _check_path(name, args):
    sweep.check_path(name, args)  # (the compile's path and the launch's: tileorch.testing.launch_path)


def _reference_grads(q, k, v, do, scale, causal):
    qf, kf, vf = (x.float().requires_grad_() for x in (q, k, v))
    s = (qf @ kf.transpose(-1, -2)) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    p = torch.softmax(s, -1)
    o = p @ vf
    o.backward(do.float())
    lse2 = torch.logsumexp(s, -1).detach() * LOG2E
    return o.detach(), lse2, qf.grad, kf.grad, vf.grad


BWD = sorted(n[len("bwd_dkdv_"):] for n in PROGRAMS if n.startswith("bwd_dkdv_d"))


@pytest.mark.parametrize("variant", BWD)
def test_backward(variant):
    """delta (preprocess, on O from torch), dK/dV and dQ against torch autograd in fp32."""
    spec = PROGRAMS[f"bwd_dkdv_{variant}"].spec
    (bh, s, d), dt = spec[0]
    scale, causal = spec[8], spec[9]
    q, k, v, do = (randn((bh, s, d), dt, seed) for seed in range(4))
    o, lse2, dq, dk, dv = _reference_grads(q, k, v, do, scale, causal)
    delta = (o * do.float()).sum(-1)
    # P and dS are rounded to the operand type before their dots (as Triton's kernels do): a sum of 192
    # rounded products per element
    tol = dict(atol=1e-2, rtol=2e-2) if dt == "float16" else dict(atol=6e-2, rtol=6e-2)
    args = run(f"bwd_dkdv_{variant}", {0: q, 1: k, 2: v, 3: do, 4: lse2.contiguous(), 5: delta.contiguous()})
    _check_path(f"bwd_dkdv_{variant}", args)
    close(args[6], dk, **tol)
    close(args[7], dv, **tol)
    args = run(f"bwd_dq_{variant}", {0: q, 1: k, 2: v, 3: do, 4: lse2.contiguous(), 5: delta.contiguous()})
    _check_path(f"bwd_dq_{variant}", args)
    close(args[6], dq, **tol)


def test_backward_preprocess():
    o, do = randn((2, 200, 64), "float16", 1), randn((2, 200, 64), "float16", 2)
    args = run("bwd_preprocess", {0: o, 1: do})
    close(args[2], (o.float() * do.float()).sum(-1), atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("name", ["bwd_dv_transposed_p", "bwd_dv_transposed_p_causal_bf16"])
def test_backward_dv_transposed_p(name):
    spec = PROGRAMS[name].spec
    (bh, s, d), dt = spec[0]
    causal = spec[6]
    q, k, v, do = (randn((bh, s, d), dt, seed) for seed in range(4))
    o, lse2, dq, dk, dv = _reference_grads(q, k, v, do, spec[5], causal)
    args = run(name, {0: q, 1: k, 2: do, 3: lse2.contiguous()})
    _check_path(name, args)
    close(args[4], dv, **(TOL[dt] if dt == "float16" else dict(atol=6e-2, rtol=6e-2)))


def test_backward_fa2_atomic_dq():
    spec = PROGRAMS["bwd_dkdv_atomic_dq"].spec
    (bh, s, d), dt = spec[0]
    q, k, v, do = (randn((bh, s, d), dt, seed) for seed in range(4))
    o, lse2, dq, dk, dv = _reference_grads(q, k, v, do, spec[9], False)
    delta = (o * do.float()).sum(-1)
    dq0 = torch.zeros(bh, s, d, device="cuda")
    args = run("bwd_dkdv_atomic_dq", {0: q, 1: k, 2: v, 3: do, 4: lse2.contiguous(), 5: delta.contiguous(), 8: dq0})
    _check_path("bwd_dkdv_atomic_dq", args)
    close(args[6], dk, **TOL[dt])
    close(args[7], dv, **TOL[dt])
    close(args[8], dq, **TOL[dt])


def _attn(s, v, keep=None):
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v.float()


def test_paged_decode_item():
    q = randn((2, 64, 64), "float16", 0)
    kc, vc = randn((10, 4, 64, 64), "float16", 1), randn((10, 4, 64, 64), "float16", 2)
    table = torch.tensor([[7, 2, 9, 4, 0], [1, 5, 3, 8, 6]], dtype=torch.int32, device="cuda")
    lens = torch.tensor([200, 300], dtype=torch.int32, device="cuda")
    args = run("paged_gqa_item", {0: q, 1: kc, 2: vc, 3: table, 4: lens})
    _check_path("paged_gqa_item", args)
    ref = torch.zeros(2, 64, 64, device="cuda")
    for b in range(2):
        n = int(lens[b])
        pages = table[b, : -(-n // 64)].long()
        for g in range(4):
            kk = kc[pages, g].reshape(-1, 64)[:n]
            vv = vc[pages, g].reshape(-1, 64)[:n]
            qq = q[b, 16 * g:16 * g + 16].float()
            ref[b, 16 * g:16 * g + 16] = _attn(qq @ kk.float().T * (0.125 * LOG2E) / LOG2E, vv)
    close(args[5], ref, **TOL["float16"])


def test_split_kv_then_combine():
    q, k, v = randn((2, 64, 64), "float16", 0), randn((2, 4, 500, 64), "float16", 1), randn((2, 4, 500, 64),
                                                                                             "float16", 2)
    args = run("split_kv_partials", {0: q, 1: k, 2: v})
    _check_path("split_kv_partials", args)
    out = run("split_kv_combine", {0: args[3], 1: args[4]})
    ref = torch.zeros(2, 64, 64, device="cuda")
    for b in range(2):
        for g in range(4):
            ref[b, 16 * g:16 * g + 16] = _attn(q[b, 16 * g:16 * g + 16].float() @ k[b, g].float().T * 0.125, v[b, g])
    close(out[2], ref, **TOL["float16"])


def test_mla_latent_cache():
    q, kv = randn((4, 192, 192), "float16", 0), randn((2, 192, 192), "float16", 1)
    args = run("mla_latent_cache", {0: q, 1: kv})
    _check_path("mla_latent_cache", args)
    kk = kv.repeat_interleave(2, 0)
    n = 192
    keep = torch.ones(n, n, device="cuda", dtype=torch.bool).tril()
    ref = _attn(q.float() @ kk.float().transpose(-1, -2) / math.sqrt(192), kk[..., :128], keep)
    close(args[2], ref, **TOL["float16"])


def test_varlen_cu_seqlens_tiles():
    """Three sequences packed at tile-aligned offsets (128, 64 and 158 rows: the last one ragged),
    causal inside each sequence (the rows of the last tile past the sequence are written too: the
    program stores whole tiles; only the sequences' rows are compared)."""
    q, k, v = (randn((2, 384, 64), "float16", i) for i in range(3))
    cu = torch.tensor([0, 128, 192, 350], dtype=torch.int32, device="cuda")
    args = run("varlen_cu_seqlens_tiles", {0: q, 1: k, 2: v, 3: cu, 4: cu})
    _check_path("varlen_cu_seqlens_tiles", args)
    for b in range(3):
        s0, n = int(cu[b]), int(cu[b + 1] - cu[b])
        i, j = torch.arange(n, device="cuda")[:, None], torch.arange(n, device="cuda")[None, :]
        s = q[:, s0:s0 + n].float() @ k[:, s0:s0 + n].float().transpose(-1, -2) * (0.125 * LOG2E) / LOG2E
        close(args[5][:, s0:s0 + n], _attn(s, v[:, s0:s0 + n], j <= i), **TOL["float16"])


def test_while_forms():
    """``while j < n and j * BN < kv_len`` and the do-while, on the tensor cores."""
    q, k, v = (randn(s, "float16", i) for i, s in enumerate([(2, 128, 64), (2, 256, 64), (2, 256, 64)]))
    args = run("while_and_condition", {0: q, 1: k, 2: v})
    _check_path("while_and_condition", args)
    s = q.float() @ k[:, :150].float().transpose(-1, -2) * 0.125
    close(args[3], _attn(s, v[:, :150]), **TOL["float16"])
    q, k, v = (randn((2, 192, 64), "float16", i) for i in range(3))
    args = run("while_true_break_last", {0: q, 1: k, 2: v})
    _check_path("while_true_break_last", args)
    keep = torch.ones(192, 192, device="cuda", dtype=torch.bool).tril()
    close(args[3], _attn(q.float() @ k.float().transpose(-1, -2) * 0.125, v, keep), **TOL["float16"])


@pytest.mark.parametrize("name", ["while_runtime_step", "document_mask_ranges", "prefix_lm_segments_causal", "paged_prefill_causal",
                                  "varlen_cu_seqlens_sliced"])
def test_takes_its_path(name):
    """The remaining forwards compile, for arrays of their spec, on the path of their table entry (not
    launched: their index arrays would need meaningful contents; their math is the emulated tests' and
    the earlier sets' GPU tests')."""
    from test_user_sweep_gpu import DT

    from tileorch.launchers import cutile as rc

    args = [torch.zeros(s[0], dtype=DT[s[1]], device="cuda") if isinstance(s, tuple) else s
            for s in PROGRAMS[name].spec]
    # the compile's path only (sweep.check_path also checks the path a launch ran, and these are not launched)
    entry = rc.compiled(PROGRAMS[name].kernel, rc.describe_arguments(PROGRAMS[name].kernel, tuple(args)), "sm_90a",
                        "persistent", defer_gemm=True)
    assert entry.program.kind == PROGRAMS[name].path, (name, entry.program.kind, entry.program.remarks)
