"""Dots on the SIMT path run on tensor cores (``mma.sync``, transforms/tileaa_to_simt/mma.py):
cuTile dot programs lowered by ``convert-nv-tileaa-to-simt`` and run on the CPU by the lockstep
interpreter (tests/unit/simt_interp.py), whose ``nvvm.mma.sync`` model gathers each warp's A, B
and C from the PTX ISA's fragment layouts element by element: f16 (f32 and f16 accumulators),
bf16, f32 (to f32 accuracy as 3xTF32; as tf32 with ``TILEORCH_F32_DOT=tf32``), int8 (signed and unsigned), batched 3-D tiles, tiles smaller than the atom
(M < 16, N < 8 is not a cuTile tile; K < the atom's K) and problems ragged against the tiles,
against numpy references in float64 (exact int64 for integer dots), outputs pre-filled with NaN.
Also: the driver's remarks say which dots run on ``mma.sync``, ptxas (sm_90a) accepts the
kernels' PTX, and a dot the atoms do not take (f64) keeps the scalar loop and says so."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")

from simt_interp import export_kernels  # noqa: E402
from test_cuda_tile_bytecode import HAVE_CUTILE  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

KERNELS = '''
import sys
import cuda.tile as ct
from cuda.tile.compilation import export_kernel, KernelSignature, ArrayConstraint, CallingConvention
out = sys.argv[1]
DT = {"f16": ct.float16, "bf16": ct.bfloat16, "f32": ct.float32, "f64": ct.float64, "i8": ct.int8,
      "u8": ct.uint8, "i32": ct.int32, "e4m3": ct.float8_e4m3fn, "e5m2": ct.float8_e5m2}
def arr(dt, nd):
    return ArrayConstraint(DT[dt], nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,) * nd,
                           stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=1)

from tileorch.testing.dot_programs import bmm, gemm, gemm_i8
from tileorch.testing.user_programs import mm_f16_acc as gemm_f16_acc

@ct.kernel
def gemm_one_tile(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """One K tile, a constant accumulator: the C fragments are the constant."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0.5, dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(bm, 0), shape=(tm, tk)), ct.load(B, index=(0, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)

@ct.kernel
def gemm_f64(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float64)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)

def gemm_sig(a, b, c, tm, tn, tk):
    return [arr(a, 2), arr(b, 2), arr(c, 2), tm, tn, tk]

CASES = {
    "f16_64x32x32": (gemm, gemm_sig("f16", "f16", "f32", 64, 32, 32)),
    "bf16_32x64x32": (gemm, gemm_sig("bf16", "bf16", "f32", 32, 64, 32)),
    "f32_32x32x16": (gemm, gemm_sig("f32", "f32", "f32", 32, 32, 16)),
    "i8_32x32x64": (gemm_i8, gemm_sig("i8", "i8", "i32", 32, 32, 64)),
    "u8i8_32x16x32": (gemm_i8, gemm_sig("u8", "i8", "i32", 32, 16, 32)),
    "f16acc_32x32x32": (gemm_f16_acc, gemm_sig("f16", "f16", "f16", 32, 32, 32)),
    "f16_8x16x8": (gemm, gemm_sig("f16", "f16", "f32", 8, 16, 8)),
    "i8_16x8x16": (gemm_i8, gemm_sig("i8", "i8", "i32", 16, 8, 16)),
    "f16_one_tile_32x32x16": (gemm_one_tile, gemm_sig("f16", "f16", "f32", 32, 32, 16)),
    "bmm_f16_32x16x16": (bmm, [arr("f16", 3), arr("f16", 3), arr("f32", 3), 32, 16, 16]),
    "f64_16x16x16": (gemm_f64, gemm_sig("f64", "f64", "f64", 16, 16, 16)),
    "f16_2x1x2": (gemm, gemm_sig("f16", "f16", "f32", 2, 1, 2)),
    "f16_128x64x16": (gemm, gemm_sig("f16", "f16", "f32", 128, 64, 16)),
    "i8_4x2x2": (gemm_i8, gemm_sig("i8", "i8", "i32", 4, 2, 2)),
    "e4m3_64x64x64": (gemm, gemm_sig("e4m3", "e4m3", "f32", 64, 64, 64)),
    "e5m2_32x32x32": (gemm, gemm_sig("e5m2", "e5m2", "f32", 32, 32, 32)),
}
for name, (f, args) in CASES.items():
    export_kernel(f, [KernelSignature(args, CallingConvention.cutile_python_v1())], f"{out}/{name}.tileirbc",
                  gpu_code=None, output_format="tileir_bytecode", bytecode_version="13.4")
