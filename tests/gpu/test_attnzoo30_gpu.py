"""Session 30's attention zoo on the GPU: every program of ``tileorch.testing.attnzoo30_programs`` runs
through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer
whose tail must stay unwritten) against a torch float32 reference written from the program's docstring,
and takes the path its table entry names.  bf16 programs run in bf16 here (the CPU emulator runs their
f16 twins).  Skipped without a GPU; needs torch and cuda-tile.
Run: ``python -m pytest -q tests/gpu/test_attnzoo30_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attnzoo30_programs import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TOL = {"float16": dict(atol=3e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2),
       "float32": dict(atol=2e-2, rtol=2e-2)}
LN2 = math.log(2.0)


def _arrays(name, seed=0):
    """Random tensors for the spec's leading float arrays (Q, K, V or the fused QKV)."""
    out = []
    for i, s in enumerate(PROGRAMS[name].spec):
        if not isinstance(s, tuple) or i in PROGRAMS[name].outputs or not s[1].startswith(("float", "bfloat")):
            break
        out.append(randn(s[0], s[1], seed + i))
    return out


def _attn(q, k, v, scale, keep=None, bias=None):
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if bias is not None:
        s = s + bias
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v.float()


def _pos(sq, sk, q0=0):
    return torch.arange(q0, q0 + sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]


def _launch(name, inputs, refs: dict):
    """Run ``name``; each output position in ``refs`` against its reference; the path as tabled."""
    args = run(name, inputs)
    dt = PROGRAMS[name].spec[0][1]
    for pos, ref in refs.items():
        close(args[pos], ref, **(TOL[dt] if args[pos].dtype != torch.float32 or dt == "float32"
                                 else dict(atol=3e-3, rtol=1e-3)))
    sweep.check_path(name, args)
    return args


def _lse(q, k, scale, keep=None):
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.logsumexp(s, -1)


def test_gqa_bshd_cross_1000x777_d96():
    q, k, v = _arrays("zoo_gqa_bshd_cross_1000x777_d96")
    t = lambda x: x.transpose(1, 2)  # noqa: E731  [B, S, H, D] -> [B, H, S, D]
    ref = _attn(t(q), t(k).expand(-1, 2, -1, -1), t(v).expand(-1, 2, -1, -1), 1 / math.sqrt(96))
    _launch("zoo_gqa_bshd_cross_1000x777_d96", {0: q, 1: k, 2: v}, {3: t(ref)})


def test_mqa_loop_over_heads():
    q, k, v = _arrays("zoo_mqa_loop_over_heads")
    _launch("zoo_mqa_loop_over_heads", {0: q, 1: k, 2: v}, {3: _attn(q, k[:, None], v[:, None], 0.125)})


def test_kt_stored_gqa_bf16():
    q, kt, v = _arrays("zoo_kt_stored_gqa_bf16")
    ref = _attn(q, kt.transpose(-1, -2).repeat_interleave(2, 1), v.repeat_interleave(2, 1), 0.125)
    _launch("zoo_kt_stored_gqa_bf16", {0: q, 1: kt, 2: v}, {3: ref})


@pytest.mark.parametrize("name, sq, sk", [("zoo_heads_on_axis0_causal", 150, 150),
                                          ("zoo_reversed_q_tiles_causal", 200, 200)])
def test_causal_grid_spellings(name, sq, sk):
    q, k, v = _arrays(name)
    i, j = _pos(sq, sk)
    _launch(name, {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125, j <= i)})


def test_f32_arrays_cast_bf16():
    q, k, v = _arrays("zoo_f32_arrays_cast_bf16")
    b = lambda x: x.bfloat16()  # noqa: E731
    _launch("zoo_f32_arrays_cast_bf16", {0: q, 1: k, 2: v}, {3: _attn(b(q), b(k), b(v), 0.125)})


def test_window_causal_from_lo_bf16_d128():
    q, k, v = _arrays("zoo_window_causal_from_lo_bf16_d128")
    i, j = _pos(200, 200)
    ref = _attn(q, k, v, 1 / math.sqrt(128), (j <= i) & (j > i - 70))
    _launch("zoo_window_causal_from_lo_bf16_d128", {0: q, 1: k, 2: v}, {3: ref})


def test_causal_bottom_right_shapes():
    q, k, v = _arrays("zoo_causal_bottom_right_shapes")
    i, j = _pos(150, 333, 183)
    _launch("zoo_causal_bottom_right_shapes", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125, j <= i)})


def test_bias_heads_broadcast_batch():
    q, k, v = _arrays("zoo_bias_heads_broadcast_batch")[:3]  # the f32 bias is a leading float array too
    bias = randn((2, 130, 190), "float32", 7)
    ref = _attn(q, k, v, 0.125, bias=bias[torch.arange(4, device="cuda") % 2])
    _launch("zoo_bias_heads_broadcast_batch", {0: q, 1: k, 2: v, 3: bias}, {4: ref})


