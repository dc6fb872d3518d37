"""Session 41 (s41-asm): CPU time of a warm in-process compile of the cold SIMT programs of compile_time.py
(softmax_f16, layernorm_bf16, row_sum_f32), LLVM code generation alone, and the sizes of what it produces
(LLVM IR bytes, PTX bytes and lines, PTX inline-assembly blocks), for comparing two trees.

    PYTHONPATH=<tree>/src python benchmarks/session41_asm_compile.py [--repeat N]

Each compile: ``tileorch.compile(bytecode, cache=False, ptxas=False, isolate=False)`` (code generation in this
process, so ``time.process_time`` holds it), min of N after one warm-up; ``codegen``: ``tileorch.backend.ptx.codegen``
of the compile's LLVM IR, min of N.  Prints one line per program."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 5
    sys.path.insert(0, str(Path(__file__).parent))
    import compile_time as ct

    import tileorch
    from tileorch.backend.ptx import codegen
    from tileorch.testing.export import cutile_bytecode

    programs = ct._cutile_programs()
    for name in ("softmax_f16", "layernorm_bf16", "row_sum_f32"):
        kernel, spec, _ = programs[name]
        data = cutile_bytecode(kernel, spec)
        best = codegen_best = float("inf")
        result = tileorch.compile(data, "sm_90a", cache=False, ptxas=False, isolate=False)  # warm-up
        for _ in range(repeat):
            t = time.process_time()
            result = tileorch.compile(data, "sm_90a", cache=False, ptxas=False, isolate=False)
            best = min(best, time.process_time() - t)
        for _ in range(repeat):
            t = time.process_time()
            codegen(result.llvm_ir, "sm_90a", 86)
            codegen_best = min(codegen_best, time.process_time() - t)
        ptx = result.ptx
        blocks = len(re.findall(r"// begin inline asm", ptx))
        print(f"[s41 asm] {name}: compile cpu {best * 1e3:.1f} ms (min of {repeat}), codegen cpu {codegen_best * 1e3:.1f} ms, "
              f"LLVM IR {len(result.llvm_ir)} B, PTX {len(ptx)} B / {ptx.count(chr(10))} lines, "
              f"{blocks} inline-asm blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
