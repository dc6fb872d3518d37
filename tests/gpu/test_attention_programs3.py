"""The third attention set on the GPU: every program of ``tileorch.testing.attention_programs3`` runs
through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger
buffer whose tail must stay unwritten) against an independent torch float32 reference, and takes
the path its table entry names (chained tier / SIMT).  bf16 programs run in bf16 here (the CPU
emulator runs their f16 twins).  Skipped without a GPU; needs torch and cuda-tile.
Run: ``python -m pytest -q tests/gpu/test_attention_programs3.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attention_programs3 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}


def _dt(name):
    return PROGRAMS[name].spec[0][1]


def _check_path(name, args):
    sweep.check_path(name, args)  # (the compile's path and the launch's: tileorch.testing.launch_path)


def _scores(q, k, scale=1.0):
    return (q.float() @ k.float().transpose(-1, -2)) * scale


def _attn(s, v, keep=None):
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v.float()


def _qkv(name, kscale=1.0, seed=0):
    """Q, K, V of the spec's shapes and type."""
    spec = PROGRAMS[name].spec
    return tuple(randn(spec[i][0], spec[i][1], seed + i, kscale if i == 1 else 1.0) for i in range(3))


def _pos(sq, sk, q0=0):
    return (torch.arange(q0, q0 + sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :])


def _launch(name, inputs, ref, out=3, **kw):
    args = run(name, inputs)
    close(args[out], ref, **(kw or TOL[_dt(name)]))
    _check_path(name, args)
    return args


def test_while_ragged():
    q, k, v = _qkv("attn_while_ragged")
    _launch("attn_while_ragged", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v))


def test_while_causal_offset_bf16():
    q, k, v = _qkv("attn_while_causal_offset_bf16", seed=10)
    i, j = _pos(100, 300, 200)
    _launch("attn_while_causal_offset_bf16", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v, j <= i))


def test_while_window():
    q, k, v = _qkv("attn_while_window", seed=20)
    i, j = _pos(256, 256)
    _launch("attn_while_window", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v, (j <= i) & (j > i - 80)))


def test_while_key_offsets():
    q, k, v = _qkv("attn_while_key_offsets", seed=200)
    _launch("attn_while_key_offsets", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v))


def test_while_true_break():
    q, k, v = _qkv("attn_while_true_break", seed=230)
    i, j = _pos(192, 192)
    _launch("attn_while_true_break", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v, j <= i))


def test_while_decode_len_gathered():
    q, k, v = _qkv("attn_while_decode_len_gathered", seed=210)
    lens = torch.tensor([300, 512], device="cuda", dtype=torch.int32)
    k[0, :, 300:] = 60.0
    v[0, :, 300:] = 1000.0
    ref = torch.cat([torch.stack([_attn(_scores(q[b, 16 * h:16 * h + 16], k[b, h, :int(lens[b])], 0.125),
                                        v[b, h, :int(lens[b])]) for h in range(2)]).reshape(1, 32, 64)
                     for b in range(2)])
    _launch("attn_while_decode_len_gathered", {0: q, 1: k, 2: v, 3: lens}, ref, out=4)


def test_mask_on_p():
    q, k, v = _qkv("attn_mask_on_p", seed=220)
    i, j = _pos(256, 256)
    _launch("attn_mask_on_p", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v, (j <= i) & (j > i - 100)))


def test_gqa_group_runtime():
    q, k, v = _qkv("attn_gqa_group_runtime", seed=30)
    kk, vv = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
    _launch("attn_gqa_group_runtime", {0: q, 1: k, 2: v}, _attn(_scores(q, kk, 0.125), vv))


def test_mqa_kv3d_causal():
    q, k, v = _qkv("attn_mqa_kv3d_causal", seed=40)
    i, j = _pos(192, 192)
    _launch("attn_mqa_kv3d_causal", {0: q, 1: k, 2: v}, _attn(_scores(q, k[:, None], 0.125), v[:, None], j <= i))


def test_cross_bshd_both_ragged():
    q, k, v = _qkv("attn_cross_bshd_both_ragged", seed=50)
    t = lambda x: x.transpose(1, 2)  # noqa: E731
    _launch("attn_cross_bshd_both_ragged", {0: q, 1: k, 2: v}, t(_attn(_scores(t(q), t(k), 0.125), t(v))))


def test_flat_in_4d_out():
    q, k, v = _qkv("attn_flat_in_4d_out", seed=60)
    _launch("attn_flat_in_4d_out", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v).reshape(2, 2, 128, 64))


def test_k_order_bshd():
    q, k, v = _qkv("attn_k_order_bshd", seed=70)
    t = lambda x: x.transpose(1, 2)  # noqa: E731
    _launch("attn_k_order_bshd", {0: q, 1: k, 2: v}, t(_attn(_scores(t(q), t(k), 0.125), t(v))))