def test_alibi_causal_bshd_bf16():
    q, k, v = _arrays("zoo_alibi_causal_bshd_bf16")
    i, j = _pos(190, 190)
    slopes = 2.0 ** (-8.0 * torch.arange(1, 5, device="cuda") / 4)
    t = lambda x: x.transpose(1, 2)  # noqa: E731
    ref = _attn(t(q), t(k), t(v), 0.125, j <= i, slopes[:, None, None] * (j - i))
    _launch("zoo_alibi_causal_bshd_bf16", {0: q, 1: k, 2: v}, {3: t(ref)})


@pytest.mark.parametrize("cap", [30.0, -30.0])
def test_softcap_lens_lse_bf16_d128(cap):
    """``cap = -30`` is the same attention (``tanh`` is odd) with a negative divisor: the consumer loop's
    ``s / cap`` takes ``div.rn`` in its per-thread branch (tileas/loop_division.py), 30 the shared reciprocal."""
    q, k, v = _arrays("zoo_softcap_lens_lse_bf16_d128")
    lens = torch.tensor([200, 137], device="cuda", dtype=torch.int32)
    keep = torch.arange(200, device="cuda")[None, None, :] < lens.repeat_interleave(2)[:, None, None]
    s = 30.0 * torch.tanh((q.float() @ k.float().transpose(-1, -2)) / math.sqrt(128) / 30.0)
    s = s.masked_fill(~keep, float("-inf"))
    _launch("zoo_softcap_lens_lse_bf16_d128", {0: q, 1: k, 2: v, 3: lens, 7: cap},
            {4: torch.softmax(s, -1) @ v.float(), 5: torch.logsumexp(s, -1)})


def test_t5_bucket_bias_gather():
    q, k, v = _arrays("zoo_t5_bucket_bias_gather")[:3]  # the f32 table is a leading float array too
    table = randn((2, 33), "float32", 9)
    i, j = _pos(120, 170)
    bucket = (j - i).clamp(-16, 16) + 16
    bias = table[torch.arange(4, device="cuda") % 2][:, bucket] * LN2
    _launch("zoo_t5_bucket_bias_gather", {0: q, 1: k, 2: v, 3: table}, {4: _attn(q, k, v, 0.125, bias=bias)})


def test_window_safe_max_from_zero():
    q, k, v = _arrays("zoo_window_safe_max_from_zero")
    i, j = _pos(200, 200)
    _launch("zoo_window_safe_max_from_zero", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125, (j <= i) & (i - j < 50))})


def test_two_pass_max_then_sum():
    q, k, v = _arrays("zoo_two_pass_max_then_sum")
    _launch("zoo_two_pass_max_then_sum", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125)})


def test_causal_two_stage_loops():
    q, k, v = _arrays("zoo_causal_two_stage_loops")
    i, j = _pos(256, 256)
    _launch("zoo_causal_two_stage_loops", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125, j <= i)})


@pytest.mark.parametrize("name, sk, causal", [("zoo_q_prescaled_exp_d32_causal", 100, True),
                                              ("zoo_q_prescaled_exp_d32_bf16", 180, False)])
def test_q_prescaled_exp_d32(name, sk, causal):
    q, k, v = _arrays(name)
    qs = (q.float() * (1 / math.sqrt(32))).to(q.dtype)
    i, j = _pos(100, sk)
    _launch(name, {0: q, 1: k, 2: v}, {3: _attn(qs, k, v, 1.0, (j <= i) if causal else None)})


@pytest.mark.parametrize("name, sq, sk, d, causal", [("zoo_log2_lse_d256_causal", 150, 150, 256, True),
                                                     ("zoo_log2_lse_d64_bf16", 200, 170, 64, False)])
def test_log2_lse(name, sq, sk, d, causal):
    q, k, v = _arrays(name)
    i, j = _pos(sq, sk)
    keep = (j <= i) if causal else None
    _launch(name, {0: q, 1: k, 2: v},
            {3: _attn(q, k, v, 1 / math.sqrt(d), keep), 4: _lse(q, k, 1 / math.sqrt(d), keep) / LN2})


def test_lse_natural_bshd():
    q, k, v = _arrays("zoo_lse_natural_bshd")
    t = lambda x: x.transpose(1, 2)  # noqa: E731
    _launch("zoo_lse_natural_bshd", {0: q, 1: k, 2: v},
            {3: t(_attn(t(q), t(k), t(v), 0.125)), 4: _lse(t(q), t(k), 0.125)})


def test_gqa_two_heads_per_program():
    q, k, v = _arrays("zoo_gqa_two_heads_per_program")
    ref = _attn(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), 0.125)
    _launch("zoo_gqa_two_heads_per_program", {0: q, 1: k, 2: v}, {3: ref})


