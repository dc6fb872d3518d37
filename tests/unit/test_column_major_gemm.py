"""Column-major operands of a cuTile GEMM on the CPU: the launcher compiles the program for the
unit stride on dimension -2 (part of the signature and the compile cache key), the kernel reads
the array as its row-major transpose through a transposed view (``tileaa-transpose-column-major``),
and the program compiles to the tier's TMA + WGMMA kernel (``kind == "gemm"``), not the SIMT path.
The GEMM host side sees the operand as stored (:func:`stored_arguments`).  Fake device arrays
(``__cuda_array_interface__`` strides in bytes, no GPU); skipped without cuda-tile.
tests/gpu/test_cutile_gpu.py::test_gemm_transposed_operands runs the same programs on an H200."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tileorch.launchers import cutile as rc

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

_SIZE = {"<f2": 2, "<f4": 4}
WGMMA = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k(?:16|8)\.")


class Dev:
    """A stand-in device array; ``column_major``: strides (1, rows) elements, given in bytes."""

    def __init__(self, ptr: int, shape: tuple[int, int], typestr: str = "<f2", column_major: bool = False):
        size = _SIZE[typestr]
        strides = (size, size * shape[0]) if column_major else None
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": typestr,
                                         "strides": strides, "version": 3}


def _gemm_args(m, n, k, which, typestr="<f2", out="<f2", tiles=(128, 128, 64)):
    a = Dev(0x7F0000000000, (m, k), typestr, which == "a")
    b = Dev(0x7F0010000000, (k, n), typestr, which == "b")
    c = Dev(0x7F0020000000, (m, n), out, which == "c")
    return (a, b, c, *tiles)


def _compile(kernel, args, schedule="persistent"):
    """The program and the described arguments; the tier's schedules through the launcher's caches
    (the session's disk cache keyed by content: other tests compile some of these kernels too)."""
    from tileorch.driver import compile_program

    described = rc.describe_arguments(kernel, args)
    if schedule in rc.SCHEDULES:
        return rc.compiled(kernel, described, "sm_90a", schedule).program, described
    return compile_program(rc.export_bytecode(kernel, described), "<column-major test>", schedule=schedule), described


def test_column_major_is_part_of_the_signature():
    from tileorch.testing.dot_programs import gemm

    row = rc.describe_arguments(gemm, _gemm_args(300, 264, 192, ""))
    col = rc.describe_arguments(gemm, _gemm_args(300, 264, 192, "b"))
    assert not row[1].column_major and col[1].column_major
    assert rc.signature_key(row) != rc.signature_key(col)
    stored = rc.stored_arguments(col)[1]
    assert (stored.shape, stored.strides) == ((264, 192), (192, 1)) and not stored.column_major
    assert rc.stored_arguments(row)[1] is row[1]
    # a contiguous [K, 1] column (strides (1, 1)) is row-major too: not specialized
    col1 = Dev(0x2000, (64, 1))
    col1.__cuda_array_interface__["strides"] = (2, 2)
    one = rc.describe_arguments(gemm, (Dev(0x1000, (64, 64)), col1, Dev(0x3000, (64, 1)), 64, 64, 64))
    assert one[1].strides == (1, 1) and not one[1].column_major


@pytest.mark.parametrize("which,dtype,a_major,b_major", [
    ("b", "<f2", "k", "k"),  # K-major B: the nn.Linear weight layout
    ("a", "<f2", "m", "n"),  # M-major A (16-bit WGMMA reads it from shared memory transposed)
])
def test_column_major_operand_compiles_to_wgmma(which, dtype, a_major, b_major):
    from tileorch.testing.dot_programs import gemm

    m, n, k = 300, 264, 192
    p, described = _compile(gemm, _gemm_args(m, n, k, which, dtype))
    assert p.kind == "gemm", p.remarks
    assert any("tileaa-transpose-column-major" in r for r in p.remarks)
    cfg = p.gemm_config
    assert (cfg.a_major, cfg.b_major, cfg.transpose_a, cfg.transpose_b) == (a_major, b_major, False, False)
    assert WGMMA.search(p.ptx) and "cp.async.bulk.tensor.2d" in p.ptx
    assert p.cubin is not None, "ptxas did not accept the PTX"
    # the host side sees the operand as stored: the shapes agree
    a, b, c, mm, nn, kk, batch = rc.gemm_problem_batched(p, rc.stored_arguments(described))
    assert (mm, nn, kk, batch) == (m, n, k, 1)
    assert (a.shape if which == "a" else b.shape) == ((k, m) if which == "a" else (n, k))


def test_column_major_a_tf32_takes_the_k_major_copy():
    """f32 arrays multiplied as tf32 (``astype(ct.tfloat32)``), A column-major: WGMMA reads tf32
    K-major only, so the launcher's K-major copy."""
    from tileorch.testing.dot_programs import gemm_tf32

    p, described = _compile(gemm_tf32, _gemm_args(256, 256, 128, "a", "<f4", "<f4"))
    assert p.kind == "gemm", p.remarks
    assert p.gemm_config.transpose_a
    a = rc.gemm_problem_batched(p, rc.stored_arguments(described))[0]
    assert a.shape == (128, 256)  # A^T as stored [K, M]: the copy is its transpose [M, K]


def test_column_major_c_compiles_to_wgmma():
    """A column-major output is stored through a transposed view: the WGMMA kernel stores the
    accumulator's elements at their transposed coordinates (``c_transposed``, no SIMT refusal);
    the host side sees C as stored, its transpose [N, M]."""
    from tileorch.testing.dot_programs import gemm

    m, n, k = 300, 264, 192
    p, described = _compile(gemm, _gemm_args(m, n, k, "c"))
    assert p.kind == "gemm", p.remarks
    assert not any("refused" in r for r in p.remarks), p.remarks
    assert p.gemm_config.c_transposed and p.gemm_config.epilogue == "direct"
    assert WGMMA.search(p.ptx) and p.cubin is not None
    a, b, c, mm, nn, kk, batch = rc.gemm_problem_batched(p, rc.stored_arguments(described))
    assert (mm, nn, kk, batch) == (m, n, k, 1) and c.shape == (n, m)


@pytest.mark.parametrize("which", ["a", "b"])
def test_simt_path_compiles_the_rewritten_program(which):
    """schedule=simt (the launcher's fallback) compiles the same rewritten program, through ptxas
    (64x64x32 tiles: the same lowering as 128x128x64 at a fraction of ptxas's time)."""
    from tileorch.testing.dot_programs import gemm

    p, _ = _compile(gemm, _gemm_args(200, 136, 96, which, tiles=(64, 64, 32)), schedule="simt")
    assert p.kind == "simt" and p.threads > 0 and p.cubin is not None


def test_batched_column_major_b_compiles_to_wgmma():
    """A batch of column-major matrices ([L, K, N], strides (K*N, 1, K)): the last two dimensions
    are read transposed, the batch dimension stays; the batched WGMMA GEMM with K-major B."""
    from tileorch.testing.dot_programs import bmm

    L, m, n, k = 4, 256, 192, 128
    b = Dev(0x7F0010000000, (k, n))
    b.__cuda_array_interface__.update(shape=(L, k, n), strides=(2 * k * n, 2, 2 * k))
    args = (Dev(0x7F0000000000, (m, k)), b, Dev(0x7F0020000000, (m, n)), 128, 128, 64)
    args[0].__cuda_array_interface__["shape"] = (L, m, k)
    args[2].__cuda_array_interface__["shape"] = (L, m, n)
    p, described = _compile(bmm, args)
    assert described[1].column_major
    assert p.kind == "gemm" and p.gemm_config.batched and p.gemm_config.b_major == "k", p.remarks
    assert rc.gemm_problem_batched(p, rc.stored_arguments(described))[3:] == (m, n, k, L)


@pytest.mark.parametrize("which", ["ab", "c"])
def test_simt_path_reads_the_transposed_arrays_right(which):
    """The SIMT lowering of the rewritten program (the launcher's fallback) on column-major
    arrays, run by the CPU interpreter of tests/unit/simt_interp.py with the cuTile entry's own
    parameters (pointer, shape, strides as given): ragged f32 GEMM against numpy in fp64,
    NaN-prefilled output.  The SIMT path runs cuTile's f32 dot to f32 accuracy (3xTF32 on
    mma.sync), so the reference is the exact product within f32 rounding."""
    import numpy as np
    from xdsl.dialects import func

    from simt_interp import Interpreter, Memory
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.dot_programs import gemm

    m, n, k = 40, 36, 24
    args = _gemm_args(m, n, k, "", "<f4", "<f4", tiles=(32, 32, 16))
    for x, cm in zip(args[:3], ("a" in which, "b" in which, "c" in which)):
        rows = x.__cuda_array_interface__["shape"][0]
        x.__cuda_array_interface__["strides"] = (4, 4 * rows) if cm else None
    described = rc.describe_arguments(gemm, args)
    assert [x.column_major for x in described[:3]] == [which != "c", which != "c", which == "c"]
    ctx = make_context()
    kind, module = lower_program(load(rc.export_bytecode(gemm, described), "gemm", ctx), ctx, "sm_90a", "simt")
    assert kind == "simt"
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    arrays = [np.asfortranarray(x) if d.column_major else x for x, d in zip((a, b, c), described)]
    mem, params, bases = Memory(), [], []
    for x in arrays:
        base = mem.place(x.ravel(order="A"), 0)
        bases.append(base)
        params += [base, *x.shape, *(s // 4 for s in x.strides)]
    Interpreter(fn, mem, fn.attributes["nvvm.maxntid"].get_values()[0]).run(params, (2, 2, 1))
    raw, off = mem.find(bases[2], c.nbytes)
    flat = np.frombuffer(raw[off:off + c.nbytes].tobytes(), np.float32)
    out = flat.reshape((n, m)).T if described[2].column_major else flat.reshape((m, n))
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert (np.abs(out - a.astype(np.float64) @ b.astype(np.float64)) <= 2.0 ** -18 * scale).all()