def test_kt_array_causal_bf16_d128():
    q, kt, v = _qkv("attn_kt_array_causal_bf16_d128", seed=80)
    i, j = _pos(256, 256)
    _launch("attn_kt_array_causal_bf16_d128", {0: q, 1: kt, 2: v},
            _attn(_scores(q, kt.transpose(-1, -2), 1 / math.sqrt(128)), v, j <= i))


def test_scale_s_exp_add_mask():
    q, k, v = _qkv("attn_scale_s_exp_add_mask", seed=90)
    _launch("attn_scale_s_exp_add_mask", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v))


def test_softcap_exp_lse_bf16():
    q, k, v = _qkv("attn_softcap_exp_lse_bf16", kscale=3.0, seed=100)
    s = 20.0 * torch.tanh(_scores(q, k, 0.125) / 20.0)
    args = _launch("attn_softcap_exp_lse_bf16", {0: q, 1: k, 2: v}, _attn(s, v))
    close(args[4], torch.logsumexp(s, -1), atol=2e-3, rtol=1e-4)


def test_alibi_gather_cross_ragged():
    q, k, v = _qkv("attn_alibi_gather_cross_ragged", seed=110)
    slopes = torch.tensor([0.5, 0.0625], device="cuda")
    i, j = _pos(100, 180)
    s = _scores(q, k, 0.125) - slopes.repeat(2)[:, None, None] * (i - j)
    _launch("attn_alibi_gather_cross_ragged", {0: q, 1: k, 2: v, 3: slopes}, _attn(s, v), out=4)


def test_bool_mask_b1ss():
    q, k, v = _qkv("attn_bool_mask_b1ss", seed=120)
    g = torch.Generator(device="cuda").manual_seed(121)
    keep = torch.rand((2, 1, 128, 128), device="cuda", generator=g) < 0.4
    keep[..., 77] = True
    _launch("attn_bool_mask_b1ss", {0: q, 1: k, 2: v, 3: keep}, _attn(_scores(q, k, 0.125), v, keep), out=4)


def test_float_keep_mul():
    q, k, v = _qkv("attn_float_keep_mul", seed=130)
    i, j = _pos(192, 192)
    _launch("attn_float_keep_mul", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v, j <= i))


def test_decode_window_offset():
    q, k, v = _qkv("attn_decode_window_offset", seed=140)
    k[:, 400:] = 60.0
    v[:, 400:] = 1000.0
    i, j = _pos(70, 512, 330)
    _launch("attn_decode_window_offset", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v, (j <= i) & (j > i - 100)))


@pytest.mark.parametrize("name, sq, causal", [("attn_triton_tutorial", 128, False),
                                              ("attn_triton_tutorial_causal", 256, True)])
def test_triton_tutorial(name, sq, causal):
    q, k, v = _qkv(name, seed=150)
    s = _scores(q, k, 0.125)
    if causal:
        i, j = _pos(sq, 256)
        s = s.masked_fill(~(j <= i), float("-inf"))
    args = _launch(name, {0: q, 1: k, 2: v}, _attn(s, v))
    close(args[4], torch.logsumexp(s, -1) / math.log(2.0), atol=2e-3, rtol=1e-4)


def test_scores_f16_acc():
    q, k, v = _qkv("attn_scores_f16_acc", seed=160)
    s = (q.float() @ k.float().transpose(-1, -2)).half().float() * 0.125
    _launch("attn_scores_f16_acc", {0: q, 1: k, 2: v}, _attn(s, v), atol=5e-3, rtol=2e-2)


def test_matmul_both_causal():
    q, k, v = _qkv("attn_matmul_both_causal", seed=170)
    i, j = _pos(192, 192)
    _launch("attn_matmul_both_causal", {0: q, 1: k, 2: v}, _attn(_scores(q, k, 0.125), v, j <= i), atol=5e-3,
            rtol=2e-2)


def test_q_scaled_f32_bf16():
    q, k, v = _qkv("attn_q_scaled_f32_bf16", seed=180)
    qs = (q.float() * (0.125 * 1.4426950408889634)).to(q.dtype)
    i, j = _pos(256, 256)
    _launch("attn_q_scaled_f32_bf16", {0: q, 1: k, 2: v}, _attn(_scores(qs, k) / 1.4426950408889634, v, j <= i))


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if n.startswith("attn_textbook_")))
def test_textbook_head_dims_and_tiles(name):
    p = PROGRAMS[name]
    (_, seq, d), causal = p.spec[0][0], p.spec[5]
    q, k, v = _qkv(name, seed=190)
    i, j = _pos(seq, seq)
    _launch(name, {0: q, 1: k, 2: v}, _attn(_scores(q, k, 1 / math.sqrt(d)), v, (j <= i) if causal else None))
