"""Session 43's fp8 attention programs on the GPU (``tileorch.testing.fp8attn43_programs``, issue 20): every program
runs through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a larger buffer whose
tail must stay unwritten) against torch's float32 ``scaled_dot_product_attention`` of the dequantized inputs (the
e4m3 / e5m2 Q and K as float32, the descales folded into SDPA's scale), and takes the path its table entry names
(the chained kernel with the fp8 first dot, or the SIMT path of a refused one).  Skipped without a GPU; needs torch
and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_fp8_attention_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, run  # noqa: E402

from tileorch.testing.fp8attn43_programs import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

TORCH = {"float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2, "float16": torch.float16,
         "bfloat16": torch.bfloat16}
TOL = {"float16": dict(atol=4e-3, rtol=1e-2), "bfloat16": dict(atol=2e-2, rtol=2e-2)}


def _inputs(name, seed=0, scale=2.0):
    """Q, K, V of the spec (fp8 ones drawn as normals times ``scale`` and rounded to the format)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    out = []
    for shape, dt in PROGRAMS[name].spec[:3]:
        x = torch.randn(shape, device="cuda", generator=g)
        out.append((x * scale if dt.startswith("float8") else x).to(TORCH[dt]))
    return out


def _sdpa(q, k, v, scale, causal=False, group=1):
    """torch float32 SDPA of the dequantized inputs ([.., S, D]; ``group`` query heads per KV head on dim -3)."""
    if group > 1:
        k, v = k.repeat_interleave(group, -3), v.repeat_interleave(group, -3)
    return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=scale, is_causal=causal)


def _checked(name, inputs, refs, tol):
    args = run(name, inputs)
    for pos, ref in refs.items():
        close(args[pos], ref, **tol)
    sweep.check_path(name, args)
    return args


@pytest.mark.parametrize("name", ["fp8qk_descaled_e4m3_d64", "fp8qk_descaled_e4m3_d128_bm128",
                                  "fp8qk_descaled_e4m3_d96_in_128", "fp8qk_descaled_e4m3_d32",
                                  "fp8qk_descaled_e4m3_d256", "fp8qk_descaled_e4m3_bm256_d64",
                                  "fp8qk_descaled_e4m3_d80_in_128"])
def test_descaled_e4m3(name):
    q, k, v = _inputs(name)
    descale, d = PROGRAMS[name].spec[4], q.shape[-1]
    _checked(name, {0: q, 1: k, 2: v}, {3: _sdpa(q, k, v, descale / math.sqrt(d))}, TOL["float16"])


def test_textbook_form_with_the_descale_in_qk_scale():
    name = "fp8qk_textbook_e4m3_d64"
    q, k, v = _inputs(name, 6)
    _checked(name, {0: q, 1: k, 2: v}, {3: _sdpa(q, k, v, 0.5 * 0.125)}, TOL["float16"])


def test_two_scales_e5m2_causal_bf16():
    name = "fp8qk_two_scales_e5m2_causal_bf16"
    q, k, v = _inputs(name, 1)
    _checked(name, {0: q, 1: k, 2: v}, {3: _sdpa(q, k, v, 0.5 * 2.0 * 0.125, causal=True)}, TOL["bfloat16"])


def test_gqa_e4m3_bf16_v_with_the_log2_lse():
    name = "fp8qk_gqa_lse_d128"
    q, k, v = _inputs(name, 2)
    scale = 0.75 / math.sqrt(128)
    args = _checked(name, {0: q, 1: k, 2: v}, {3: _sdpa(q, k, v, scale, group=2)}, TOL["bfloat16"])
    s = (q.float() @ k.float().repeat_interleave(2, 1).transpose(-1, -2)) * scale
    close(args[4], torch.logsumexp(s, -1) / math.log(2.0), atol=3e-3, rtol=1e-3)


