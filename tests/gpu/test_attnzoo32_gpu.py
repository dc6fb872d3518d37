"""Session 32's attention zoo on the GPU: every program of ``tileorch.testing.attnzoo32_programs`` runs through
``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer whose tail must
stay unwritten) against a torch float32 reference written from the program's docstring, and takes the path its
table entry names (the refused ones run on the SIMT path here).  bf16 programs run in bf16 (the CPU emulator runs
their f16 twins).  Skipped without a GPU; needs torch and cuda-tile.
Run: ``python -m pytest -q tests/gpu/test_attnzoo32_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attnzoo32_programs import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2),
       "float32": dict(atol=2e-2, rtol=2e-2)}
LN2 = math.log(2.0)
S64 = 0.125


def _t(name, i, seed=None):
    """A random tensor for argument ``i`` of ``name``'s spec (its shape and dtype)."""
    shape, dt = PROGRAMS[name].spec[i]
    return randn(shape, dt, i if seed is None else seed)


def _qkv(name):
    return [_t(name, i) for i in range(3)]


def _attn(q, k, v, scale, keep=None, bias=None, natural_scores=None):
    s = (q.float() @ k.float().transpose(-1, -2)) * scale if natural_scores is None else natural_scores
    if bias is not None:
        s = s + bias
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v.float()


def _pos(sq, sk, q0=0):
    return torch.arange(q0, q0 + sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]


def _launch(name, inputs, refs: dict, tol=None):
    """Run ``name``; each output position in ``refs`` (a tensor, or (view function, reference)) against its
    reference; the path as tabled."""
    args = run(name, inputs)
    dt = PROGRAMS[name].spec[0][1]
    for pos, ref in refs.items():
        got, ref = (ref[0](args[pos]), ref[1]) if isinstance(ref, tuple) else (args[pos], ref)
        t = tol or (TOL[dt] if got.dtype != torch.float32 or dt == "float32" else dict(atol=3e-3, rtol=1e-3))
        close(got, ref, **t)
    sweep.check_path(name, args)
    return args


def test_decode_gqa8_bshd_lens():
    name = "z32_decode_gqa8_bshd_lens"
    q, k, v = _qkv(name)
    lens = torch.tensor([300, 170], device="cuda", dtype=torch.int32)
    k[1, 170:], v[1, 170:] = 30.0, 1000.0
    ref = torch.empty(2, 1, 16, 128, device="cuda")
    for b in range(2):
        n = int(lens[b])
        kk, vv = (x[b, :n].transpose(0, 1).repeat_interleave(8, 0) for x in (k, v))  # [16, n, D]
        ref[b, 0] = _attn(q[b, 0][:, None], kk, vv, 1 / math.sqrt(128))[:, 0]
    _launch(name, {0: q, 1: k, 2: v, 3: lens}, {4: ref})


def test_split_kv_then_online_combine():
    """1000 keys in 16 tiles over 5 splits (4 tiles each; the last split empty), then the combine kernel."""
    name = "z32_split_kv_grid_splits"
    q, k, v = _qkv(name)
    args = _launch(name, {0: q, 1: k, 2: v}, {})
    op, lp = args[3], args[4]
    assert (lp[..., 4] == float("-inf")).all() and (op[..., 4, :] == 0).all()
    s = (q.float()[:, :, None] @ k.float().transpose(-1, -2))[:, :, 0] * 0.125  # [B, H, S]
    for sp in range(4):
        keys = slice(256 * sp, 256 * (sp + 1))
        part = (torch.softmax(s[..., keys], -1)[..., None, :] @ v.float()[..., keys, :])[..., 0, :]
        close(op[..., sp, :], part, atol=3e-3, rtol=1e-3)
        close(lp[..., sp], torch.logsumexp(s[..., keys], -1) / LN2, atol=3e-3, rtol=1e-3)
    ref = (torch.softmax(s, -1)[..., None, :] @ v.float())[..., 0, :]
    _launch("z32_split_kv_combine_online", {0: op, 1: lp}, {2: ref})