'''

TILES = {"f16_64x32x32": (64, 32, 32), "bf16_32x64x32": (32, 64, 32), "f32_32x32x16": (32, 32, 16),
         "i8_32x32x64": (32, 32, 64), "u8i8_32x16x32": (32, 16, 32), "f16acc_32x32x32": (32, 32, 32),
         "f16_8x16x8": (8, 16, 8), "i8_16x8x16": (16, 8, 16), "f16_one_tile_32x32x16": (32, 32, 16),
         "bmm_f16_32x16x16": (32, 16, 16), "f64_16x16x16": (16, 16, 16), "f16_2x1x2": (2, 1, 2), "f16_128x64x16": (128, 64, 16),
         "i8_4x2x2": (4, 2, 2)}


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory):
    return export_kernels(tmp_path_factory, "simt_mma", KERNELS)


_LOWERED: dict = {}


def _lowered(bytecode, name, schedule="simt"):
    """(SIMT kernel, threads, remarks, module, shared bytes) of program ``name`` on sm_90a
    (``bytecode``: the exported folder, or the program's bytecode itself)."""
    from xdsl.dialects import func

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    if name not in _LOWERED:
        ctx = make_context()
        remarks: list[str] = []
        data = bytecode if isinstance(bytecode, bytes) else (bytecode / f"{name}.tileirbc").read_bytes()
        module = load(data, name, ctx)
        kind, module = lower_program(module, ctx, "sm_90a", schedule, remarks=remarks)
        assert kind == "simt"
        fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
        smem = fn.attributes.get("tileorch.dynamic_smem")
        _LOWERED[name] = (fn, fn.attributes["nvvm.maxntid"].get_values()[0], remarks, module,
                          smem.value.data if smem is not None else 1 << 16)
    return _LOWERED[name]


def _run(bytecode, name, arrays, grid, schedule="simt"):
    """Run program ``name`` over ``grid`` on numpy ``arrays`` (or (buffer, shape, strides): a
    strided view of a C-contiguous buffer); the buffers' final contents."""
    from simt_interp import Interpreter, Memory

    fn, threads, _, _, smem = _lowered(bytecode, name, schedule)
    mem = Memory()
    args, placed = [], []
    for a in arrays:
        buf, shape, strides = a if isinstance(a, tuple) else (a, a.shape, [s // a.itemsize for s in a.strides])
        base = mem.place(buf)
        placed.append((base, buf))
        args += [base, *shape, *strides]
    Interpreter(fn, mem, threads, max(smem, 1 << 16)).run(args, grid)
    out = []
    for base, buf in placed:
        raw, off = mem.find(base, buf.nbytes)
        out.append(np.frombuffer(raw[off:off + buf.nbytes].tobytes(), buf.dtype).reshape(buf.shape))
    return out


RNG = np.random.default_rng(7)


def _bf16(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bf16 bit patterns as uint16, their values as float64) of ``x`` rounded to nearest even."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _tf32(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to tf32 (10-bit mantissa, nearest even), as float64."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return (((b + 0xFFF + ((b >> 13) & 1)) >> 13) << 13).astype(np.uint32).view(np.float32).astype(np.float64)


def _grid(m, n, name):
    tm, tn, _ = TILES[name]
    return (-(-m // tm), -(-n // tn), 1)


@pytest.mark.parametrize("name, m, n, k", [
    ("f16_64x32x32", 100, 70, 72),   # ragged in M, N and K against the tiles
    ("f16_64x32x32", 64, 32, 32),
    ("f16_8x16x8", 20, 40, 24),     # M < 16 and K < 16: the atom padded with zeros
    ("f16_2x1x2", 5, 3, 5),         # a 2 x 1 tile (N = 1: a matrix-vector product), K = 2
    ("f16_128x64x16", 130, 64, 48),  # more work items (16) than warps: several rounds
])
def test_f16_dot_on_mma(bytecode, name, m, n, k):
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    (_, _, c) = _run(bytecode, name, [a, b, np.full((m, n), np.nan, np.float32)], _grid(m, n, name))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-4)


def test_f16_dot_with_an_f16_accumulator(bytecode):
    m, n, k = 40, 48, 64
    a = (RNG.standard_normal((m, k)) / 4).astype(np.float16)
    b = (RNG.standard_normal((k, n)) / 4).astype(np.float16)
    (_, _, c) = _run(bytecode, "f16acc_32x32x32", [a, b, np.full((m, n), np.nan, np.float16)], (2, 2, 1))
    # each K tile's products summed in f32 and added to the f16 accumulator, rounded to f16 once
    acc = np.zeros((m, n), np.float16)
    for k0 in range(0, k, 32):
        part = a[:, k0:k0 + 32].astype(np.float64) @ b[k0:k0 + 32].astype(np.float64)
        acc = (acc.astype(np.float64) + part).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float64), acc.astype(np.float64), rtol=0, atol=2e-3)


def test_bf16_dot_on_mma(bytecode):
    m, n, k = 50, 130, 96
    abits, av = _bf16(RNG.standard_normal((m, k)))
    bbits, bv = _bf16(RNG.standard_normal((k, n)))
    a, b = abits.view(np.float16), bbits.view(np.float16)  # bf16 bits in 16-bit buffers
    (_, _, c) = _run(bytecode, "bf16_32x64x32", [a, b, np.full((m, n), np.nan, np.float32)], _grid(m, n, "bf16_32x64x32"))
    np.testing.assert_allclose(c, av @ bv, rtol=1e-5, atol=1e-4)


def test_f32_dot_to_f32_accuracy(bytecode):
    """An f32 x f32 dot (cuTile's f32 dot, which tileiras computes in f32) runs as 3xTF32: within
    f32 rounding of the exact products, where one tf32 product per element is ~2^-11 off."""
    m, n, k = 40, 33, 40
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    a[0, 0] = np.inf  # an infinite operand stays infinite (its small part is 0, not inf - inf = NaN)
    b[0, :] = np.abs(b[0, :]) + 0.5
    (_, _, c) = _run(bytecode, "f32_32x32x16", [a, b, np.full((m, n), np.nan, np.float32)], _grid(m, n, "f32_32x32x16"))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.isposinf(c[0]).all(), c[0]
    scale = np.abs(a[1:]).astype(np.float64) @ np.abs(b).astype(np.float64)
    err = np.abs(c[1:] - ref[1:]) / scale
    assert err.max() <= 2.0 ** -18, f"not f32 accuracy: {err.max():.3g} of sum |a b| (tf32 is ~2^-11)"
    assert np.abs(_tf32(a[1:]) @ _tf32(b) - ref[1:]).max() > 1e-4  # the bound tells tf32 apart


def test_f32_dot_as_tf32_when_asked(bytecode, monkeypatch):
    """``TILEORCH_F32_DOT=tf32``: one tf32 product per atom (each operand rounded to tf32), and the
    remark says which."""
    from simt_interp import Interpreter, Memory
    from xdsl.dialects import func

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    monkeypatch.setenv("TILEORCH_F32_DOT", "tf32")
    ctx, remarks = make_context(), []
    module = load((bytecode / "f32_32x32x16.tileirbc").read_bytes(), "tf32", ctx)
    kind, module = lower_program(module, ctx, "sm_90a", "simt", remarks=remarks)
    assert kind == "simt" and any("m16n8k8 tf32 -> f32 (operands" in r for r in remarks), remarks
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
    m, n, k = 40, 33, 40
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    mem, args = Memory(), []
    bases = []
    for x in (a, b, c):
        bases.append(mem.place(x))
        args += [bases[-1], *x.shape, *[s // x.itemsize for s in x.strides]]
    smem = fn.attributes.get("tileorch.dynamic_smem")
    Interpreter(fn, mem, fn.attributes["nvvm.maxntid"].get_values()[0],
                max(smem.value.data if smem is not None else 0, 1 << 16)).run(args, _grid(m, n, "f32_32x32x16"))
    raw, off = mem.find(bases[2], c.nbytes)
    out = np.frombuffer(raw[off:off + c.nbytes].tobytes(), np.float32).reshape(m, n)
    np.testing.assert_allclose(out, _tf32(a) @ _tf32(b), rtol=1e-5, atol=1e-4)
    assert np.abs(out - a.astype(np.float64) @ b).max() > 1e-5, "tf32 rounding left no trace"


@pytest.mark.parametrize("name, adt, m, n, k", [
    ("i8_32x32x64", np.int8, 70, 40, 130),
    ("u8i8_32x16x32", np.uint8, 32, 48, 96),
    ("i8_16x8x16", np.int8, 24, 24, 40),  # K = 16 < the atom's 32
    ("i8_4x2x2", np.int8, 9, 5, 7),  # K = 2: half a fragment word
])
def test_int8_dot_is_exact(bytecode, name, adt, m, n, k):
    info = np.iinfo(adt)
    a = RNG.integers(info.min, info.max + 1, (m, k)).astype(adt)
    b = RNG.integers(-128, 128, (k, n)).astype(np.int8)
    (_, _, c) = _run(bytecode, name, [a, b, np.full((m, n), -2**31, np.int32)], _grid(m, n, name))
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


def test_constant_accumulator(bytecode):
    m, n, k = 64, 64, 16
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    name = "f16_one_tile_32x32x16"
    (_, _, c) = _run(bytecode, name, [a, b, np.full((m, n), np.nan, np.float32)], _grid(m, n, name))
    np.testing.assert_allclose(c, 0.5 + a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4)


def test_batched_dot_on_mma(bytecode):
    batch, m, n, k = 3, 40, 20, 48
    a = RNG.standard_normal((batch, m, k)).astype(np.float16)
    b = RNG.standard_normal((batch, k, n)).astype(np.float16)
    c0 = np.full((batch, m, n), np.nan, np.float32)
    (_, _, c) = _run(bytecode, "bmm_f16_32x16x16", [a, b, c0], (2, 2, batch))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("name, atom", [("f16_64x32x32", "m16n8k16 f16 -> f32"), ("bf16_32x64x32", "m16n8k16 bf16"),
                                        ("f32_32x32x16", "m16n8k8 tf32 -> f32, three per atom to f32 accuracy"), ("i8_32x32x64", "m16n8k32 s8 -> s32"),
                                        ("u8i8_32x16x32", "m16n8k32 u8 x s8 -> s32"),
                                        ("e4m3_64x64x64", "m16n8k32 e4m3 -> f32"),
                                        ("e5m2_32x32x32", "m16n8k32 e5m2 -> f32")])
def test_remark_names_the_atom_and_ptxas_accepts(bytecode, name, atom):
    from tileorch.driver import compile_program

    p = compile_program((bytecode / f"{name}.tileirbc").read_bytes(), name, "sm_90a", "simt")
    mma = [r for r in p.remarks if "mma.sync" in r]
    assert p.kind == "simt" and len(mma) == 1 and atom in mma[0] and "on tensor cores" in mma[0], p.remarks
    assert re.match(r".*(dot_programs|kernels)\.py:\d+:\d+: remark:", mma[0]), mma[0]
    assert re.search(r"mma\.sync\.aligned\.m16n8k(8|16|32)\.row\.col", p.ptx)
    assert p.cubin is not None, "ptxas did not accept the PTX"


def test_f64_dot_keeps_the_scalar_loop_and_says_so(bytecode):
    from tileorch.driver import compile_program

    p = compile_program((bytecode / "f64_16x16x16.tileirbc").read_bytes(), "f64", "sm_90a", "simt")
    assert any("scalar FMA loops, slowly: this lowering's mma.sync takes no f64 operands (the f64 mma.sync, DMMA, "
               "is not supported yet)" in r for r in p.remarks), p.remarks  # (PTX has an f64 mma.sync: not "no")
    assert "mma.sync" not in p.ptx and p.cubin is not None


# -- programs the tensor-core tier refuses: the SIMT path's dot on mma.sync, run on the CPU ----------

def _dev(shape, typestr="<f2", column_major=False):
    """A stand-in device array (``__cuda_array_interface__``) for describing arguments."""
    class Dev:
        pass

    d = Dev()
    item = int(typestr[2:])
    strides = (item, item * shape[0]) if column_major else None
    d.__cuda_array_interface__ = {"data": (0x7F0000000000, False), "shape": tuple(shape), "typestr": typestr,
                                  "strides": strides, "version": 3}
    return d


def _refused(kernel, devs, tiles):
    from tileorch.launchers import cutile as rc

    return rc.export_bytecode(kernel, rc.describe_arguments(kernel, (*devs, *tiles)))


def test_transposed_c_with_a_column_sum_on_mma():
    """``transposed_with_colsum`` (tests/unit/test_transposed_c_gemm.py): the tier refuses a column
    sum beside a transposed C; the SIMT path runs it with its dot on mma.sync.  C^T and the
    column sums of each row tile against numpy."""
    from test_transposed_c_gemm import transposed_with_colsum

    m, n, k, tiles = 96, 128, 64, (32, 64, 32)
    data = _refused(transposed_with_colsum, [_dev((m, k)), _dev((k, n)), _dev((n, m)), _dev((m // 32, n), "<f4")],
                    tiles)
    _, _, remarks, _, _ = _lowered(data, "transposed_with_colsum", "persistent")
    refusal = [r for r in remarks if "refused" in r]
    assert refusal and "its dots on mma.sync tensor cores" in refusal[0], remarks
    assert any("mma.sync m16n8k16 f16 -> f32" in r for r in remarks), remarks
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    c0, s0 = np.full((n, m), np.nan, np.float16), np.full((m // 32, n), np.nan, np.float32)
    (_, _, c, s) = _run(data, "transposed_with_colsum", [a, b, c0, s0], (m // 32, n // 64, 1), "persistent")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), ref.T, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(s, ref.reshape(m // 32, 32, n).sum(axis=1), rtol=1e-5, atol=1e-3)


def test_transposed_tile_into_a_column_major_c_on_mma():
    """``gemm_store_transposed`` with a column-major ``[N, M]`` C (refused by the tier): the SIMT
    path's result is ``A @ B`` in row-major memory (two transposes)."""
    from tileorch.testing.dot_programs import gemm_store_transposed

    m, n, k, tiles = 64, 96, 48, (32, 32, 16)
    data = _refused(gemm_store_transposed, [_dev((m, k)), _dev((k, n)), _dev((n, m), column_major=True)], tiles)
    _, _, remarks, _, _ = _lowered(data, "gemm_store_transposed", "persistent")
    assert any("refused" in r and "its dots on mma.sync" in r for r in remarks), remarks
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    buf = np.full((m, n), np.nan, np.float16)  # C [N, M] column-major: C[i, j] at j * N + i
    (_, _, out) = _run(data, "gemm_store_transposed", [a, b, (buf, (n, m), (1, n))], (m // 32, n // 32, 1),
                       "persistent")
    np.testing.assert_allclose(out.astype(np.float64), a.astype(np.float64) @ b.astype(np.float64),
                               rtol=2e-3, atol=2e-3)


def test_switch_keeps_the_scalar_loop(bytecode, monkeypatch):
    """``TILEORCH_SIMT_MMA=0`` (for measuring the difference): the scalar loop, said in the remark."""
    from tileorch.driver import compile_program

    monkeypatch.setenv("TILEORCH_SIMT_MMA", "0")
    p = compile_program((bytecode / "f16_64x32x32.tileirbc").read_bytes(), "off", "sm_90a", "simt")
    assert any("scalar FMA loops, slowly: mma.sync turned off (TILEORCH_SIMT_MMA=0)" in r for r in p.remarks)
    assert "mma.sync" not in p.ptx and p.cubin is not None


def _lower_fresh(bytecode, name):
    """(SIMT kernel, threads, shared bytes, remarks) of program ``name``, lowered now (not cached)."""
    from xdsl.dialects import func

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    ctx, remarks = make_context(), []
    module = load((bytecode / f"{name}.tileirbc").read_bytes(), name, ctx)
    kind, module = lower_program(module, ctx, "sm_90a", "simt", remarks=remarks)
    assert kind == "simt"
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
    smem = fn.attributes.get("tileorch.dynamic_smem")
    static = [op.global_type.size.data for op in module.walk()
              if op.name == "llvm.mlir.global" and op.addr_space.value.data == 3]
    scratch = smem.value.data if smem is not None else max(static, default=0)
    return fn, fn.attributes["nvvm.maxntid"].get_values()[0], scratch, remarks


def _run_fn(fn, threads, smem, arrays, grid):
    from simt_interp import Interpreter, Memory

    mem, args, bases = Memory(), [], []
    for x in arrays:
        bases.append(mem.place(x))
        args += [bases[-1], *x.shape, *[s // x.itemsize for s in x.strides]]
    Interpreter(fn, mem, threads, max(smem, 1 << 16)).run(args, grid)
    raw, off = mem.find(bases[-1], arrays[-1].nbytes)
    return np.frombuffer(raw[off:off + arrays[-1].nbytes].tobytes(), arrays[-1].dtype).reshape(arrays[-1].shape)


@pytest.mark.parametrize("name, limit", [("f16_64x32x32", 13000), ("f32_32x32x16", 14000)])
def test_k_in_chunks_when_the_operands_do_not_fit(bytecode, name, limit, monkeypatch):
    """Operands whose mma form does not fit the shared memory are staged K chunk by K chunk (the
    accumulator kept in ``D`` across chunks) instead of falling back to the scalar loop: the plan
    takes one K step per chunk under a small limit, and the result is the same product."""
    from tileorch.transforms.tileaa_to_simt import mma

    monkeypatch.setattr(mma, "MAX_SCRATCH", limit)
    fn, threads, smem, remarks = _lower_fresh(bytecode, name)
    assert any("on tensor cores" in r for r in remarks), remarks
    assert 0 < smem <= limit, smem
    m, n, k = 80, 70, 96
    dt = np.float16 if name.startswith("f16") else np.float32
    a = RNG.standard_normal((m, k)).astype(dt)
    b = RNG.standard_normal((k, n)).astype(dt)
    c = _run_fn(fn, threads, smem, [a, b, np.full((m, n), np.nan, np.float32)], _grid(m, n, name))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert (np.abs(c - ref) <= 2.0 ** -18 * scale + 1e-6).all(), float(np.abs(c - ref).max())


def test_plan_chunks_only_when_needed(bytecode, monkeypatch):
    """All of K is staged when it fits (64x32x32 f16: rows of 20 words, 15872 bytes with D); under a
    limit one K step (16) per chunk fits (rows of 12 words, 12800 bytes); below that the dot keeps
    the scalar loop and the remark says why."""
    from tileorch.transforms.tileaa_to_simt import mma

    fn, _, smem, _ = _lower_fresh(bytecode, "f16_64x32x32")
    assert smem >= 15872
    monkeypatch.setattr(mma, "MAX_SCRATCH", 13000)
    assert 12800 <= _lower_fresh(bytecode, "f16_64x32x32")[2] <= 13000
    monkeypatch.setattr(mma, "MAX_SCRATCH", 12000)
    remarks = _lower_fresh(bytecode, "f16_64x32x32")[3]
    assert any("scalar FMA loops, slowly: its operands in mma form need more than 12000 bytes" in r
               for r in remarks), remarks
