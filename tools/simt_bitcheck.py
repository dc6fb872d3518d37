"""Run two PTX texts of one SIMT user program on the PTX emulator with the same inputs and compare the outputs bit
for bit (a change that should keep every value: session 41's inline assembly -> intrinsics, where LLVM now folds).

Usage::

    python tools/simt_bitcheck.py BEFORE_DIR NAME [NAME ...]

``BEFORE_DIR``: a ``tools/ptx_identity.py save`` directory (its ``simt_user_<NAME>.ptx``); ``NAME``: a program of
``tileorch.testing.user_programs`` / ``user_programs2`` with 1-D grid, compiled here by the tree on ``PYTHONPATH``.
Inputs: four seeded random sets (normal values times 0.01 to 1000, with zeros of both signs, +-1, +-0.5, +-1.5,
integers, infinities, NaN, subnormals, values near f32's overflow and exp's edges planted), outputs pre-filled with
NaN; the emulator runs every CTA.  Prints one line per program; an AssertionError on the first differing byte.
"""

from __future__ import annotations

import re
import struct
import sys

import numpy as np

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0, np.inf, -np.inf, np.nan, -np.nan,
                    1e-40, -1e-40, 1e-30, 3.4e38, -3.4e38, 100.0, -100.0, 0.1, 7.0, -7.5, 88.7, -104.0, 1e10, -1e-10])
"""Values planted in every float input."""


def _params_of(ptx: str) -> list[str]:
    head = ptx[ptx.index(".entry"):]
    return re.findall(r"\.param\s+\.(\w+)", head[:head.index(")")])


def _inputs(spec: list, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for a in spec:
        if not isinstance(a, tuple):
            out.append(a)
            continue
        shape, dt = a
        n = int(np.prod(shape))
        if dt in ("float32", "float16", "float64"):
            v = rng.standard_normal(n) * rng.choice([0.01, 1, 10, 1000], n)
            k = min(len(SPECIAL), n)
            v[rng.choice(n, k, replace=False)] = SPECIAL[:k]
            with np.errstate(over="ignore"):
                out.append(v.astype(dt).reshape(shape))
        elif dt == "bfloat16":
            import ml_dtypes

            out.append((rng.standard_normal(n) * 3).astype(ml_dtypes.bfloat16).reshape(shape))
        else:
            out.append(rng.integers(0, 255, n).astype(dt).reshape(shape))
    return out


def _run(ptx: str, prog, spec: list, arrays: list, grid: tuple) -> None:
    """Every CTA of ``ptx`` on ``arrays`` (written in place): per array its address, extents and strides."""
    from tileorch.testing.ptx_emulator import Emu

    memory, values = [], []
    for i, (a, s) in enumerate(zip(arrays, spec)):
        if isinstance(s, tuple):
            base = (i + 1) << 32
            memory.append((base, a.reshape(-1).view(np.uint8), f"arg{i}"))
            values += [base, *a.shape, *(int(np.prod(a.shape[d + 1:])) for d in range(a.ndim))]
        elif isinstance(s, float):
            values.append(struct.unpack("<I", struct.pack("<f", s))[0])
    threads, nx = prog.threads, grid[0]
    if prog.warp_programs:
        values.append(grid[0])
        threads, nx = 32, -(-grid[0] // prog.programs_per_warp)
    assert len(_params_of(ptx)) == len(values), (_params_of(ptx), values)
    for x in range(nx):
        emu = Emu(ptx, [int(v) for v in values], 1 << 16, threads, (x, 0, 0), {}, memory, nctaid=(nx, 1, 1))
        emu.run()
        assert not emu.errors, emu.errors[:3]


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.split("Usage::")[1].split("``BEFORE_DIR``")[0].strip(), file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    from tileorch.testing import user_programs, user_programs2
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    programs = {**user_programs.PROGRAMS, **user_programs2.PROGRAMS}
    for name in argv[1:]:
        p = programs[name]
        prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
        with open(f"{argv[0]}/simt_user_{name}.ptx") as f:
            before = f.read()
        if any(g > 1 for g in p.grid[1:]):
            print(f"{name}: skipped (a grid of more than one dimension)")
            continue
        total = 0
        for seed in range(4):
            a1 = _inputs(p.spec, seed)
            a2 = [x.copy() if isinstance(x, np.ndarray) else x for x in a1]
            for o in p.outputs:
                a1[o][...] = np.nan if a1[o].dtype.kind == "f" else 0
                a2[o][...] = a1[o]
            _run(before, prog, p.spec, a1, p.grid)
            _run(prog.ptx, prog, p.spec, a2, p.grid)
            for o in p.outputs:
                differ = np.flatnonzero(a1[o].reshape(-1).view(np.uint8) != a2[o].reshape(-1).view(np.uint8))
                assert not differ.size, (name, seed, o, differ[:10])
                assert a1[o].dtype.kind != "f" or np.isnan(a1[o].astype(np.float64)).mean() < 0.5, (name, "unwritten")
                total += a1[o].size
        print(f"{name}: bit-identical outputs, 4 input sets, {total} output elements"
              f"{'' if before != prog.ptx else ' (the same PTX)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
