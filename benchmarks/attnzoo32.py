"""Timing of session 32's attention-zoo programs on the tensor-core (chained) path
(``tileorch.testing.attnzoo32_programs``) at model sizes through ``tileorch.cutile.launch``, beside
``F.scaled_dot_product_attention`` (flash backend) of the same sizes in the same process.  SDPA runs the same
work where a plain / causal attention is the same work (plain, causal, the off-by-one and temperature forms, q-k
norm without its norms, ALiBi without its bias, decode with the group's 8 query heads as 8 query rows); for the
others it is the speed line (``sdpa_same_work`` false: chunked prefill vs non-causal, the sink window vs causal).
TFLOP/s counts the two dots' work the program does (``4 rows keys D`` over the keys each row visits); decode and
split-KV also print GB/s of the K / V cache read.  Each output's first heads are checked against a torch fp32
reference (max abs error).  One JSON row per program; ``--out`` writes them.
Run on the device: ``python3 benchmarks/attnzoo32.py --out $OUT/attnzoo32.json``."""

from __future__ import annotations

import argparse
import json
import math
import sys

LOG2E = 1.4426950408889634


def _cases(torch):
    """name -> () -> dict(args, grid, got, ref, flops, sdpa=(b, h, sq, sk, d, causal, same_work) | None, bytes,
    after=(kernel name, args, grid) | None: a second launch timed with the first)."""

    def r(*shape, dt="float16", seed=0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(*shape, device="cuda", generator=g).to(getattr(torch, dt))

    def nan(*shape, dt="float16"):
        return torch.full(shape, float("nan"), device="cuda", dtype=getattr(torch, dt))

    def attn(q, k, v, scale, keep=None, bias=None):
        s = (q.float() @ k.float().transpose(-1, -2)) * scale
        if bias is not None:
            s = s + bias
        if keep is not None:
            s = s.masked_fill(~keep, float("-inf"))
        return torch.softmax(s, -1) @ v.float()

    def pos(sq, sk, q0=0):
        return torch.arange(q0, q0 + sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]

    def plain(extra_before_o=(), causal=False, bh=64, s=4096, d=64, dt="float16", bm=128, bn=128, dtile=None,
              o_dt=None, ref_fn=None, scale_log2=True, extra_after_scale=()):
        q, k, v = (r(bh, s, d, dt=dt, seed=i) for i in (1, 2, 3))
        o = nan(bh, s, d, dt=o_dt or dt)
        sc = (LOG2E if scale_log2 else 1.0) / math.sqrt(d)
        args = (q, k, v, *extra_before_o, o, sc, *extra_after_scale, bm, bn, dtile or d)
        i, j = pos(s, s)
        ref = ref_fn or (lambda: attn(q[:2], k[:2], v[:2], d ** -0.5, (j <= i) if causal else None))
        work = 4 * bh * s * s * d // (2 if causal else 1)
        return dict(args=args, grid=(s // bm, bh, 1), got=lambda: o[:2], ref=ref, flops=work,
                    sdpa=(1, bh, s, s, d, causal, True), dt=dt)

    def decode_gqa8(b=32, smax=4096, h=32, hkv=4, d=128):
        q, k, v = r(b, 1, h, d, dt="bfloat16", seed=4), r(b, smax, hkv, d, dt="bfloat16", seed=5), \
            r(b, smax, hkv, d, dt="bfloat16", seed=6)
        lens = torch.full((b,), smax, device="cuda", dtype=torch.int32)
        o = nan(b, 1, h, d, dt="bfloat16")

        def ref():  # batch 0, KV head 0's 8 query heads
            return attn(q[0, 0, :8], k[0, :, 0], v[0, :, 0], d ** -0.5)
        return dict(args=(q, k, v, lens, o, LOG2E / math.sqrt(d), h // hkv, 128, d), grid=(hkv, b, 1),
                    got=lambda: o[0, 0, :8], ref=ref, flops=4 * b * h * smax * d,
                    sdpa=(b, hkv, h // hkv, smax, d, False, True), bytes=2 * b * smax * hkv * d * 2, dt="bfloat16")

    def split_kv(b=4, h=32, s=32768, d=64, ns=32):
        q, k, v = r(b, h, d, seed=7), r(b, h, s, d, seed=8), r(b, h, s, d, seed=9)
        op, lp, o = nan(b, h, ns, d, dt="float32"), nan(b, h, ns, dt="float32"), nan(b, h, d)

        def ref():
            return attn(q[0, :2, None], k[0, :2], v[0, :2], d ** -0.5)[:, 0]
        return dict(args=(q, k, v, op, lp, LOG2E / math.sqrt(d), 128, d), grid=(ns, h, b), got=lambda: o[0, :2],
                    ref=ref, flops=4 * b * h * s * d, sdpa=(b, h, 1, s, d, False, True), bytes=2 * b * h * s * d * 2,
                    after=("z32_split_kv_combine_online", (op, lp, o, ns, d), (h, b, 1)), dt="float16")

    def chunk_prefill(b=2, h=16, sq=2048, sk=8192, d=64):
        q, k, v = r(b * h, sq, d, seed=10), r(b * h, sk, d, seed=11), r(b * h, sk, d, seed=12)
        ql = torch.full((b,), sq, device="cuda", dtype=torch.int32)
        kl = torch.full((b,), sk, device="cuda", dtype=torch.int32)
        o = nan(b * h, sq, d)
        i, j = pos(sq, sk, sk - sq)
        keys = sum(sk - sq + t + 1 for t in range(sq))
        return dict(args=(q, k, v, ql, kl, o, LOG2E / math.sqrt(d), h, 128, 128, d), grid=(sq // 128, b * h, 1),
                    got=lambda: o[:2], ref=lambda: attn(q[:2], k[:2], v[:2], d ** -0.5, j <= i),
                    flops=4 * b * h * keys * d, sdpa=(b, h, sq, sk, d, False, False), dt="float16")

    def sink_window(bh=32, s=8192, d=64, w=1024):
        q, k, v = (r(bh, s, d, seed=i) for i in (13, 14, 15))
        o = nan(bh, s, d)
        i, j = pos(s, s)
        keep = (j <= i) & ((j < 128) | (j > i - w))
        return dict(args=(q, k, v, o, LOG2E / math.sqrt(d), w, 128, 128, d), grid=(s // 128, bh, 1),
                    got=lambda: o[:1], ref=lambda: attn(q[:1], k[:1], v[:1], d ** -0.5, keep),
                    flops=4 * bh * s * (w + 128) * d, sdpa=(1, bh, s, s, d, True, False), dt="float16")

    def alibi(b=4, h=16, s=4096, d=64):
        q, k, v = (r(b, h, s, d, dt="bfloat16", seed=i) for i in (16, 17, 18))
        p = torch.arange(s, device="cuda", dtype=torch.int32)[None].repeat(b, 1).contiguous()
        o = nan(b, h, s, d, dt="bfloat16")
        i, j = pos(s, s)
        slope = 2.0 ** (-8.0 / h)
        return dict(args=(q, k, v, p, o, LOG2E / math.sqrt(d), h, 128, 128, d), grid=(s // 128, h, b),
                    got=lambda: o[0, 0], ref=lambda: attn(q[0, 0], k[0, 0], v[0, 0], d ** -0.5, j <= i,
                                                         slope * (j - i).float()),
                    flops=2 * b * h * s * s * d, sdpa=(b, h, s, s, d, True, True), dt="bfloat16")

    def hf_mask(b=4, h=16, s=4096, d=64):
        q, k, v = (r(b * h, s, d, seed=i) for i in (19, 20, 21))
        mask = torch.zeros(b, 1, 1, s, device="cuda", dtype=torch.float16)
        o = nan(b * h, s, d)
        return dict(args=(q, k, v, mask, o, 1 / math.sqrt(d), h, 128, 128, d), grid=(s // 128, b * h, 1),
                    got=lambda: o[:2], ref=lambda: attn(q[:2], k[:2], v[:2], d ** -0.5),
                    flops=4 * b * h * s * s * d, sdpa=(b, h, s, s, d, False, True), dt="float16")

    def temperature():
        tau = torch.ones(64, 4096, device="cuda")
        return plain(extra_before_o=(tau,))

    def qk_norm(bh=64, s=4096, d=64):
        q, k, v = (r(bh, s, d, seed=i) for i in (22, 23, 24))
        wq = wk = torch.ones(d, device="cuda")
        o = nan(bh, s, d)

        def norm(x):
            x = x.float()
            return (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)).half()
        return dict(args=(q, k, v, wq, wk, o, LOG2E / math.sqrt(d), 1e-6, 128, 128, d), grid=(s // 128, bh, 1),
                    got=lambda: o[:2], ref=lambda: attn(norm(q[:2]), norm(k[:2]), v[:2], d ** -0.5),
                    flops=4 * bh * s * s * d, sdpa=(1, bh, s, s, d, False, True), dt="float16")

    def off_by_one():
        c = plain(causal=True)
        q, k, v = c["args"][:3]
        i, j = pos(4096, 4096)

        def ref():
            sc = ((q[:2].float() @ k[:2].float().transpose(-1, -2)) / 8).masked_fill(~(j <= i), float("-inf"))
            e = torch.exp(sc)
            return (e / (1 + e.sum(-1, keepdim=True))) @ v[:2].float()
        c["ref"] = ref
        return c

    def two_heads(b=4, h=32, s=4096, d=64):
        q, k, v = (r(b, h, s, d, seed=i) for i in (25, 26, 27))
        o = nan(b, h, s, d)
        return dict(args=(q, k, v, o, LOG2E / math.sqrt(d), 128, 128, d), grid=(s // 128, h // 2, b),
                    got=lambda: o[0, :2], ref=lambda: attn(q[0, :2], k[0, :2], v[0, :2], d ** -0.5),
                    flops=4 * b * h * s * s * d, sdpa=(b, h, s, s, d, False, True), dt="float16")

    def lse_only(bh=64, s=4096, d=64):
        q, k = r(bh, s, d, seed=28), r(bh, s, d, seed=29)
        lse = nan(bh, s, dt="float32")

        def ref():
            return torch.logsumexp((q[:2].float() @ k[:2].float().transpose(-1, -2)) * d ** -0.5, -1)
        return dict(args=(q, k, lse, 1 / math.sqrt(d), 128, 128, d), grid=(s // 128, bh, 1), got=lambda: lse[:2],
                    ref=ref, flops=2 * bh * s * s * d, sdpa=(1, bh, s, s, d, False, False), dt="float16")

    return {"z32_two_mha_heads": two_heads, "z32_lse_only": lse_only, "z32_decode_gqa8_bshd_lens": decode_gqa8, "z32_split_kv_grid_splits": split_kv,
            "z32_chunk_prefill_lens": chunk_prefill, "z32_sink_tile_peeled_window": sink_window,
            "z32_alibi_position_ids_bf16": alibi, "z32_hf_additive_mask_f16": hf_mask,
            "z32_row_temperature": temperature, "z32_softmax_off_by_one": off_by_one,
            "z32_keys_last_tile_first": lambda: plain(),
            "z32_cross_d112_bf16_f32out": lambda: plain(bh=32, d=112, dt="bfloat16", bn=64, dtile=128,
                                                        o_dt="float32"),
            "z32_causal_d160": lambda: plain(causal=True, bh=32, d=160, bm=64, bn=64, dtile=256),
            "z32_qk_rmsnorm": qk_norm}


def run_one(torch, name: str, make, iters: int, schedule: str = "auto") -> dict:
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.attnzoo32_programs import PROGRAMS
    from tileorch.testing.timing import bench_ms

    c = make()
    kernel = PROGRAMS[name].kernel
    stream = torch.cuda.current_stream()
    after = c.get("after")

    def launch():
        tileorch.cutile.launch(stream, c["grid"], kernel, c["args"], schedule=schedule)
        if after:
            tileorch.cutile.launch(stream, after[2], PROGRAMS[after[0]].kernel, after[1], schedule=schedule)

    row: dict = {"program": name, **({"schedule": schedule} if schedule != "auto" else {})}
    launch()
    torch.cuda.synchronize()
    row["tileorch_path"] = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(c["args"])), "sm_90a",
                                       "persistent" if schedule == "auto" else schedule).program.kind
    got = c["got"]()
    row["unwritten"] = int(torch.isnan(got.float()).sum().item())
    row["tileorch_err"] = float((got.float() - c["ref"]()).abs().max().item())
    row["tileorch_ms"] = bench_ms(launch, iters)
    row["tileorch_tflops"] = round(c["flops"] / row["tileorch_ms"] / 1e9, 1)
    if c.get("bytes"):
        row["tileorch_gbps"] = round(c["bytes"] / row["tileorch_ms"] / 1e6, 1)
    if c.get("sdpa"):
        b, hq, sq, sk, d, causal, same = c["sdpa"]
        dt = getattr(torch, c["dt"])
        q4, k4, v4 = (torch.randn(b, hq, n, d, device="cuda", dtype=dt) for n in (sq, sk, sk))
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            row["sdpa_flash_ms"] = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal),
                                            iters)
        row["sdpa_same_work"] = same
        sdpa_flops = 4 * b * hq * sq * sk * d // (2 if causal else 1)
        row["sdpa_flash_tflops"] = round(sdpa_flops / row["sdpa_flash_ms"] / 1e9, 1)
        row["sdpa_over_tileorch_ms"] = round(row["sdpa_flash_ms"] / row["tileorch_ms"], 3)
        if c.get("bytes"):
            row["sdpa_gbps"] = round(c["bytes"] / row["sdpa_flash_ms"] / 1e6, 1)
    return row


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--out", default="")
    ap.add_argument("--schedule", default="auto",
                    help="the launcher's schedule: auto (the compiler's choice) or simt (the SIMT path: the path a "
                         "refused program took)")
    ns = ap.parse_args(argv)
    import torch

    rows = []
    for name, make in _cases(torch).items():
        if ns.only and name not in ns.only.split(","):
            continue
        try:
            row = run_one(torch, name, make, ns.iters, ns.schedule)
        except Exception as exc:  # noqa: BLE001 - a program that cannot run is a row entry
            row = {"program": name, "error": f"{type(exc).__name__}: {exc}"[:300]}
        rows.append(row)
        print(json.dumps(row), flush=True)
        if ns.out:
            with open(ns.out, "w") as f:
                json.dump(rows, f, indent=1)
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