def test_paged_slot_gather():
    name = "z32_paged_slot_gather"
    q, kc, vc = _qkv(name)
    g = torch.Generator(device="cpu").manual_seed(5)
    table = torch.randperm(32, generator=g).reshape(2, 16).to(torch.int32).cuda()
    lens = torch.tensor([256, 150], device="cuda", dtype=torch.int32)
    ref = torch.empty(2, 2, 64, device="cuda")
    for b in range(2):
        n = int(lens[b])
        t = torch.arange(n, device="cuda")
        slot = table[b, t // 16].long() * 16 + t % 16
        ref[b] = _attn(q[b][:, None], kc[:, slot], vc[:, slot], S64)[:, 0]
    _launch(name, {0: q, 1: kc, 2: vc, 3: table, 4: lens}, {5: ref})


def test_chunk_prefill_lens():
    name = "z32_chunk_prefill_lens"
    q, k, v = _qkv(name)
    k[2:, 100:], v[2:, 100:] = 30.0, 1000.0
    ql = torch.tensor([150, 40], device="cuda", dtype=torch.int32)
    kl = torch.tensor([300, 100], device="cuda", dtype=torch.int32)
    args = run(name, {0: q, 1: k, 2: v, 3: ql, 4: kl})
    for bh in range(4):
        nq, nk = int(ql[bh // 2]), int(kl[bh // 2])
        i, j = _pos(nq, nk, nk - nq)
        close(args[5][bh, :nq], _attn(q[bh, :nq], k[bh, :nk], v[bh, :nk], S64, j <= i), **TOL["float16"])
    assert torch.isnan(args[5][2:, 64:]).all()
    sweep.check_path(name, args)


def test_cascade_shared_prefix():
    name = "z32_cascade_shared_prefix"
    q, kp, vp, k, v = (_t(name, i) for i in range(5))
    i, j = _pos(130, 130)
    keep = torch.cat([torch.ones(130, 100, dtype=torch.bool, device="cuda"), j <= i], 1)
    hh = torch.arange(4, device="cuda") % 2
    ref = _attn(q, torch.cat([kp[hh], k], 1), torch.cat([vp[hh], v], 1), S64, keep)
    _launch(name, {0: q, 1: kp, 2: vp, 3: k, 4: v}, {5: ref})


def test_sink_tile_peeled_window():
    name = "z32_sink_tile_peeled_window"
    q, k, v = _qkv(name)
    i, j = _pos(300, 300)
    _launch(name, {0: q, 1: k, 2: v}, {3: _attn(q, k, v, S64, (j <= i) & ((j < 64) | (j > i - 100)))})


def test_alibi_position_ids_bf16():
    name = "z32_alibi_position_ids_bf16"
    q, k, v = _qkv(name)
    pos = torch.stack([torch.arange(160), torch.cat([torch.full((70,), -1), torch.arange(90)])]).to(torch.int32).cuda()
    args = run(name, {0: q, 1: k, 2: v, 3: pos})
    for b in range(2):
        pq, pk = pos[b][:, None], pos[b][None, :]
        real = pos[b] >= 0
        for h in range(2):
            slope = 2.0 ** (-8.0 * (h + 1) / 2)
            ref = _attn(q[b, h], k[b, h], v[b, h], S64, (pk >= 0) & (pk <= pq), slope * (pk - pq).float())
            close(args[4][b, h][real], ref[real], **TOL["bfloat16"])
    sweep.check_path(name, args)


def test_hf_additive_mask_f16():
    name = "z32_hf_additive_mask_f16"
    q, k, v = _qkv(name)
    mask = torch.zeros(2, 1, 1, 170, device="cuda", dtype=torch.float16)
    mask[1, ..., 120:] = torch.finfo(torch.float16).min
    mask[0, ..., [7, 50]] = torch.finfo(torch.float16).min
    _launch(name, {0: q, 1: k, 2: v, 3: mask}, {4: _attn(q, k, v, 0.125, bias=mask[torch.arange(4) // 2, 0].float())})


def test_row_temperature():
    name = "z32_row_temperature"
    q, k, v = _qkv(name)
    tau = torch.rand(2, 128, device="cuda") * 1.5 + 0.5
    s = (q.float() @ k.float().transpose(-1, -2)) * 0.125 / tau[..., None]
    _launch(name, {0: q, 1: k, 2: v, 3: tau}, {4: _attn(q, k, v, 0, natural_scores=s)})


def test_softmax_off_by_one():
    name = "z32_softmax_off_by_one"
    q, k, v = _qkv(name)
    q = q * 0.3
    i, j = _pos(150, 150)
    s = ((q.float() @ k.float().transpose(-1, -2)) * 0.125).masked_fill(~(j <= i), float("-inf"))
    e = torch.exp(s)
    _launch(name, {0: q, 1: k, 2: v}, {3: (e / (1 + e.sum(-1, keepdim=True))) @ v.float()})


def test_keys_last_tile_first():
    name = "z32_keys_last_tile_first"
    q, k, v = _qkv(name)
    _launch(name, {0: q, 1: k, 2: v}, {3: _attn(q, k, v, S64)})


def test_cross_d112_bf16_f32out():
    name = "z32_cross_d112_bf16_f32out"
    q, k, v = _qkv(name)
    _launch(name, {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 1 / math.sqrt(112))}, tol=TOL["bfloat16"])


def test_causal_d160():
    name = "z32_causal_d160"
    q, k, v = _qkv(name)
    i, j = _pos(150, 150)
    _launch(name, {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 1 / math.sqrt(160), j <= i)})


def test_two_mha_heads():
    name = "z32_two_mha_heads"
    q, k, v = _qkv(name)
    _launch(name, {0: q, 1: k, 2: v}, {3: _attn(q, k, v, S64)})


def test_mla_absorbed_decode_bf16():
    name = "z32_mla_absorbed_decode"
    q, qpe, c, kpe = (_t(name, i) for i in range(4))
    s = (q.float() @ c.float().transpose(-1, -2) + qpe.float() @ kpe.float().transpose(-1, -2)) / math.sqrt(192)
    _launch(name, {0: q, 1: qpe, 2: c, 3: kpe}, {4: torch.softmax(s, -1) @ c.float()})


def test_qk_rmsnorm():
    name = "z32_qk_rmsnorm"
    q, k, v = _qkv(name)
    wq, wk = torch.rand(64, device="cuda") + 0.5, torch.rand(64, device="cuda") + 0.5

    def norm(x, w):
        x = x.float()
        return (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w).half()
    _launch(name, {0: q, 1: k, 2: v, 3: wq, 4: wk}, {5: _attn(norm(q, wq), norm(k, wk), v, S64)})


def test_int8_kv_token_scales():
    name = "z32_int8_kv_token_scales"
    q = _t(name, 0)
    g = torch.Generator(device="cuda").manual_seed(3)
    k8, v8 = (torch.randint(-127, 128, (2, 150, 64), device="cuda", generator=g).to(torch.int8) for _ in range(2))
    ks, vs = (torch.rand(2, 150, device="cuda", generator=g) * 0.02 + 0.005 for _ in range(2))
    k, v = ((x.float() * s[..., None]).half() for x, s in ((k8, ks), (v8, vs)))
    _launch(name, {0: q, 1: k8, 2: v8, 3: ks, 4: vs}, {5: _attn(q, k, v, S64)})


def test_lse_only():
    name = "z32_lse_only"
    q, k = _t(name, 0), _t(name, 1)
    _launch(name, {0: q, 1: k}, {2: torch.logsumexp((q.float() @ k.float().transpose(-1, -2)) * 0.125, -1)})


def test_bwd_ds_tile():
    name = "z32_bwd_ds_tile"
    q, k, v, do = (_t(name, i) for i in range(4))
    s = (q.float() @ k.float().transpose(-1, -2)) * 0.125
    lse = torch.logsumexp(s, -1)
    delta = torch.randn(2, 150, device="cuda")
    p = torch.exp(s - lse[..., None])
    ref = p * (do.float() @ v.float().transpose(-1, -2) - delta[..., None])
    _launch(name, {0: q, 1: k, 2: v, 3: do, 4: lse, 5: delta}, {6: ref})


def test_bwd_delta_bshd_bf16():
    name = "z32_bwd_delta_bshd_bf16"
    o, do = _t(name, 0), _t(name, 1)
    _launch(name, {0: o, 1: do}, {2: (o.float() * do.float()).sum(-1).transpose(1, 2)}, tol=dict(atol=1e-3, rtol=1e-4))


def test_int8_scales_on_scores():
    name = "z32_int8_scales_on_scores"
    q = _t(name, 0)
    g = torch.Generator(device="cuda").manual_seed(4)
    k8, v8 = (torch.randint(-127, 128, (2, 150, 64), device="cuda", generator=g).to(torch.int8) for _ in range(2))
    ks, vs = (torch.rand(2, 150, device="cuda", generator=g) * 0.02 + 0.005 for _ in range(2))
    s = (q.float() @ k8.float().transpose(-1, -2)) * ks[:, None, :] * S64
    _launch(name, {0: q, 1: k8, 2: v8, 3: ks, 4: vs}, {5: torch.softmax(s, -1) @ (v8.float() * vs[..., None])})


def test_mod_routed_queries():
    name = "z32_mod_routed_queries"
    q, k, v = _qkv(name)
    idx = torch.randperm(200, generator=torch.Generator().manual_seed(6))[:64].sort().values.to(torch.int32).cuda()
    i, j = idx[:, None], torch.arange(200, device="cuda")[None, :]
    _launch(name, {0: q, 1: k, 2: v, 3: idx}, {4: _attn(q[:, idx.long()], k, v, S64, j <= i)})
