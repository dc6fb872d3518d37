"""Speed lines of session 36's attention-shaped sweep (``tileorch.testing.attnsweep36_programs``) at model sizes,
through ``tileorch.cutile.launch``, beside ``F.scaled_dot_product_attention`` in the same process (one timing method:
:func:`tileorch.testing.timing.bench_ms`).  SDPA runs the same work where it can: plain / causal (flash, f16 or
bf16), the boolean masks (window, prefix-LM, documents, key padding: SDPA with ``attn_mask``, the memory-efficient
backend; ``sdpa_same_work`` true, but a mask SDPA reads from memory), dropout (flash with ``dropout_p``, its own RNG:
the same work, not the same numbers).  TFLOP/s counts the two dots over the keys each row must visit (causal half,
window ``WL + WR + 1`` keys).  Before timing, each output's first head (and LSE) is checked against a torch fp32
reference (max abs error ``err``).  One JSON row per program on stdout; ``--out`` writes them all.

    python3 benchmarks/attnsweep36.py [--only name,name] [--iters 20] [--out build/attnsweep36.json]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

LOG2E = 1.4426950408889634


def _cases(torch, textbook=False):
    """name -> () -> dict(kernel, args, grid, got=() -> tensor(s), ref=() -> tensor(s), flops, sdpa=() -> None);
    ``textbook``: only the textbook programs (``s36_plain`` / ``s36_causal``) at the tiles of the sweep's other
    spellings, the baselines of benchmarks/session37_attnforms.py (``tb_*``)."""
    import torch.nn.functional as F

    from tileorch.testing import attnsweep36_programs as P

    def r(*shape, dt="float16", seed=0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(*shape, device="cuda", generator=g).to(getattr(torch, dt))

    def nan(*shape, dt="float16"):
        return torch.full(shape, float("nan"), device="cuda", dtype=getattr(torch, dt))

    def ref_attn(q, k, v, scale, keep=None):
        s = (q.float() @ k.float().transpose(-1, -2)) * scale
        if keep is not None:
            s = s.masked_fill(~keep, float("-inf"))
        return torch.softmax(s, -1) @ v.float()

    def pos(sq, sk):
        return torch.arange(sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]

    B, H, S = 4, 16, 4096

    def bhsd(kernel, d, bm, bn, dtile, causal=False, dt="float16", sq=S, sk=S, scale=None, o_dt=None, extra=(),
             mask=None, keys_per_row=None, natural=False, flash=True):
        """A ``[BH, S, D]`` program ``(Q, K, V, O, scale, *extra, BM, BN, D)``; ``mask(i, j)``: its keep mask."""
        def build():
            q, k, v = r(B * H, sq, d, dt=dt, seed=1), r(B * H, sk, d, dt=dt, seed=2), r(B * H, sk, d, dt=dt, seed=3)
            o = nan(B * H, sq, d, dt=o_dt or dt)
            sc = scale if scale is not None else (1 / math.sqrt(d) if natural else LOG2E / math.sqrt(d))
            i, j = pos(sq, sk)
            keep = mask(i, j) if mask else ((j <= i) if causal else None)
            n_keys = keys_per_row or (sk / 2 if causal else sk)
            qs, ks, vs = (x.view(B, H, -1, d) for x in (q, k, v))
            if keep is None or causal and mask is None:
                sdpa = lambda: F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)  # noqa: E731
            else:
                sdpa = lambda: F.scaled_dot_product_attention(qs, ks, vs, attn_mask=keep)  # noqa: E731
            return dict(kernel=kernel, args=(q, k, v, o, sc, *extra, bm, bn, dtile), grid=(-(-sq // bm), B * H),
                        got=lambda: o[0], ref=lambda: ref_attn(q[0], k[0], v[0], d ** -0.5, keep),
                        flops=4 * B * H * sq * n_keys * d, sdpa=sdpa)
        return build

    def bshd_strided():
        d, sq, sk = 80, 1024, S
        q = r(B, sq, H, d, seed=1)
        kv = r(B, sk, 2, H, d, seed=2)
        k, v = kv[:, :, 0], kv[:, :, 1]
        o = nan(B, sq, H, d)
        qs, ks, vs = (x.transpose(1, 2) for x in (q, k, v))
        return dict(kernel=P.s36_bshd_cross_grid3, args=(q, k, v, o, LOG2E / math.sqrt(d), 128, 64, 128),
                    grid=(sq // 128, H, B), got=lambda: o[0, :, 0], ref=lambda: ref_attn(qs[0, 0], ks[0, 0], vs[0, 0],
                                                                                       d ** -0.5),
                    flops=4 * B * H * sq * sk * d, sdpa=lambda: F.scaled_dot_product_attention(qs, ks, vs))

    def sample(causal, d, dtile, bm=128, bn=64):
        def build():
            q, k, v = r(B, H, S, d, seed=1), r(B, H, S, d, seed=2), r(B, H, S, d, seed=3)
            o = nan(B, H, S, d)
            i, j = pos(S, S)
            return dict(kernel=P.s36_sample_kt_view_causal, args=(q, k, v, o, d ** -0.5, H, bm, bn, dtile, causal),
                        grid=(S // bm, B * H), got=lambda: o[0, 0],
                        ref=lambda: ref_attn(q[0, 0], k[0, 0], v[0, 0], d ** -0.5, (j <= i) if causal else None),
                        flops=4 * B * H * S * (S / 2 if causal else S) * d,
                        sdpa=lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
        return build

    def kt_cross():
        d, sq, sk = 96, 1024, S
        q, kt, v = r(B * H, sq, d, seed=1), r(B * H, d, sk, seed=2), r(B * H, sk, d, seed=3)
        o = nan(B * H, sq, d)
        k = kt.transpose(-1, -2)
        return dict(kernel=P.s36_kt_array_cross, args=(q, kt, v, o, LOG2E / math.sqrt(d), 128, 64, 128),
                    grid=(sq // 128, B * H), got=lambda: o[0], ref=lambda: ref_attn(q[0], k[0], v[0], d ** -0.5),
                    flops=4 * B * H * sq * sk * d,
                    sdpa=lambda: F.scaled_dot_product_attention(*(x.view(B, H, -1, d) for x in (q, k.contiguous(),
                                                                                                   v))))

    def four_d(kernel, extra_arr, keep_fn):
        """``[B, H, S, D]`` programs on a 3-D grid with one int32 array before O (document ids, key lengths)."""
        def build():
            d = 64
            q, k, v = r(B, H, S, d, seed=1), r(B, H, S, d, seed=2), r(B, H, S, d, seed=3)
            o = nan(B, H, S, d)
            arr = extra_arr()
            keep = keep_fn(arr)  # [B, 1, S, S]
            return dict(kernel=kernel, args=(q, k, v, arr, o, LOG2E / math.sqrt(d), 128, 64, 64),
                        grid=(S // 128, H, B), got=lambda: o[0, 0],
                        ref=lambda: ref_attn(q[0, 0], k[0, 0], v[0, 0], d ** -0.5, keep[0, 0]),
                        flops=4 * B * H * S * float(keep.float().mean()) * S * d,
                        sdpa=lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=keep))
        return build

    def docs():
        lens = [700, 1300, 2096]
        return torch.stack([torch.repeat_interleave(torch.arange(3, device="cuda"), torch.tensor(lens, device="cuda"))
                            ] * B).to(torch.int32)

    def doc_keep(seg):
        i, j = pos(S, S)
        return (seg[:, None, :, None] == seg[:, None, None, :]) & (j <= i)

    def lens():
        return torch.tensor([4096, 3000, 2049, 1000], device="cuda", dtype=torch.int32)

    def pad_keep(n):
        return (torch.arange(S, device="cuda")[None, None, None, :] < n[:, None, None, None]).expand(B, 1, S, S)

    def dropout():
        d, keep_min = 64, 6554
        q, k, v = r(B * H, S, d, seed=1), r(B * H, S, d, seed=2), r(B * H, S, d, seed=3)
        o = nan(B * H, S, d)
        from tileorch.testing.attnsweep36_refs import dropout_keep

        def ref():
            pm = torch.softmax((q[0].float() @ k[0].float().T) * 0.125, -1)
            keep = torch.from_numpy(dropout_keep(0, S, S, 1234, keep_min)).cuda()
            return (pm * keep * (65536.0 / (65536 - keep_min))) @ v[0].float()
        qs, ks, vs = (x.view(B, H, S, d) for x in (q, k, v))
        return dict(kernel=P.s36_dropout_hashed, args=(q, k, v, o, LOG2E / 8, 1234, keep_min, 128, 64, 64),
                    grid=(S // 128, B * H), got=lambda: o[0], ref=ref, flops=4 * B * H * S * S * d,
                    sdpa=lambda: F.scaled_dot_product_attention(qs, ks, vs, dropout_p=0.1))

    def lse(kernel, natural, causal, d, dtile, o_dt):
        def build():
            q, k, v = r(B * H, S, d, seed=1), r(B * H, S, d, seed=2), r(B * H, S, d, seed=3)
            o, lse_ = nan(B * H, S, d, dt=o_dt), nan(B * H, S, dt="float32")
            i, j = pos(S, S)
            keep = (j <= i) if causal else None

            def ref():
                s = (q[0].float() @ k[0].float().T) * d ** -0.5
                if keep is not None:
                    s = s.masked_fill(~keep, float("-inf"))
                lz = torch.logsumexp(s, -1)
                return torch.cat([ref_attn(q[0], k[0], v[0], d ** -0.5, keep).flatten(),
                                  (lz if natural else lz / math.log(2.0)).flatten()])
            qs, ks, vs = (x.view(B, H, S, d) for x in (q, k, v))
            sc = d ** -0.5 if natural else LOG2E / math.sqrt(d)
            return dict(kernel=kernel, args=(q, k, v, o, lse_, sc, 128, 64, dtile), grid=(S // 128, B * H),
                        got=lambda: torch.cat([o[0].float().flatten(), lse_[0].flatten()]), ref=ref,
                        flops=4 * B * H * S * (S / 2 if causal else S) * d,
                        sdpa=lambda: F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal))
        return build

    def bottom_right():
        d, sq, sk = 80, 1024, S
        q, k, v = r(B * H, sq, d, seed=1), r(B * H, sk, d, seed=2), r(B * H, sk, d, seed=3)
        o = nan(B * H, sq, d)
        i, j = pos(sq, sk)
        keep = j <= i + (sk - sq)
        qs, ks, vs = (x.view(B, H, -1, d) for x in (q, k, v))
        return dict(kernel=P.s36_causal_bottom_right, args=(q, k, v, o, LOG2E / math.sqrt(d), 128, 64, 128),
                    grid=(sq // 128, B * H), got=lambda: o[0], ref=lambda: ref_attn(q[0], k[0], v[0], d ** -0.5, keep),
                    flops=4 * B * H * sq * (sk - sq + sq / 2) * d,
                    sdpa=lambda: F.scaled_dot_product_attention(qs, ks, vs, attn_mask=keep))

    def window_lse():
        d, w = 64, 1024
        q, k, v = r(B * H, S, d, seed=1), r(B * H, S, d, seed=2), r(B * H, S, d, seed=3)
        o, lse_ = nan(B * H, S, d), nan(B * H, S, dt="float32")
        i, j = pos(S, S)
        keep = (j <= i) & (j > i - w)

        def ref():
            s = ((q[0].float() @ k[0].float().T) * d ** -0.5).masked_fill(~keep, float("-inf"))
            return torch.cat([ref_attn(q[0], k[0], v[0], d ** -0.5, keep).flatten(),
                              (torch.logsumexp(s, -1) / math.log(2.0)).flatten()])
        qs, ks, vs = (x.view(B, H, S, d) for x in (q, k, v))
        return dict(kernel=P.s36_window_lse_1d, args=(q, k, v, o, lse_, LOG2E / math.sqrt(d), w, 128, 32, 64),
                    grid=(S // 128, B * H), got=lambda: torch.cat([o[0].float().flatten(), lse_[0].flatten()]),
                    ref=ref, flops=4 * B * H * S * w * d,
                    sdpa=lambda: F.scaled_dot_product_attention(qs, ks, vs, attn_mask=keep))

    def sample_gqa():
        d, hkv = 64, 4
        q, k, v = r(B, S, H, d, seed=1), r(B, S, hkv, d, seed=2), r(B, S, hkv, d, seed=3)
        o = nan(B, S, H, d)
        g = H // hkv
        qs, ks, vs = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        return dict(kernel=P.s36_sample_gqa_bshd, args=(q, k, v, o, d ** -0.5, H, g, 128, 128, d),
                    grid=(S // 128, B * H), got=lambda: o[0, :, 0],
                    ref=lambda: ref_attn(qs[0, 0], ks[0, 0], vs[0, 0], d ** -0.5), flops=4 * B * H * S * S * d,
                    sdpa=lambda: F.scaled_dot_product_attention(qs, ks.repeat_interleave(g, 1),
                                                                vs.repeat_interleave(g, 1)))

    def o_transposed():
        d = 64
        q, k, v = r(B * H, S, d, seed=1), r(B * H, S, d, seed=2), r(B * H, S, d, seed=3)
        ot = nan(B * H, d, S)
        qs, ks, vs = (x.view(B, H, S, d) for x in (q, k, v))
        return dict(kernel=P.s36_o_transposed, args=(q, k, v, ot, LOG2E / math.sqrt(d), 128, 64, d),
                    grid=(S // 128, B * H), got=lambda: ot[0], ref=lambda: ref_attn(q[0], k[0], v[0], d ** -0.5).T,
                    flops=4 * B * H * S * S * d,
                    sdpa=lambda: F.scaled_dot_product_attention(qs, ks, vs).transpose(-1, -2).contiguous())

    WL, WR, PREFIX = 512, 256, 1024
    if textbook:
        return {"tb_causal_d64_128x64": bhsd(P.s36_causal, 64, 128, 64, 64, causal=True),
                "tb_plain_d64_128x128": bhsd(P.s36_plain, 64, 128, 128, 64),
                "tb_plain_d80_128x64": bhsd(P.s36_plain, 80, 128, 64, 128)}
    return {
        "s36_d80_plain": bhsd(P.s36_plain, 80, 128, 64, 128),
        "s36_d80_causal_bm128": bhsd(P.s36_causal, 80, 128, 64, 128, causal=True),
        "s36_d96_causal_bf16": bhsd(P.s36_causal, 96, 128, 64, 128, causal=True, dt="bfloat16"),
        "s36_d48_plain": bhsd(P.s36_plain, 48, 128, 128, 64),
        "s36_d160_cross_bn32": bhsd(P.s36_plain, 160, 64, 32, 256, sq=1024),
        "s36_bn32_plain": bhsd(P.s36_plain, 64, 128, 32, 64),
        "s36_bn128_bm128": bhsd(P.s36_plain, 64, 128, 128, 64),
        "s36_bn256_plain": bhsd(P.s36_plain, 64, 64, 256, 64),
        "s36_d80_bshd_cross_strided": bshd_strided,
        "s36_sample_kt_view_causal": sample(True, 64, 64, 128, 128),
        "s36_sample_kt_view_d96": sample(False, 96, 128),
        "s36_kt_array_cross_d96": kt_cross,
        "s36_window_two_bounds": bhsd(P.s36_window_two_bounds, 64, 128, 64, 64, extra=(WL, WR),
                                      mask=lambda i, j: (j >= i - WL) & (j <= i + WR), keys_per_row=WL + WR + 1),
        "s36_prefix_lm": bhsd(P.s36_prefix_lm, 64, 128, 64, 64, extra=(PREFIX,),
                              mask=lambda i, j: (j < PREFIX) | (j <= i),
                              keys_per_row=(S / 2 + PREFIX ** 2 / (2 * S))),
        "s36_document_mask": four_d(P.s36_document_mask, docs, doc_keep),
        "s36_key_padding_lens": four_d(P.s36_key_padding_lens, lens, pad_keep),
        "s36_dropout_hashed": dropout,
        "s36_runtime_scale_exp_bf16": bhsd(P.s36_runtime_scale_exp, 64, 128, 64, 64, dt="bfloat16", natural=True),
        "s36_scale_in_exp": bhsd(P.s36_scale_in_exp, 64, 128, 64, 64, causal=True, natural=True),
        "s36_q_prescaled_d96": bhsd(P.s36_q_prescaled, 96, 128, 64, 128),
        "s36_triton_tutorial": bhsd(P.s36_triton_tutorial, 64, 128, 64, 64, causal=True, natural=True),
        "s36_lse_log2_cross": lse(P.s36_lse_log2, False, False, 64, 64, "float16"),
        "s36_lse_natural_f32out_d80": lse(P.s36_lse_natural_f32out, True, True, 80, 128, "float32"),
        "s36_causal_bottom_right_d80": bottom_right,
        "s36_window_lse_1d_bn32": window_lse,
        "s36_sample_gqa_bshd_order": sample_gqa,
        "s36_d80_bn256": bhsd(P.s36_plain, 80, 64, 256, 128),
        "s36_o_transposed_bm128": o_transposed,
        "s36_two_pass": None,  # SIMT path (two loops of dots): no speed line
    }


def run_one(name, build, iters, torch):
    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.timing import bench_ms

    c = build()
    stream = torch.cuda.current_stream()
    row = {"program": name}

    def launch():
        tileorch.cutile.launch(stream, c["grid"], c["kernel"], c["args"])

    launch()
    torch.cuda.synchronize()
    prog = rc.compiled(c["kernel"], rc.describe_arguments(c["kernel"], c["args"]), "sm_90a", "persistent").program
    row["tileorch_path"] = prog.kind
    got, ref = c["got"]().float(), c["ref"]()
    row["unwritten"] = int(torch.isnan(got).sum())
    row["tileorch_err"] = float((got - ref).abs().nan_to_num(float("inf")).max())
    row["tileorch_ms"] = round(bench_ms(launch, iters), 4)
    row["tileorch_tflops"] = round(c["flops"] / row["tileorch_ms"] / 1e9, 1)
    try:
        row["sdpa_ms"] = round(bench_ms(c["sdpa"], iters), 4)
        row["sdpa_tflops"] = round(c["flops"] / row["sdpa_ms"] / 1e9, 1)
        row["vs_sdpa"] = round(row["sdpa_ms"] / row["tileorch_ms"], 3)  # > 1: tileorch faster
    except Exception as exc:  # noqa: BLE001 - SDPA without a backend for this case
        row["sdpa_error"] = f"{type(exc).__name__}: {exc}"[:200]
    return row


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="")
    a = ap.parse_args(argv)
    cases = _cases(torch)
    rows = []
    for name, build in cases.items():
        if (a.only and name not in a.only.split(",")) or build is None:
            continue
        try:
            row = run_one(name, build, a.iters, torch)
        except Exception as exc:  # noqa: BLE001 - one program's failure is its row
            row = {"program": name, "error": f"{type(exc).__name__}: {exc}"[:400]}
        rows.append(row)
        print(json.dumps(row), flush=True)
        torch.cuda.empty_cache()
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
