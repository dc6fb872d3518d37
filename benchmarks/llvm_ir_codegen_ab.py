"""LLVM IR size and code generation CPU of two source trees for the same programs (issue 22).

Usage::

    python benchmarks/llvm_ir_codegen_ab.py BEFORE_SRC AFTER_SRC [--repeat 5] [NAME ...]

``NAME``: an ``examples/*.mlir`` stem (default ``gemm_sm90 tile_gemm``) or ``chained_attn_d128``
(the attention program of ``tools/ptx_identity.py``'s chained set, exported through cuTile).
Each tree translates each program in a process of its own (``PYTHONPATH`` = the tree, cache off);
then this process runs the code generation child's work (:func:`tileorch.backend.ptx.codegen`:
LLVM's parse, verify and NVPTX code generation) on the two texts alternately ``--repeat`` times
and prints, per program, the IR size, the minimum and median CPU seconds of ``codegen`` and the
minimum CPU of LLVM's parse + verify alone, before -> after; it stops if the PTX differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_DUMP = """
import json, math, os, sys
from pathlib import Path
import tileorch
name, out = sys.argv[1], sys.argv[2]
if name == "chained_attn_d128":
    sys.path.insert(0, {benchmarks!r})
    import compile_time as ct
    from tileorch.testing import attention_programs as ap
    qkv = [((4, 1000, 128), "float16")] * 4
    ct.export_cutile(name, ap.attention_fwd, qkv + [1.0 / math.sqrt(128) / math.log(2.0), 1000, 128, 64, 128, False], Path(out))
    source = (Path(out) / (name + ".tileirbc")).read_bytes()
else:
    source = str(Path({examples!r}) / (name + ".mlir"))
kernel = tileorch.compile(source, None, cache=False, ptxas=False, isolate=True)
Path(out, "ir.ll").write_text(kernel.llvm_ir)
"""


def _dump(src: str, name: str, directory: Path) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    code = _DUMP.format(benchmarks=str(ROOT / "benchmarks"), examples=str(ROOT / "examples"))
    env = {**os.environ, "PYTHONPATH": src, "TILEORCH_CACHE": "0"}
    subprocess.run([sys.executable, "-c", code, name, str(directory)], env=env, check=True)
    return (directory / "ir.ll").read_text()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("names", nargs="*", default=["gemm_sm90", "tile_gemm"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    from tileorch.backend import ptx

    llvm = ptx._init_llvm()  # noqa: SLF001 - the code generation child's own initialisation
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.names:
            texts = {tree: _dump(src, name, Path(tmp, name, tree)) for tree, src in
                     (("before", args.before), ("after", args.after))}
            outputs = {tree: ptx.codegen(t, "sm_90a", ptx.DEFAULT_PTX_VERSION) for tree, t in texts.items()}
            if outputs["before"] != outputs["after"]:
                print(f"{name}: the PTX differs", file=sys.stderr)
                return 1
            cpu = {tree: [] for tree in texts}
            parse = {tree: [] for tree in texts}
            for _ in range(args.repeat):
                for tree, text in texts.items():
                    start = time.process_time()
                    ptx.codegen(text, "sm_90a", ptx.DEFAULT_PTX_VERSION)
                    cpu[tree].append(time.process_time() - start)
                    start = time.process_time()
                    llvm.parse_assembly(text).verify()
                    parse[tree].append(time.process_time() - start)
            rows[name] = {tree: {"bytes": len(texts[tree]), "codegen_cpu_min": min(cpu[tree]),
                                 "codegen_cpu_median": sorted(cpu[tree])[len(cpu[tree]) // 2],
                                 "parse_verify_cpu_min": min(parse[tree])} for tree in texts}
            b, a = rows[name]["before"], rows[name]["after"]
            print(f"{name}: IR {b['bytes'] / 1e6:.3f} -> {a['bytes'] / 1e6:.3f} MB; codegen CPU min "
                  f"{b['codegen_cpu_min']:.3f} -> {a['codegen_cpu_min']:.3f} s (median {b['codegen_cpu_median']:.3f} -> "
                  f"{a['codegen_cpu_median']:.3f}); parse+verify min {b['parse_verify_cpu_min'] * 1e3:.1f} -> "
                  f"{a['parse_verify_cpu_min'] * 1e3:.1f} ms; PTX identical", flush=True)
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
