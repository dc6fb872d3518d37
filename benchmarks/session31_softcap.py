"""Issue 20's soft-cap attention (``zoo_softcap_lens_lse_bf16_d128``: Gemma-2's ``cap * tanh(s / cap)``, key
lengths, natural ``exp``, the natural LSE; bf16, d128, 128 x 128 tiles: ran at 172 TFLOP/s on an H100 in
session 30) beside its ablations and SDPA, at benchmarks/attnzoo30.py's size (32 heads of 4096 queries and
keys; every key length 4096, so no tile is masked, and a ragged row with 4096 - 37 keys).

Programs (the ablations are the zoo program less one feature, same arguments): ``softcap`` (the zoo's),
``softcap_ragged`` (the zoo's, batch lengths 4059), ``no_cap``, ``no_lens`` (the loop over ``K.shape``),
``no_lse``, ``plain_exp`` (none of the three: natural ``exp`` online softmax), ``tanh_approx`` (the zoo's with
``ct.tanh(..., rounding_mode=APPROX)``: the program asking for ``tanh.approx.f32``).
Configurations, each in its own process (the switches are read at compile): ``default``, ``s30``
(``TILEORCH_UNIFORM_DIV=0 TILEORCH_ATTN_TANH_BRANCH=0``: the loop's ``s / cap`` as ``div.rn.f32`` per element
and the full ``tanh`` computing both its forms per element, as session 30 compiled it), ``approx``
(``TILEORCH_MATH=approx``: every ``exp`` and ``tanh`` in its approximate form; not the programs' semantics,
a bound).
SDPA (flash backend) on the plain attention of the same size, in the default configuration's process.

TFLOP/s counts the two dots (``4 BH S S D``).  Each output's first two heads against torch fp32 (max abs
error).  One JSON row per (configuration, program).  Run on the device::

    python3 benchmarks/session31_softcap.py --out $OUT/softcap31.json

(``--configs default,s30`` / ``--only softcap,no_cap`` for fewer rows; about 3 s per row after the
compile).  ``--compile-only`` (no GPU) compiles each program per configuration and prints its path, ptxas's
registers and spills, the kernel's SASS size and the ``div.rn`` / ``tanh.approx`` count of its PTX.  The ablation
kernels: benchmarks/session31_softcap_programs.py."""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

CONFIGS = {"default": {}, "s30": {"TILEORCH_UNIFORM_DIV": "0", "TILEORCH_ATTN_TANH_BRANCH": "0"},
           "approx": {"TILEORCH_MATH": "approx"}}
BH, HEADS, S, D, TILE = 32, 16, 4096, 128, 128


def _kernels():
    """name -> (kernel, soft cap?, key-length ragged?)."""
    import session31_softcap_programs as sp

    from tileorch.testing.attnzoo30_programs import zoo_softcap_lens_lse

    return {"softcap": (zoo_softcap_lens_lse, True, False), "softcap_ragged": (zoo_softcap_lens_lse, True, True),
            "no_cap": (sp.s31_no_cap, False, False), "no_lens": (sp.s31_no_lens, True, False),
            "no_lse": (sp.s31_no_lse, True, False), "plain_exp": (sp.s31_plain_exp, False, False),
            "tanh_approx": (sp.s31_tanh_approx, True, False)}


