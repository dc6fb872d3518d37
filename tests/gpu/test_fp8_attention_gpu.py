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
                                  "fp8qk_descaled_e4m3_d96_in_128"])
def test_descaled_e4m3(name):
    q, k, v = _inputs(name)
    descale, d = PROGRAMS[name].spec[4], q.shape[-1]
    _checked(name, {0: q, 1: k, 2: v}, {3: _sdpa(q, k, v, descale / math.sqrt(d))}, TOL["float16"])


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


def test_fp8_v_and_p_refused_and_correct_on_simt():
    """FlashAttention-3's fp8 P V (refused, located): the SIMT path's result, P rounded to e4m3 as the program casts
    it, V's descale on the output."""
    name = "fp8qkv_p_e4m3"
    q, k, v = _inputs(name, 3)
    s = (q.float() @ k.float().transpose(-1, -2)) * (0.5 * 0.125)
    p = torch.exp(s - s.amax(-1, keepdim=True))
    ref = (p.to(torch.float8_e4m3fn).float() @ v.float()) * 2.0 / p.sum(-1, keepdim=True)
    _checked(name, {0: q, 1: k, 2: v}, {3: ref}, dict(atol=3e-2, rtol=3e-2))


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
