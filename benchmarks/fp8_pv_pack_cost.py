"""The cost in PTX instructions of packing P for the second dot (session 45, issue 20): the cuTile program
``fp8attn43_programs.fp8qkv_p_fp8`` compiled for sm_90a (no GPU) with an e4m3 V (fp8 ``P V``: P packed four bytes a
register in the accumulator's element order, ``cvt.rn.satfinite.e4m3x2.f32`` + ``mov.b32 {lo, hi}``, V's keys
permuted in its launch copy to match) and with an f16 V (the f16-P form: ``cvt.rn.f16x2.f32`` pairs), head dim 128,
128 x 128 tiles.  Prints, per form, the kernel's PTX instruction count and the pack instructions (each pack site
packs one key tile: ``tn / 2`` P values a thread; the f16 count includes the epilogue's O packs), the shuffles (the row
reductions' only: P is not shuffled) and the register-A WGMMAs (and the sites issuing them).  Run: ``python benchmarks/fp8_pv_pack_cost.py``."""

from __future__ import annotations

import re


def counts(v_dtype: str, d: int = 128, tm: int = 128, tn: int = 128) -> dict:
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.fp8attn43_programs import fp8qkv_p_fp8

    spec = [((32, 4096, d), "float8_e4m3fn"), ((32, 4096, d), "float8_e4m3fn"), ((32, 4096, d), v_dtype),
            ((32, 4096, d), "float16"), 0.25, 2.0, 0.1, tm, tn, d]
    ptx = compile_once(cutile_bytecode(fp8qkv_p_fp8, spec), f"pack_cost_{v_dtype}_{d}_{tm}x{tn}", arch="sm_90a",
                       ptxas=False).ptx
    lines = [x.strip() for x in ptx.splitlines()]
    lines = [x for x in lines if x and not x.startswith(("//", ".", "$", "{", "}", "@%p"))] + \
        [x.split(None, 1)[1] for x in lines if x.startswith("@%p")]

    def n(pat: str) -> int:
        return sum(1 for x in lines if re.match(pat, x))

    return {"instructions": len(lines), "cvt.rn.satfinite.e4m3x2.f32": n(r"cvt\.rn\.satfinite\.e4m3x2\.f32"),
            "mov.b32 {lo, hi}": n(r"mov\.b32\s+%r\d+, \{"), "cvt.rn.f16x2.f32": n(r"cvt\.rn\.f16x2\.f32"),
            "shfl": n(r"shfl"), "prmt": n(r"prmt"), "register-A wgmma": n(r"wgmma\.mma_async.*\{%r"),
            "P V issue sites": n(r"wgmma\.mma_async.*\{%r") // (tn // (32 if v_dtype.startswith("float8") else 16))}


def main() -> None:
    for v in ("float8_e4m3fn", "float16"):
        print(f"[s45 pack] V {v}: {counts(v)}")


if __name__ == "__main__":
    main()