def test_fused_qkv_hidden():
    (qkv,) = _arrays("zoo_fused_qkv_hidden")
    heads = qkv.view(2, 150, 3, 2, 64).permute(2, 0, 3, 1, 4)  # (q/k/v, B, H, S, D)
    o = _attn(heads[0], heads[1], heads[2], 0.125).permute(0, 2, 1, 3).reshape(2, 150, 128)
    _launch("zoo_fused_qkv_hidden", {0: qkv}, {1: o, 2: _lse(heads[0], heads[1], 0.125).transpose(1, 2)})


def test_hash_dropout():
    q, k, v = _arrays("zoo_hash_dropout")
    i, j = _pos(128, 180)
    h = i * 7919 + j * 104729 + 1234
    keep = ((h ^ (h >> 5)) & 7) != 0
    s = (q.float() @ k.float().transpose(-1, -2)) * 0.125
    p = torch.softmax(s, -1)
    _launch("zoo_hash_dropout", {0: q, 1: k, 2: v}, {3: torch.where(keep, p * (8.0 / 7.0), 0.0) @ v.float()})


def test_mixed_layouts_causal_bf16():
    q, k, v = _arrays("zoo_mixed_layouts_causal_bf16")
    i, j = _pos(160, 160)
    ref = _attn(q, k.transpose(1, 2), v.transpose(1, 2), 0.125, j <= i)
    _launch("zoo_mixed_layouts_causal_bf16", {0: q, 1: k, 2: v}, {3: ref})


def test_q_loaded_in_loop():
    q, k, v = _arrays("zoo_q_loaded_in_loop")
    _launch("zoo_q_loaded_in_loop", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125)})


def test_normalized_online():
    q, k, v = _arrays("zoo_normalized_online")
    i, j = _pos(190, 190)
    _launch("zoo_normalized_online", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125, j <= i)})


def test_dv_wider_than_dqk():
    """f16 inputs, a bf16 O (the bf16 tolerance)."""
    q, k, v = _arrays("zoo_dv_wider_than_dqk")
    args = run("zoo_dv_wider_than_dqk", {0: q, 1: k, 2: v})
    close(args[3], _attn(q, k, v, 0.125), **TOL["bfloat16"])
    sweep.check_path("zoo_dv_wider_than_dqk", args)


def test_gqa_group_rows_causal():
    q, k, v = _arrays("zoo_gqa_group_rows_causal")
    i, j = _pos(128, 128)
    ref = _attn(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), 0.125, j <= i)
    _launch("zoo_gqa_group_rows_causal", {0: q, 1: k, 2: v}, {3: ref})


def test_runtime_causal_flag():
    q, k, v = _arrays("zoo_runtime_causal_flag")
    i, j = _pos(150, 150)
    _launch("zoo_runtime_causal_flag", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125, j <= i)})
    args = run("zoo_runtime_causal_flag", {0: q, 1: k, 2: v, 5: 0})  # the same kernel, the flag off
    close(args[3], _attn(q, k, v, 0.125), **TOL["float16"])


def test_fp8_e4m3():
    """P rounded to e4m3 for P V as the kernel casts it (the reference rounds it too, key tile by key tile against
    the running max as the program does: on the chained tier since session 45)."""
    q, k, v = _arrays("zoo_fp8_e4m3")
    s = (q.float() @ k.float().transpose(-1, -2)) * 0.125
    m = torch.full(s.shape[:-1] + (1,), float("-inf"), device=s.device)
    den, acc = torch.zeros_like(m), torch.zeros(s.shape[:-1] + (v.shape[-1],), device=s.device)
    for j in range(0, s.shape[-1], 64):  # (BN = 64)
        m_new = torch.maximum(m, s[..., j:j + 64].amax(-1, keepdim=True))
        p, alpha = torch.exp(s[..., j:j + 64] - m_new), torch.exp(m - m_new)
        den = den * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p.to(torch.float8_e4m3fn).float() @ v[..., j:j + 64, :].float()
        m = m_new
    ref = acc / den
    args = run("zoo_fp8_e4m3", {0: q, 1: k, 2: v})
    close(args[3], ref, atol=3e-2, rtol=3e-2)
    sweep.check_path("zoo_fp8_e4m3", args)


def test_o_stored_transposed():
    q, k, v = _arrays("zoo_o_stored_transposed")
    _launch("zoo_o_stored_transposed", {0: q, 1: k, 2: v}, {3: _attn(q, k, v, 0.125).transpose(-1, -2)})


def test_every_program_has_a_test():
    import sys

    src = open(sys.modules[__name__].__file__).read()
    assert not [n for n in PROGRAMS if f'"{n}"' not in src]
