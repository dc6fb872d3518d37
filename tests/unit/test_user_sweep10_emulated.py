"""The tenth user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs) run
CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy
references as test_user_sweep10_interp.py: each test there named in :data:`EMULATED` runs again
with its ``run`` swapped for :func:`emulate` (outputs NaN / sentinel prefilled, ragged sizes, the
launcher's parameter order: per array its pointer, shape and strides, then the scalars; a
one-program-per-warp kernel gets the programs along x as its trailing parameter, one warp per CTA
here; a kernel whose reduction loop is split over a cluster runs in the clusters the launcher
gives it on an H200, its CTAs together: ``ptx_emulator.Cluster``).  The compiles are shared with test_user_sweep10_compile.py (``compile_once``).
Needs cuda-tile, no GPU, no ptxas."""

from __future__ import annotations

import inspect
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_interp as s10  # noqa: E402
import test_user_sweep_interp as sweep  # noqa: E402

from tileorch.testing import user_programs10  # noqa: E402
from tileorch.testing.user_programs10 import PROGRAMS  # noqa: E402


def _params_of(ptx: str) -> list[str]:
    """The PTX types of the entry's parameters, in order (``u64``, ``u32``, ``f32``, ...)."""
    head = ptx[ptx.index(".entry"):]
    head = head[:head.index(")")]
    return re.findall(r"\.param\s+\.(\w+)", head)


H200_SMS = 132
"""The SMs the launcher sizes a split reduction's cluster for (the GPU the GPU test runs on)."""

PRINTED: list[str] = []
"""What the emulated kernels printed (``vprintf``), CTA by CTA."""