def compile_only(config: str, only: list[str]) -> list[dict]:
    """No GPU: each program compiled for sm_90a as the launcher would at the benchmark's size (this process's
    configuration), with ptxas's registers / spills and the kernel's SASS size (its cubin section, 16 bytes an
    instruction: no disassembly)."""
    from tileorch.backend.ptxas import run_ptxas
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    spec = [((BH, S, D), "bfloat16")] * 3 + [((BH // HEADS,), "int32"), ((BH, S, D), "bfloat16"),
                                              ((BH, S), "float32"), D ** -0.5, 30.0, HEADS, TILE, TILE, D]
    rows = []
    for name, (kernel, _, _) in _kernels().items():
        if (only and name not in only) or name == "softcap_ragged":  # the same compiled program as softcap
            continue
        prog = compile_program(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)
        res = run_ptxas(prog.ptx, "sm_90a")
        row = {"config": config, "program": name, "path": prog.kind, "ptxas": res.summary(),
               "sass": sass_sizes(res.cubin),
               "ptx_div_rn": prog.ptx.count("div.rn.f32"), "ptx_tanh_approx": prog.ptx.count("tanh.approx.f32"),
               "remarks": [x[:160] for x in prog.remarks if "division" in x or "tanh:" in x or "exp:" in x]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def sass_sizes(cubin: bytes) -> dict:
    """Each ``.text.<kernel>`` section's size in SASS instructions (16 bytes each on sm_90), read off the ELF
    section headers."""
    import struct

    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]

    def name(off: int) -> str:
        return cubin[names + off:cubin.index(b"\0", names + off)].decode()

    return {name(x[0])[6:]: x[5] // 16 for x in secs if name(x[0]).startswith(".text.")}


def run_config(config: str, only: list[str], iters: int) -> list[dict]:
    """Every program (``only``: those named) in this process's configuration; the default one adds SDPA."""
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.timing import bench_ms

    def r(seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(BH, S, D, device="cuda", generator=g).to(torch.bfloat16)

    q, k, v = r(7), r(8), r(9)
    stream = torch.cuda.current_stream()
    flops = 4 * BH * S * S * D
    rows = []
    for name, (kernel, cap_on, ragged) in _kernels().items():
        if only and name not in only:
            continue
        n = S - 37 if ragged else S
        lens = torch.full((BH // HEADS,), n, device="cuda", dtype=torch.int32)
        o = torch.full((BH, S, D), float("nan"), device="cuda", dtype=torch.bfloat16)
        lse = torch.full((BH, S), float("nan"), device="cuda", dtype=torch.float32)
        args = (q, k, v, lens, o, lse, D ** -0.5, 30.0, HEADS, TILE, TILE, D)
        row: dict = {"config": config, "program": name, "bh": BH, "s": S, "d": D, "keys": n}
        try:
            tileorch.cutile.launch(stream, (S // TILE, BH, 1), kernel, args)
            torch.cuda.synchronize()
            prog = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent").program
            row["path"] = prog.kind
            row["remarks"] = [x[:160] for x in prog.remarks if "division" in x or "tanh:" in x or "exp:" in x]
            sc = (q[:2].float() @ k[:2, :n].float().transpose(-1, -2)) * D ** -0.5
            if cap_on:
                sc = 30.0 * torch.tanh(sc / 30.0)
            row["err"] = float((o[:2].float() - torch.softmax(sc, -1) @ v[:2, :n].float()).abs().max().item())
            row["ms"] = bench_ms(lambda: tileorch.cutile.launch(stream, (S // TILE, BH, 1), kernel, args), iters)
            row["tflops"] = round(flops * n / S / row["ms"] / 1e9, 1)
        except Exception as exc:  # noqa: BLE001 - a program that cannot run is a row entry
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
        rows.append(row)
        print(json.dumps(row), flush=True)
    if config == "default" and (not only or "sdpa" in only):
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel

        q4, k4, v4 = (x.view(1, BH, S, D) for x in (q, k, v))
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            ms = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4), iters)
        row = {"config": config, "program": "sdpa_flash_plain", "ms": ms, "tflops": round(flops / ms / 1e9, 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--only", default="", help="comma-separated program names (sdpa: the SDPA row)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="")
    ap.add_argument("--compile-only", action="store_true", help="no GPU: compile, ptxas -v, SASS sizes")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    only = [x for x in ns.only.split(",") if x]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if ns.child and ns.compile_only:
        print("ROWS " + json.dumps(compile_only(ns.child, only)), flush=True)
        return 0
    if ns.child:  # one configuration, this process: its rows as the last line
        rows = run_config(ns.child, only, ns.iters)
        print("ROWS " + json.dumps(rows), flush=True)
        return 0
    rows = []
    for config in ns.configs.split(","):
        env = {**os.environ, **CONFIGS[config]}
        cmd = [sys.executable, __file__, "--child", config, "--iters", str(ns.iters), "--only", ns.only]
        cmd += ["--compile-only"] if ns.compile_only else []
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        sys.stderr.write(proc.stderr[-2000:])
        got = [ln for ln in proc.stdout.splitlines() if ln.startswith("ROWS ")]
        for ln in proc.stdout.splitlines():
            if not ln.startswith("ROWS "):
                print(ln, flush=True)
        rows += json.loads(got[-1][5:]) if got else [{"config": config, "error": f"exit {proc.returncode}"}]
        if ns.out:
            with open(ns.out, "w") as f:
                json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
