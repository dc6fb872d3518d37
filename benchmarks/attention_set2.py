"""Timing of the second attention set (``tileorch.testing.attention_programs2``) at model sizes:
each program through tileorch (``tileorch.cutile.launch``) and tileiras (``cuda.tile.launch``),
beside ``F.scaled_dot_product_attention`` (flash and cuDNN backends) on plain attention of the same
batch*heads, query / key lengths and head dim (causal where the program is), as the speed line to
compare with: the programs compute more (soft cap, bias, masks, gates) or other shapes (MLA's
192 / 128), so the SDPA time is a reference, not the same computation.  TFLOP/s counts the two
dots: ``4 BH Sq Sk D`` (halved when causal, the window's keys only for local attention).  Each
compiler's output is checked against a torch fp32 reference of the program's own math (max abs
error, in the row).  Used by ``benchmarks/attention.py --set2 NAMES|all``.
"""

from __future__ import annotations

import math

LOG2E = 1.4426950408889634


def _cases():
    """name -> (make(torch) -> (args, grid, out index, reference, flops, sdpa (bh, sq, sk, d, causal)))."""

    def r(torch, *shape, dt="float16", seed=0, scale=1.0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return (torch.randn(*shape, device="cuda", generator=g) * scale).to(getattr(torch, dt))

    def nan(torch, *shape, dt="float16"):
        return torch.full(shape, float("nan"), device="cuda", dtype=getattr(torch, dt))

    def attn(torch, s, v):
        return torch.softmax(s, -1) @ v.float()

    def sc(q, k, scale=1.0):
        return (q.float() @ k.float().transpose(-1, -2)) * scale

    def pos(torch, sq, sk, q0=0):
        return (torch.arange(q0, q0 + sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :])

    def softcap_causal(torch, bh=32, s=4096, d=128):
        q, k, v = r(torch, bh, s, d, seed=1), r(torch, bh, s, d, seed=2), r(torch, bh, s, d, seed=3)
        o = nan(torch, bh, s, d)
        i, j = pos(torch, s, s)
        ref = lambda: attn(torch, (30 * torch.tanh(sc(q, k, d ** -0.5) / 30)).masked_fill(j > i, float("-inf")), v)
        return (q, k, v, o, d ** -0.5, 30.0, 128, 128, d), (s // 128, bh, 1), 3, ref, \
            2 * bh * s * s * d, (bh, s, s, d, True)

    def alibi(torch, bh=32, s=4096, d=128, heads=16):
        q, k, v = (r(torch, bh, s, d, dt="bfloat16", seed=i) for i in (4, 5, 6))
        o = nan(torch, bh, s, d, dt="bfloat16")
        i, j = pos(torch, s, s)
        slope = torch.tensor([2.0 ** (-8.0 * (b % heads + 1) / heads) for b in range(bh)], device="cuda")
        ref = lambda: attn(torch, sc(q, k, d ** -0.5) - slope[:, None, None] * (j - i).abs(), v)
        return (q, k, v, o, d ** -0.5, heads, 128, 128, d), (s // 128, bh, 1), 3, ref, \
            4 * bh * s * s * d, (bh, s, s, d, False)

    def bias_key_mask(torch, bh=32, s=4096, d=128, heads=16):
        q, k, v = r(torch, bh, s, d, seed=7), r(torch, bh, s, d, seed=8), r(torch, bh, s, d, seed=9)
        o = nan(torch, bh, s, d)
        bias = r(torch, s, s, dt="float32", seed=10)
        keep = torch.rand(bh // heads, s, device="cuda") < 0.9
        keep[:, 0] = True
        qk = LOG2E / math.sqrt(d)
        ref = lambda: attn(torch, ((sc(q, k) + bias) / math.sqrt(d)).masked_fill(
            ~keep.repeat_interleave(heads, 0)[:, None, :], float("-inf")), v)
        return (q, k, v, bias, keep, o, qk, heads, 128, 128, d), (s // 128, bh, 1), 5, ref, 4 * bh * s * s * d, \
            (bh, s, s, d, False)

    def window(torch, bh=32, s=8192, d=128, w=1024):
        q, k, v = r(torch, bh, s, d, seed=11), r(torch, bh, s, d, seed=12), r(torch, bh, s, d, seed=13)
        o = nan(torch, bh, s, d)
        i, j = pos(torch, s, s)
        ref = lambda: attn(torch, sc(q, k, d ** -0.5).masked_fill((j - i).abs() > w, float("-inf")), v)
        return (q, k, v, o, LOG2E / math.sqrt(d), s, w, 128, 128, d), (s // 128, bh, 1), 3, ref, \
            4 * bh * s * (2 * w + 1) * d, (bh, s, s, d, False)

    def chunked_prefill(torch, bh=32, sq=2048, start=6144, d=128):
        sk = start + sq
        q, o = r(torch, bh, sq, d, seed=14), nan(torch, bh, sq, d)
        k, v = r(torch, bh, sk, d, seed=15), r(torch, bh, sk, d, seed=16)
        i, j = pos(torch, sq, sk, start)
        ref = lambda: attn(torch, sc(q, k, d ** -0.5).masked_fill(j > i, float("-inf")), v)
        return (q, k, v, o, LOG2E / math.sqrt(d), start, 128, 128, d), (sq // 128, bh, 1), 3, ref, \
            4 * bh * sq * (start + sq / 2) * d, (bh, sq, sk, d, True)

    def mla(torch, bh=32, s=4096):
        q, k = r(torch, bh, s, 192, seed=17), r(torch, bh, s, 192, seed=18)
        v, o = r(torch, bh, s, 128, seed=19), nan(torch, bh, s, 128)
        i, j = pos(torch, s, s)
        ref = lambda: attn(torch, sc(q, k, 192 ** -0.5).masked_fill(j > i, float("-inf")), v)
        return (q, k, v, o, LOG2E / math.sqrt(192), 64, 64, 256, 128), (s // 64, bh, 1), 3, ref, \
            bh * s * s * (192 + 128), (bh, s, s, 128, True)

    def head96(torch, bh=32, s=4096, d=96):
        q, k, v = r(torch, bh, s, d, seed=20), r(torch, bh, s, d, seed=21), r(torch, bh, s, d, seed=22)
        o = nan(torch, bh, s, d)
        i, j = pos(torch, s, s)
        ref = lambda: attn(torch, sc(q, k, d ** -0.5).masked_fill(j > i, float("-inf")), v)
        return (q, k, v, o, LOG2E / math.sqrt(d), s, True, 128, 128, 128), (s // 128, bh, 1), 3, ref, \
            2 * bh * s * s * d, (bh, s, s, d, True)

    def merged_gqa(torch, b=4, s=4096, h=32, hkv=8, d=128):
        q, o = r(torch, b, s, h * d, seed=23), nan(torch, b, s, h * d)
        k, v = r(torch, b, s, hkv * d, seed=24), r(torch, b, s, hkv * d, seed=25)
        g = h // hkv

        def ref():
            qh = q.view(b, s, h, d).transpose(1, 2)
            kh = k.view(b, s, hkv, d).transpose(1, 2).repeat_interleave(g, 1)
            vh = v.view(b, s, hkv, d).transpose(1, 2).repeat_interleave(g, 1)
            return attn(torch, sc(qh, kh, d ** -0.5), vh).transpose(1, 2).reshape(b, s, h * d)
        return (q, k, v, o, LOG2E / math.sqrt(d), g, 128, 128, d), (s // 128, h, b), 3, ref, 4 * b * h * s * s * d, \
            (b * h, s, s, d, False)

    def lse_bf16(torch, bh=32, s=4096, d=128):
        q, k, v = (r(torch, bh, s, d, dt="bfloat16", seed=i) for i in (26, 27, 28))
        o = nan(torch, bh, s, d, dt="bfloat16")
        lse = nan(torch, bh, s, dt="float32")
        i, j = pos(torch, s, s)
        ref = lambda: attn(torch, sc(q, k, d ** -0.5).masked_fill(j > i, float("-inf")), v)
        return (q, k, v, o, lse, d ** -0.5, 128, 128, d), (s // 128, bh, 1), 3, ref, \
            2 * bh * s * s * d, (bh, s, s, d, True)

    def gate(torch, bh=32, s=4096, d=128):
        q, k, v = r(torch, bh, s, d, seed=29), r(torch, bh, s, d, seed=30), r(torch, bh, s, d, seed=31)
        o = nan(torch, bh, s, d)
        g = r(torch, bh, s, d, seed=32)
        ref = lambda: attn(torch, sc(q, k, d ** -0.5), v) * torch.sigmoid(g.float())
        return (q, k, v, g, o, LOG2E / math.sqrt(d), 128, 128, d), (s // 128, bh, 1), 4, ref, 4 * bh * s * s * d, \
            (bh, s, s, d, False)

    def decode_one(torch, bh=256, kv=8192, d=128):
        q, o = r(torch, bh, d, seed=33), nan(torch, bh, d)
        k, v = r(torch, bh, kv, d, seed=34), r(torch, bh, kv, d, seed=35)
        ref = lambda: attn(torch, sc(q[:, None], k, d ** -0.5), v)[:, 0]
        return (q, k, v, o, LOG2E / math.sqrt(d), kv, 128, d), (bh, 1, 1), 3, ref, \
            4 * bh * kv * d, (bh, 1, kv, d, False)

    def spec_decode(torch, bh=256, kv=8192, d=128, n=16):
        q, o = r(torch, bh, n, d, seed=36), nan(torch, bh, n, d)
        k, v = r(torch, bh, kv, d, seed=37), r(torch, bh, kv, d, seed=38)
        i, j = pos(torch, n, kv, kv - n)
        ref = lambda: attn(torch, sc(q, k, d ** -0.5).masked_fill(j > i, float("-inf")), v)
        return (q, k, v, o, LOG2E / math.sqrt(d), kv, n, 128, d), (bh, 1, 1), 3, ref, 4 * bh * n * kv * d, \
            (bh, n, kv, d, False)

    return {"attn_softcap_causal": softcap_causal, "attn_alibi_slope_in_kernel": alibi,
            "attn_bias_and_key_mask": bias_key_mask, "attn_window_both_sides_ragged": window,
            "attn_chunked_prefill": chunked_prefill, "attn_mla_dqk192_dv128": mla, "attn_head96_causal": head96,
            "attn_merged_heads_gqa": merged_gqa, "attn_exp_lse_causal_bf16": lse_bf16, "attn_output_gate": gate,
            "attn_decode_one_query": decode_one, "attn_spec_decode_tail": spec_decode}


CASES = _cases()


def run_one(name: str, iters: int) -> dict:
    """One program's row: each compiler's ms, TFLOP/s and max abs error vs the torch reference, and
    SDPA's (flash, cuDNN) ms on the plain attention of the same sizes."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.testing.attention_programs2 import PROGRAMS
    from tileorch.testing.timing import bench_ms

    args, grid, out_at, ref_fn, flops, (bh, sq, sk, d, causal) = CASES[name](torch)
    kernel = PROGRAMS[name].kernel
    ref = ref_fn().float()
    row: dict = {"program": name, "bh": bh, "sq": sq, "sk": sk, "d": d, "causal": causal, "set2": True}
    stream = torch.cuda.current_stream()

    def run_compiler(key, launch):
        out = args[out_at]
        out.fill_(float("nan"))
        try:
            launch(stream, grid, kernel, args)
            torch.cuda.synchronize()
            row[f"{key}_err"] = float((out.float() - ref).abs().max().item())
            row[f"{key}_ms"] = bench_ms(lambda: launch(stream, grid, kernel, args), iters)
        except Exception as exc:  # noqa: BLE001 - a compiler that cannot run this case is a row entry
            row[f"{key}_error"] = f"{type(exc).__name__}: {exc}"[:300]

    run_compiler("tileorch", tileorch.cutile.launch)
    from tileorch.launchers import cutile as rc

    row["tileorch_path"] = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a",
                                       "persistent").program.kind
    try:
        import cuda.tile as ct

        run_compiler("tileiras", ct.launch)
    except ImportError as exc:
        row["tileiras_error"] = f"cuda.tile not importable: {exc}"
    q4, k4, v4 = (torch.randn(1, bh, n, d, device="cuda", dtype=torch.float16) for n in (sq, sk, sk))
    for key, backend in (("sdpa_flash", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                row[f"{key}_ms"] = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal), iters)
        except Exception as exc:  # noqa: BLE001
            row[f"{key}_error"] = f"{type(exc).__name__}: {exc}"[:300]
    for key in ("tileorch", "tileiras", "sdpa_flash", "sdpa_cudnn"):
        if f"{key}_ms" in row:
            row[f"{key}_tflops"] = round(flops / row[f"{key}_ms"] / 1e9, 1)
    for key in ("tileiras", "sdpa_flash", "sdpa_cudnn"):
        if f"{key}_ms" in row and "tileorch_ms" in row:
            row[f"vs_{key}"] = round(row[f"{key}_ms"] / row["tileorch_ms"], 3)
    return row