def emulate_kernel(monkeypatch, name, kernel, arrays, spec_tail=(), grid=(1,)):
    """:func:`emulate` of one SIMT-path ``kernel`` not in the sweep: ``kernel(*arrays, *spec_tail)`` registered
    as program ``name`` (``monkeypatch`` restores the table); every array after the run, in order (a bool
    array is cuTile's ``bool_``)."""
    from tileorch.testing.user_programs import UserProgram

    spec = [(a.shape, "bool_" if a.dtype == np.bool_ else a.dtype.name) for a in arrays] + list(spec_tail)
    monkeypatch.setattr(sys.modules[__name__], "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    out = emulate(name, dict(enumerate(arrays)))
    return [out[i] for i in range(len(arrays))]


def run_grid(name, prog, params: list[int], memory: list, grid) -> None:
    """Every CTA of the launch ``grid`` of the SIMT-path program ``prog`` on the emulator, as the launcher runs it:
    ``params`` the entry's parameter values (f32 / f64 as their bits; a warp-program kernel's program count is
    appended here), the clusters of a split reduction run together; asserts no CTA reported an error and keeps
    what they printed (:data:`PRINTED`)."""
    from tileorch.launchers.cutile import split_cluster_size
    from tileorch.testing.ptx_emulator import Cluster, Emu

    grid = tuple(grid) + (1,) * (3 - len(grid))
    threads = prog.threads
    if prog.warp_programs:  # one warp per CTA, programs_per_warp programs each
        params = [*params, grid[0]]
        threads = 32
        grid = (-(-grid[0] // prog.programs_per_warp), grid[1], grid[2])
    if getattr(prog, "cta_programs", 0):  # several instances per CTA, their final atomics combined
        from tileorch.launchers.cutile import emulated_launch

        extra, grid = emulated_launch(grid)
        params = [*params, *extra]
    smem = int(getattr(prog, "smem", 0) or 0) or (1 << 16)
    if getattr(prog, "row_cache", None):  # a row kept in shared memory: sized by the launcher's rule
        from tileorch.launchers.row_cache_smem import launch_smem

        smem = launch_smem(prog, [struct.pack("<Q", p) if t.endswith("64") else struct.pack("<I", p & 0xFFFFFFFF)
                                  for t, p in zip(_params_of(prog.ptx), params)])
    cluster = split_cluster_size(grid[0] * grid[1] * grid[2], prog.cluster_split, H200_SMS) if prog.cluster_split else 1
    grid = (grid[0] * cluster, grid[1], grid[2])
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(0, grid[0], cluster):
                if cluster == 1:
                    ctas = [Emu(prog.ptx, params, smem, threads, (x, y, z), {}, memory, nctaid=grid)]
                    ctas[0].run()
                else:  # the launcher's cluster of CTAs along x, run together
                    ctas = Cluster(cluster, lambda rank, cl: Emu(prog.ptx, params, smem, threads, (x + rank, y, z), {},
                                                                 memory, nctaid=grid, cluster=(cl, rank))).run()
                for emu in ctas:
                    assert not emu.errors, (name, (x, y, z), emu.errors[:3])
                    PRINTED.extend(emu.printed)


def emulate(name, inputs: dict):
    """:func:`test_user_sweep_interp.run`'s contract, on the PTX: program ``name`` on its spec's
    shapes and grid; returns every argument after the run (bf16 as float32 values)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import FakeDeviceArray, cutile_bytecode
    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    assert prog.kind == "simt", name
    described = rc.describe_arguments(p.kernel, tuple(FakeDeviceArray(0x1000, s[0]) if isinstance(s, tuple) else s
                                                      for s in p.spec))
    memory, values, placed = [], [], []
    for i, (s, d) in enumerate(zip(p.spec, described)):
        if isinstance(d, rc.ConstantArg):
            continue
        if isinstance(s, tuple) and len(s) == 3:  # (shape, dtype, strides): a view of a buffer
            shape, dt, strides = s
            flat, view = sweep.strided_buffer(shape, dt, strides, inputs.get(i))
            base = (i + 1) << 32
            memory.append((base, flat.view(np.uint8), f"arg{i}"))
            placed.append((i, flat, dt, view))
            values += [base, *shape, *strides]
        elif isinstance(s, tuple):
            shape, dt = s
            a = inputs.get(i)
            buf = sweep._empty(shape, dt) if a is None else sweep._bf16_bits(a) if dt == "bfloat16" else \
                np.asarray(a, np.uint8 if dt == "bool_" else sweep.NP[dt])
            buf = np.array(buf, order="C").reshape(shape)
            base = (i + 1) << 32
            memory.append((base, buf.reshape(-1).view(np.uint8), f"arg{i}"))
            placed.append((i, buf, dt, None))
            values += [base, *shape, *[st // buf.itemsize for st in buf.strides]]
        else:
            values.append(inputs.get(i, s))
    types = _params_of(prog.ptx)
    extra = bool(prog.warp_programs) + 2 * bool(getattr(prog, "cta_programs", 0))  # (run_grid appends them)
    assert len(types) == len(values) + extra, (name, types, values)
    params = [struct.unpack("<I", struct.pack("<f", v))[0] if t == "f32" else
              struct.unpack("<Q", struct.pack("<d", v))[0] if t == "f64" else int(v) & 0xFFFFFFFFFFFFFFFF
              for t, v in zip(types, values)]
    run_grid(name, prog, params, memory, p.grid)
    out = {}
    for i, buf, dt, view in placed:
        got = buf if view is None else view(buf)
        out[i] = sweep._bf16_value(got) if dt == "bfloat16" else got
    return out


EMULATED = sorted(n for n in dir(s10) if n.startswith("test_"))
"""Every test of test_user_sweep10_interp.py: the PTX of every program there (atomics included: the
emulator applies a warp's updates one thread at a time)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10, "run", emulate)
    getattr(s10, test)()


def _line_of(name: str, text: str) -> int:
    lines, first = inspect.getsourcelines(PROGRAMS[name].kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def test_printf_and_print_of_program_0():
    """Program 0 prints its row's sum and max (``ct.printf``: f32 values passed as doubles) and the
    row length (``ct.print`` of an f-string: an int); the values are multiples of 1/8 (exact sums)."""
    from tileorch.testing.print_expected import printf_text

    PRINTED.clear()
    rows, cols = PROGRAMS["printf_first_row_stats"].spec[0][0]
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    x = (((i * 37 + j * 11) % 33 - 16) / 8).astype(np.float32)
    x[0, 5] = 7.625
    y = emulate("printf_first_row_stats", {0: x})[1]
    r0 = x[0].astype(np.float64)
    assert PRINTED == [printf_text("row 0: sum %.3f max %.3f\n", np.float64(r0.sum()), np.float64(r0.max())),
                       printf_text("n = %d\n", np.int32(cols))]
    np.testing.assert_array_equal(y, x.astype(np.float64).sum(1).astype(np.float32))


def test_assert_that_holds_and_one_that_fails():
    """Non-negative values: ``Y = sqrt(X)`` and nothing raised; one negative element in the ragged
    last block: ``__assertfail`` with the message, the program's file and the assert's line."""
    from tileorch.testing.ptx_emulator import DeviceAssert

    x = np.abs(np.random.default_rng(1012).standard_normal(300)).astype(np.float32) * 4
    y = emulate("assert_nonnegative_sqrt", {0: x})[1]
    np.testing.assert_allclose(y, np.sqrt(x.astype(np.float64)), rtol=1e-6)
    x[290] = -1.0
    with pytest.raises(DeviceAssert) as raised:
        emulate("assert_nonnegative_sqrt", {0: x})
    assert raised.value.message == "sqrt of a negative value"
    assert raised.value.file == str(Path(user_programs10.__file__))
    assert raised.value.line == _line_of("assert_nonnegative_sqrt", "ct.assert_(")


def test_every_program_is_emulated():
    src = inspect.getsource(s10) + inspect.getsource(sys.modules[__name__])
    assert not [n for n in PROGRAMS if f'"{n}"' not in src]