def _online_fp8_p(q, k, v, scale, bn, fp8=None, causal=False):
    """The online softmax as the program computes it, key tile by key tile (``bn`` keys): P against the running max,
    rounded to e4m3 for ``P V`` (a P rounded against the row's final max rounds other values: session 43's first
    GPU run of this test, 143 of 16384 elements off by up to 0.11), the denominator of the unrounded P."""
    fp8 = fp8 or torch.float8_e4m3fn
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if causal:  # (session 45: the causal form; a fully masked tile changes nothing)
        i = torch.arange(s.shape[-2], device=s.device)[:, None]
        s = s.masked_fill(torch.arange(s.shape[-1], device=s.device)[None, :] > i, float("-inf"))
    m = torch.full(s.shape[:-1] + (1,), float("-inf"), device=s.device)
    den = torch.zeros_like(m)
    acc = torch.zeros(s.shape[:-1] + (v.shape[-1],), device=s.device)
    for j in range(0, s.shape[-1], bn):
        sj = s[..., j:j + bn]
        m_new = torch.maximum(m, sj.amax(-1, keepdim=True))
        p, alpha = torch.exp(sj - m_new), torch.exp(m - m_new)
        p, alpha = torch.nan_to_num(p), torch.nan_to_num(alpha)  # (-inf - -inf: a row masked so far)
        den = den * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p.to(fp8).float() @ v[..., j:j + bn, :].float()
        m = m_new
    return acc, den


def test_gqa_group_rows_speculative_decode():
    name = "fp8qk_gqa_group_rows_decode"
    q, k, v = _inputs(name, 5)
    _checked(name, {0: q, 1: k, 2: v}, {3: _sdpa(q, k, v, 0.5 / math.sqrt(128), group=4)}, TOL["float16"])


@pytest.mark.parametrize("name", ["fp8qkv_p_e4m3", "fp8qkv_p_e4m3_d128_bm128", "fp8qkv_p_e5m2_v",
                                  "fp8qkv_p_e4m3_causal_ragged"])
def test_fp8_p_v_on_the_tier(name):
    """FlashAttention-3's fp8 P V on the chained tier (session 45; SIMT before): P rounded to V's 8-bit type as the
    program casts it (:func:`_online_fp8_p`), V read through the launch's key-major copy, V's descale on the
    output; the path is the table's (chained)."""
    q, k, v = _inputs(name, 3)
    spec = PROGRAMS[name].spec
    acc, den = _online_fp8_p(q, k, v, spec[4] / math.sqrt(q.shape[-1]), spec[8], fp8=v.dtype,
                             causal="causal" in name)
    _checked(name, {0: q, 1: k, 2: v}, {3: acc * 2.0 / den}, dict(atol=3e-2, rtol=3e-2))


@pytest.mark.parametrize("name", ["fp8qk_v_widened_in_kernel", "fp8qk_widened_to_f16", "fp8_kt_stored_n_major"])
def test_refused_forms_on_simt(name):
    q, k, v = _inputs(name, 4)
    if name == "fp8_kt_stored_n_major":  # K stored [BH, D, S]
        ref = _sdpa(q, k.transpose(-1, -2), v, 0.5 * 0.125)
    elif name == "fp8qk_v_widened_in_kernel":
        ref = _sdpa(q, k, v, 0.5 * 0.125)
    else:
        ref = _sdpa(q, k, v, 0.125)
    _checked(name, {0: q, 1: k, 2: v}, {3: ref}, dict(atol=1e-2, rtol=1e-2))


def test_fp8_p_v_copies_v_again_at_each_launch():
    """The key-major copy of V is made before every launch (a launch kept bound replays it): V changed in place
    between two launches with the same arguments gives the second launch's output of the new V (session 45)."""
    import tileorch.cutile

    name = "fp8qkv_p_e4m3"
    spec = PROGRAMS[name].spec
    q, k, v = _inputs(name, 8)
    out = torch.full(spec[3][0], float("nan"), device="cuda", dtype=torch.float16)
    args = (q, k, v, out, *spec[4:])
    grid = PROGRAMS[name].grid + (1,) * (3 - len(PROGRAMS[name].grid))
    stream = torch.cuda.current_stream()
    scale = spec[4] / math.sqrt(q.shape[-1])
    for seed in (8, 9, 10):
        if seed != 8:
            v.copy_((torch.randn(v.shape, device="cuda", generator=torch.Generator(device="cuda").manual_seed(seed))
                     * 2).to(v.dtype))
            out.fill_(float("nan"))
        tileorch.cutile.launch(stream, grid, PROGRAMS[name].kernel, args)
        torch.cuda.synchronize()
        acc, den = _online_fp8_p(q, k, v, scale, spec[8], fp8=v.dtype)
        close(out, acc * spec[5] / den, atol=3e-2, rtol=3e-2)
