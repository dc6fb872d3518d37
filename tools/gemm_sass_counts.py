"""Instructions per K step of a GEMM-tier kernel's consumer loop (session 41: the computed operands' K-indexed vectors).

Usage::

    python tools/gemm_sass_counts.py --program rmsnorm_gamma_gemm_f16 [--size 4096] [--env K=V,..] [--nvdisasm PATH]

Compiles a program of the GEMM zoo (``tileorch.testing.dot_programs``; its tiles, fake arrays of ``--size``
cubed) with ptxas, disassembles the cubin with ``nvdisasm`` (``--nvdisasm``, else ``$NVDISASM``, else on PATH; the
pip wheel ``nvidia-cuda-nvdisasm`` has one) and finds the consumer K loops (innermost loops holding ``HGMMA``; one per
consumer warp group).  For the first, its shortest and longest paths from its head to its backward branch along
forward edges (``tools/chained_sass_counts.paths``: the mbarrier waits' retry blocks not taken) are reported with
their instruction counts and the counts of the opcodes a computed operand's K step spends (LDG, LDS, STS, R2UR, SEL,
HGMMA, ...).  Instructions are per warp and K step.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("LDG", "LDS", "STS", "R2UR", "SEL", "ISETP", "IMAD", "IADD3", "LEA", "HMUL2", "HFMA2", "F2FP", "PRMT", "HGMMA",
        "SYNCS", "BAR", "FENCE", "WARPGROUP")


def compile_zoo(name: str, size: int):
    """The zoo program ``name`` on fake ``size``-cubed arrays (its own tiles and dtypes), compiled for sm_90a."""
    from tileorch.driver import compile_program
    from tileorch.testing import dot_programs as dp
    from tileorch.testing.export import cutile_bytecode

    p = dp.PROGRAMS[name]
    specs = {  # (the argument shapes and dtypes of each program's make function, without a GPU)
        "rmsnorm_gamma_gemm_f16": [((size, size), "float16"), ((size,), "float16"), ((size, size), "float16"),
                                   ((size, size), "float32")],
        "gemm_w8a16_group128_f16": [((size, size), "float16"), ((size, size), "int8"),
                                    ((size // 128, size), "float32"), ((size, size), "float32")],
        "relu_a_gemm_f16": [((size, size), "float16"), ((size, size), "float16"), ((size, size), "float32")],
        "linear_w8a16_channel_scale_f16": [((size, size), "float16"), ((size, size), "int8"), ((size,), "float16"),
                                           ((size, size), "float16")],
    }
    spec = specs[name] + list(p.tiles) + list(p.extra)
    return compile_program(cutile_bytecode(p.kernel, spec), name, arch="sm_90a")


def k_loop(insts, labels) -> tuple[int, int]:
    """(head, index of the backward branch) of the first innermost loop holding HGMMAs."""
    from chained_sass_counts import TARGET

    for i, (_, _, op, args) in enumerate(insts):
        t = TARGET.search(args)
        if not op.startswith("BRA") or not t or labels[t.group(1)] > i:
            continue
        head = labels[t.group(1)]
        body = insts[head:i + 1]
        inner = any(o.startswith("BRA") and TARGET.search(a) and head < labels[TARGET.search(a).group(1)] <= j + head
                    for j, (_, _, o, a) in enumerate(body[:-1]))
        if any(o.startswith("HGMMA") for _, _, o, _ in body) and not inner:
            return head, i
    raise SystemExit("no loop with HGMMAs found")


def key(op: str) -> str:
    for k in KEYS:
        if op == k or op.startswith(k + "."):
            return k
    return op.split(".")[0]


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT / "tools"))
    from chained_sass_counts import parse_sass, paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--program", default="rmsnorm_gamma_gemm_f16")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--env", default="", help="K=V,K=V: compile-time switches")
    ap.add_argument("--nvdisasm", default=os.environ.get("NVDISASM") or shutil.which("nvdisasm"))
    ns = ap.parse_args(argv)
    for kv in (x for x in ns.env.split(";") if x.strip()):
        k, v = kv.split("=", 1)
        os.environ[k] = v
    p = compile_zoo(ns.program, ns.size)
    cfg = p.gemm_config
    print(f"{ns.program} {ns.env or '(default)'}: {cfg.name} ({cfg.stages} stages, kvecs {cfg.kvecs!r})")
    if not ns.nvdisasm or p.cubin is None:
        print("no nvdisasm (or no cubin): SASS not counted")
        return 1
    cubin = Path("/tmp") / f"gemm_sass_counts_{os.getpid()}.cubin"
    cubin.write_bytes(p.cubin)
    sass = subprocess.run([ns.nvdisasm, "-c", str(cubin)], capture_output=True, text=True, check=True).stdout
    cubin.unlink()
    insts, labels = parse_sass(sass)
    head, back = k_loop(insts, labels)
    for name, path in zip(("shortest", "longest"), paths(insts, labels, head, back)):
        c = Counter(key(insts[i][2]) for i in path)
        print(f"SASS K step ({name} path): {len(path)} instructions; "
              + ", ".join(f"{k} {c[k]}" for k in KEYS if c.get(k)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
