"""Session 36's attention-shaped sweep on the GPU: every program of ``tileorch.testing.attnsweep36_programs`` runs
through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer whose tail
must stay unwritten) on its spec's ragged sizes, against a torch float32 reference written from the program's
docstring (the plain / causal / window / prefix / document / padding ones also against
``F.scaled_dot_product_attention`` with the same boolean mask, fp32), and takes the path its table entry names (the
two the tier refuses run on the SIMT path here).  K and V of the sequence-major cross attention are real strided
views of a packed ``[B, Sk, 2, H, D]`` buffer.  bf16 programs run in bf16.  Skipped without a GPU; needs torch and
cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_attnsweep36_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attnsweep36_programs import HASH_MUL, PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}


def _t(name, i, seed=None):
    shape, dt = PROGRAMS[name].spec[i][:2]
    return randn(shape, dt, i if seed is None else seed)


def _pos(sq, sk):
    return torch.arange(sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]


def _attn(q, k, v, keep=None, scale=None):
    """fp32 softmax(q k^T scale, masked) v; also checked against SDPA (fp32, the same boolean mask)."""
    scale = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    ref = torch.softmax(s, -1) @ v.float()
    sdpa = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=keep,
                                                            scale=scale)
    torch.testing.assert_close(sdpa, ref, atol=1e-4, rtol=1e-4)  # the reference is SDPA's own
    return ref


def dropout_keep(bh, sq, sk, seed, keep_min):
    """The kernel's int32 hash (its docstring), wrapping like the GPU's: the kept (query, key) pairs of head ``bh``
    (int64 arithmetic reduced to int32 after each step)."""
    i, k = _pos(sq, sk)

    def i32(x):
        return ((x + 2**31) % 2**32) - 2**31

    x = i32(i * 65599 + k) ^ (seed + bh * 977)
    x = i32(x * HASH_MUL)
    x = x ^ (x >> 15)
    return (x & 0xFFFF) >= keep_min


def _case(name):
    """inputs, {output position: reference}."""
    p = PROGRAMS[name]
    spec = p.spec
    if name == "s36_d80_bshd_cross_strided":
        b, sk, h, d = spec[1][0]
        kv = randn((b, sk, 2, h, d), "float16", 7)
        q, k, v = _t(name, 0), kv[:, :, 0], kv[:, :, 1]
        assert k.stride() == spec[1][2] and not k.is_contiguous()
        ref = _attn(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2)
        return {0: q, 1: k, 2: v}, {3: ref}
    q, k, v = (_t(name, i) for i in range(3))
    if name in ("s36_sample_kt_view_causal", "s36_sample_kt_view_d96"):
        i, j = _pos(q.shape[2], k.shape[2])
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j <= i) if spec[-1] else None, spec[4])}
    if name == "s36_kt_array_cross_d96":
        return {0: q, 1: k, 2: v}, {3: _attn(q, k.transpose(-1, -2), v)}
    if name == "s36_o_transposed":
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v).transpose(-1, -2)}
    i, j = _pos(q.shape[-2], k.shape[-2])
    if name == "s36_window_two_bounds":
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j >= i - spec[5]) & (j <= i + spec[6]))}
    if name == "s36_prefix_lm":
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j < spec[5]) | (j <= i))}
    if name == "s36_document_mask":
        seg = torch.stack([torch.repeat_interleave(torch.tensor(c), torch.tensor(n)) for c, n in
                           (([0, 1, 2], [70, 80, 50]), ([0, 1], [130, 70]))]).to(torch.int32).cuda()
        keep = (seg[:, None, :, None] == seg[:, None, None, :]) & (j <= i)
        return {0: q, 1: k, 2: v, 3: seg}, {4: _attn(q, k, v, keep)}
    if name == "s36_key_padding_lens":
        lens = torch.tensor([200, 77], device="cuda", dtype=torch.int32)
        for b, n in enumerate(lens.tolist()):
            k[b, :, n:], v[b, :, n:] = 30.0, 1000.0
        keep = torch.arange(k.shape[2], device="cuda")[None, None, None, :] < lens[:, None, None, None]
        return {0: q, 1: k, 2: v, 3: lens}, {4: _attn(q, k, v, keep)}
    if name == "s36_dropout_hashed":
        seed, keep_min = spec[5], spec[6]
        keep = torch.stack([dropout_keep(bh, q.shape[1], k.shape[1], seed, keep_min) for bh in range(q.shape[0])])
        assert 0.85 < keep.float().mean() < 0.95
        pm = torch.softmax((q.float() @ k.float().transpose(-1, -2)) * 0.125, -1)
        return {0: q, 1: k, 2: v}, {3: (pm * keep * (65536.0 / (65536 - keep_min))) @ v.float()}
    if name in ("s36_runtime_scale_exp_bf16", "s36_scale_in_exp", "s36_triton_tutorial"):
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, None if "runtime" in name else j <= i, spec[4])}
    if name == "s36_lse_log2_cross":
        s = (q.float() @ k.float().transpose(-1, -2)) * 0.125
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v), 4: torch.logsumexp(s, -1) / math.log(2.0)}
    if name == "s36_lse_natural_f32out_d80":
        s = ((q.float() @ k.float().transpose(-1, -2)) * spec[5]).masked_fill(~(j <= i), float("-inf"))
        return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, j <= i), 4: torch.logsumexp(s, -1)}
    causal = "causal" in name
    return {0: q, 1: k, 2: v}, {3: _attn(q, k, v, (j <= i) if causal else None)}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_on_the_gpu(name):
    inputs, refs = _case(name)
    args = run(name, inputs)
    dt = PROGRAMS[name].spec[0][1]
    for pos, ref in refs.items():
        got = args[pos]
        tol = TOL[dt] if got.dtype != torch.float32 else dict(atol=3e-3, rtol=1e-3)
        close(got, ref, **tol)
    sweep.check_path(name, args)
