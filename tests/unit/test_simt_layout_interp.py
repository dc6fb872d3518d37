"""Memory-bound cuTile programs (row softmax, layernorm, row and column sums, argmax,
transpose, axpby) lowered by ``convert-nv-tileaa-to-simt`` and run on the CPU by a lockstep
interpreter of the lowered kernel (tests/unit/simt_interp.py) against numpy in fp64: ragged
rows (1..7 elements, 1000, 1001), arrays whose base is not 16-byte aligned, NaN-prefilled
outputs (an element not written stays NaN and fails).  The interpreter rejects misaligned
accesses, so a vector access taken where it must not be fails too.  Also: the PTX of the
big-tile programs has 16-byte vector accesses and warp shuffles."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")

from simt_interp import export_kernels  # noqa: E402
from test_cuda_tile_bytecode import HAVE_CUTILE  # noqa: E402

from tileorch import settings  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

KERNELS = '''
import sys
import cuda.tile as ct
from cuda.tile.compilation import export_kernel, KernelSignature, ArrayConstraint, CallingConvention
out = sys.argv[1]
DT = {"f16": ct.float16, "bf16": ct.bfloat16, "f32": ct.float32, "i32": ct.int32}
def arr(dt, nd):
    return ArrayConstraint(DT[dt], nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,) * nd,
                           stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=1)
def rows(dt, nd):  # a unit last stride, as tileorch.cutile.launch describes a row-major array
    return ArrayConstraint(DT[dt], nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,) * (nd - 1) + (1,),
                           stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=1)

from tileorch.testing.memory_programs import (argmax, axpby, col_sum, gather_rows, layernorm, row_divide, row_sum,
                                              scatter_rows, softmax, transpose)

CASES = {
    "softmax_f16_1024": (softmax, [arr("f16", 2), arr("f16", 2), 1024]),
    "softmax_f16_4096": (softmax, [arr("f16", 2), arr("f16", 2), 4096]),
    "softmax_f16_8": (softmax, [arr("f16", 2), arr("f16", 2), 8]),
    "row_divide_f32_256": (row_divide, [arr("f32", 2), arr("f32", 2), arr("f32", 2), 256]),
    "softmax_f32_8": (softmax, [arr("f32", 2), arr("f32", 2), 8]),
    "softmax_f32_1024": (softmax, [arr("f32", 2), arr("f32", 2), 1024]),
    "softmax_f32_256": (softmax, [arr("f32", 2), arr("f32", 2), 256]),
    "softmax_bf16_1024": (softmax, [arr("bf16", 2), arr("bf16", 2), 1024]),
    "layernorm_f16_256": (layernorm, [arr("f16", 2), arr("f16", 1), arr("f16", 1), arr("f16", 2), 256]),
    "row_sum_bf16_4_512": (row_sum, [arr("bf16", 2), arr("f32", 1), 4, 512]),
    "row_sum_f32_16_256": (row_sum, [arr("f32", 2), arr("f32", 1), 16, 256]),
    "col_sum_f32_64_128": (col_sum, [arr("f32", 2), arr("f32", 1), 64, 128]),
    "argmax_f32_256": (argmax, [arr("f32", 2), arr("i32", 1), 256]),
    "transpose_f32_32_64": (transpose, [arr("f32", 2), arr("f32", 2), 32, 64]),
    "axpby_f32_1024": (axpby, [arr("f32", 1), arr("f32", 1), arr("f32", 1), 1024]),
    "axpby_f16_2048": (axpby, [arr("f16", 1), arr("f16", 1), arr("f16", 1), 2048]),
    "gather_f32_4_64": (gather_rows, [rows("f32", 2), rows("i32", 1), rows("f32", 2), 4, 64]),
    "gather_f16_8_64": (gather_rows, [rows("f16", 2), rows("i32", 1), rows("f16", 2), 8, 64]),
    "gather_bf16_4_1024": (gather_rows, [rows("bf16", 2), rows("i32", 1), rows("bf16", 2), 4, 1024]),
    "gather_f32_4_1024": (gather_rows, [rows("f32", 2), rows("i32", 1), rows("f32", 2), 4, 1024]),
    "scatter_f32_4_64": (scatter_rows, [rows("f32", 2), rows("i32", 1), rows("f32", 2), 4, 64]),
    "scatter_f16_8_64": (scatter_rows, [rows("f16", 2), rows("i32", 1), rows("f16", 2), 8, 64]),
}
for name, (f, args) in CASES.items():
    export_kernel(f, [KernelSignature(args, CallingConvention.cutile_python_v1())], f"{out}/{name}.tileirbc",
                  gpu_code=None, output_format="tileir_bytecode", bytecode_version="13.4")
'''


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory):
    return export_kernels(tmp_path_factory, "membound", KERNELS)


_LOWERED: dict = {}


def _kernel(bytecode, name, variant=""):
    """The lowered kernel ``name`` and its CTA size, once per ``variant`` (a label of the
    environment the caller set for the compile)."""
    from xdsl.dialects import func

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    key = name + variant
    if key not in _LOWERED:
        ctx = make_context()
        kind, module = lower_program(load((bytecode / f"{name}.tileirbc").read_bytes(), name, ctx), ctx, "sm_90a")
        assert kind == "simt"
        fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
        threads = fn.attributes["nvvm.maxntid"].get_values()[0]
        _LOWERED[key] = (fn, threads)
    return _LOWERED[key]


NP = {"f16": np.float16, "f32": np.float32, "i32": np.int32}


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    """fp32 values -> bf16 bit patterns (round to nearest even) as uint16."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_value(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _run(bytecode, name, arrays, grid, offsets=None, variant=""):
    """Run kernel ``name`` on ``arrays`` (numpy, C-contiguous or strided views of a buffer given
    as (buffer, shape, strides, elem_offset)); returns the final contents of each buffer."""
    from simt_interp import Interpreter, Memory

    fn, threads = _kernel(bytecode, name, variant)
    mem = Memory()
    args, placed = [], []
    for i, a in enumerate(arrays):
        buf, shape, strides, elem_off = a if isinstance(a, tuple) else (a, a.shape, [s // a.itemsize for s in a.strides], 0)
        off = (offsets or {}).get(i, 0)
        base = mem.place(buf, off)
        placed.append((base, buf))
        args += [base + elem_off * buf.itemsize, *shape, *strides]
    extra = 1 if "tileorch.warp_programs" in fn.attributes else 0  # the programs along x (warp_programs.py)
    assert len(args) + extra == len(fn.body.blocks[0].args), "the kernel's parameters follow cutile_python_v1"
    Interpreter(fn, mem, threads).run(args, grid)
    out = []
    for base, buf in placed:
        raw, off = mem.find(base, buf.nbytes)
        out.append(np.frombuffer(raw[off:off + buf.nbytes].tobytes(), buf.dtype).reshape(buf.shape))
    return out


def _nan(shape, dt):
    return np.full(shape, np.nan, NP[dt])


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("rows,cols,offset", [(3, 1000, 0), (2, 1001, 0), (2, 1000, 2), (2, 1024, 0)])
def test_row_softmax_fp16(bytecode, rows, cols, offset):
    x = RNG.standard_normal((rows, cols)).astype(np.float16)
    (_, y) = _run(bytecode, "softmax_f16_1024", [x, _nan((rows, cols), "f16")], (rows, 1, 1), {0: offset, 1: offset})
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-3, rtol=0)


@pytest.mark.parametrize("cols", [1, 2, 3, 5, 7, 8])
def test_softmax_of_short_rows(bytecode, cols):
    x = RNG.standard_normal((3, cols)).astype(np.float32)
    (_, y) = _run(bytecode, "softmax_f32_8", [x, _nan((3, cols), "f32")], (3, 1, 1))
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, ref / ref.sum(axis=1, keepdims=True), atol=1e-5, rtol=0)


@pytest.mark.parametrize("cols,offset", [(256, 0), (200, 0), (256, 2)])
def test_layernorm_fp16(bytecode, cols, offset):
    rows = 3
    x = RNG.standard_normal((rows, cols)).astype(np.float16)
    w = RNG.standard_normal(cols).astype(np.float16)
    b = RNG.standard_normal(cols).astype(np.float16)
    out = _run(bytecode, "layernorm_f16_256", [x, w, b, _nan((rows, cols), "f16")], (rows, 1, 1),
               {0: offset, 3: offset})
    y = out[3]
    if cols != 256:  # the tile is 256 wide: padded columns count as zeros in the mean (the program's choice)
        xp = np.zeros((rows, 256)); xp[:, :cols] = x
        mean = xp.mean(axis=1, keepdims=True)
        d = xp - mean
        d[:, cols:] = 0 - mean
        var = (d * d).mean(axis=1, keepdims=True)
        ref = (d / np.sqrt(var + 1e-5))[:, :cols] * w + b
    else:
        xf = x.astype(np.float64)
        ref = (xf - xf.mean(1, keepdims=True)) / np.sqrt(xf.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-2, rtol=0)


@pytest.mark.parametrize("rows,cols", [(6, 1100), (4, 512), (5, 7)])
def test_row_sum_bf16(bytecode, rows, cols):
    vals = RNG.standard_normal((rows, cols)).astype(np.float32)
    bits = _bf16_bits(vals).view(np.int16)
    (_, y) = _run(bytecode, "row_sum_bf16_4_512", [bits, _nan(rows, "f32")], (-(-rows // 4), 1, 1))
    np.testing.assert_allclose(y, _bf16_value(bits.view(np.uint16)).astype(np.float64).sum(1), atol=1e-3, rtol=0)


@pytest.mark.parametrize("rows,cols", [(20, 300), (16, 256), (3, 5), (17, 1030), (2, 1024)])
def test_row_sum_f32(bytecode, rows, cols):
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    (_, y) = _run(bytecode, "row_sum_f32_16_256", [x, _nan(rows, "f32")], (-(-rows // 16), 1, 1))
    np.testing.assert_allclose(y, x.astype(np.float64).sum(1), atol=1e-3, rtol=0)


@pytest.mark.parametrize("rows,cols", [(100, 130), (64, 128), (7, 3), (193, 128), (300, 129), (256, 100)])
def test_col_sum_f32(bytecode, rows, cols):
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    (_, y) = _run(bytecode, "col_sum_f32_64_128", [x, _nan(cols, "f32")], (-(-cols // 128), 1, 1))
    np.testing.assert_allclose(y, x.astype(np.float64).sum(0), atol=1e-3, rtol=0)


@pytest.mark.parametrize("cols", [256, 200, 3])
def test_argmax_f32(bytecode, cols):
    x = RNG.standard_normal((4, cols)).astype(np.float32)
    x[1, cols // 2] = x[1].max() + 1  # one clear winner
    x[2, :] = 0.5  # all equal: the first index
    y = np.full(4, -7, np.int32)
    (_, y) = _run(bytecode, "argmax_f32_256", [x, y], (4, 1, 1))
    np.testing.assert_array_equal(y, x.argmax(1))


@pytest.mark.parametrize("rows,cols", [(40, 70), (32, 64)])
def test_transpose_f32(bytecode, rows, cols):
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    (_, y) = _run(bytecode, "transpose_f32_32_64", [x, _nan((cols, rows), "f32")],
                  (-(-rows // 32), -(-cols // 64), 1))
    np.testing.assert_array_equal(y, x.T)


@pytest.mark.parametrize("name,n,dt,offset", [("axpby_f32_1024", 2500, "f32", 0), ("axpby_f32_1024", 2500, "f32", 4),
                                              ("axpby_f16_2048", 4099, "f16", 0), ("axpby_f16_2048", 3000, "f16", 6)])
def test_axpby(bytecode, name, n, dt, offset):
    x = RNG.standard_normal(n).astype(NP[dt])
    y = RNG.standard_normal(n).astype(NP[dt])
    tile = int(name.rsplit("_", 1)[1])
    out = _run(bytecode, name, [x, y, _nan(n, dt)], (-(-n // tile), 1, 1), {0: offset, 2: offset})
    ref = 2.0 * x.astype(np.float64) - 3.0 * y.astype(np.float64)
    np.testing.assert_allclose(out[2].astype(np.float64), ref, atol=1e-2 if dt == "f16" else 1e-5, rtol=1e-3)


@pytest.mark.parametrize("dt,n,cols,offset", [("f32", 4, 64, 0), ("f32", 10, 64, 0), ("f32", 9, 50, 0),
                                              ("f32", 8, 64, 4), ("f16", 8, 64, 0), ("f16", 11, 61, 2)])
def test_gather_rows(bytecode, dt, n, cols, offset):
    """An embedding lookup ``out[i, :] = table[idx[i], :]``: ragged row counts (a partial last
    program), rows narrower than the tile (masked columns), out-of-range indices (zeros: cuTile's
    bounds check), a table whose base is not 16-byte aligned (the scalar path)."""
    tr = 4 if dt == "f32" else 8
    table = RNG.standard_normal((37, cols)).astype(NP[dt])
    idx = RNG.integers(0, 37, n).astype(np.int32)
    idx[n // 2] = 37  # past the table: cuTile's gather pads with 0
    out = _run(bytecode, f"gather_{dt}_{tr}_64", [table, idx, _nan((n, cols), dt)], (-(-n // tr), 1, 1),
               {0: offset})[2]
    ref = np.where((idx < 37)[:, None], table[np.minimum(idx, 36)], 0)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("dt,n,cols,offset", [("f32", 8, 64, 0), ("f32", 10, 64, 0), ("f32", 9, 50, 4),
                                              ("f16", 16, 64, 0), ("f16", 13, 61, 2)])
def test_scatter_rows(bytecode, dt, n, cols, offset):
    """A row scatter ``out[idx[i], :] = src[i, :]`` by a permutation: a partial last program
    (its rows past ``idx``'s end masked off), masked columns, a misaligned output (the scalar
    path); rows of ``out`` no index names stay NaN."""
    tr = 4 if dt == "f32" else 8
    src = RNG.standard_normal((n, cols)).astype(NP[dt])
    idx = RNG.permutation(n + 3)[:n].astype(np.int32)
    out = _run(bytecode, f"scatter_{dt}_{tr}_64", [src, idx, _nan((n + 3, cols), dt)], (-(-n // tr), 1, 1),
               {2: offset})[2]
    ref = _nan((n + 3, cols), dt)
    ref[idx] = src
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("name", ["gather_f32_4_64", "gather_f16_8_64", "scatter_f32_4_64", "scatter_f16_8_64"])
def test_row_gather_and_scatter_move_16_byte_vectors(bytecode, name):
    """The pointer tile of a row gather/scatter holds consecutive addresses along the row
    (``contiguity.last_dim_step``): its accesses are ``ld.global.v4``/``st.global.v4``, the
    tiled side's too.  The gather's only other load is the index tile (4 or 8 elements, one per
    thread), the scatter's only other store none: the vectors are the pointer accesses'."""
    from tileorch.testing.compile_memo import compile_once

    ptx = compile_once((bytecode / f"{name}.tileirbc").read_bytes(), name, ptxas=False).ptx
    assert "ld.global.v4.b32" in ptx and "st.global.v4.b32" in ptx


@pytest.mark.parametrize("remat", ["1", "0"])
@pytest.mark.parametrize("n", [8, 10])
def test_gather_bf16_rows_of_1024(bytecode, monkeypatch, remat, n):
    """The benchmark's bf16 embedding lookup (4 rows of 1024 per program): bit-exact rows (the
    bf16 elements stored as loaded), an out-of-range index (zeros), a partial last program;
    also with TILEORCH_REMATERIALIZE=0 (the index and column tiles exchanged through shared
    memory)."""
    monkeypatch.setenv("TILEORCH_REMATERIALIZE", remat)
    table = _bf16_bits(RNG.standard_normal((37, 1024)).astype(np.float32)).view(np.int16)
    idx = RNG.integers(0, 37, n).astype(np.int32)
    idx[n // 2] = 40  # past the table: zeros
    out = np.full((n, 1024), 0x7FC0, np.uint16).view(np.int16)
    got = _run(bytecode, "gather_bf16_4_1024", [table, idx, out], (-(-n // 4), 1, 1), variant=f"/remat{remat}")[2]
    ref = np.where((idx < 37)[:, None], table[np.minimum(idx, 36)], 0)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("name,threads", [("gather_bf16_4_1024", 128), ("gather_f32_4_1024", 256)])
def test_row_gather_holds_four_vectors_per_thread_without_shared_memory(bytecode, name, threads):
    """A loop-free gather gets 4 vector runs per thread (simt_layouts.TILEORCH_GATHER_RUNS):
    4 x 1024 bf16 on 128 threads, f32 on 256; the row indices and the column range it
    broadcasts are recomputed by each thread (rematerialize.py), so no barrier and no shared
    memory; its four 16-byte gathers are issued with no branch between them; the bf16 rows
    are stored as loaded (no rounding on the vector path)."""
    from tileorch.driver import compile_program

    fn, cta = _kernel(bytecode, name)
    assert cta == threads
    ptx = compile_program((bytecode / f"{name}.tileirbc").read_bytes(), name, ptxas=False).ptx
    assert "bar.sync" not in ptx and "st.shared" not in ptx and "ld.shared" not in ptx
    lines = ptx.splitlines()
    loads = [i for i, line in enumerate(lines) if "@p ld.global.v4.b32" in line]
    assert len(loads) == 4
    assert not any("bra" in line for line in lines[loads[0]:loads[-1]])
    assert sum("st.global.v4.b32" in line for line in lines) >= 4
    if "bf16" in name:  # the whole-tile store writes the loaded words
        at_once = "\n".join(lines[loads[-1]:])
        first_store = at_once.index("st.global.v4.b32")
        assert "cvt.rn.bf16.f32" not in at_once[at_once.rindex("bra", 0, first_store):first_store]


@pytest.mark.parametrize("ragged", ["1", "0"])
def test_softmax_rows_inside_a_wider_buffer(bytecode, monkeypatch, ragged):
    """Rows of 1000 f16 in a buffer of 1024 columns (tile 1024): the ragged-row path (whole
    16-byte runs, those past the row's end padded with -inf and not stored) reads no column
    past 1000 (they hold +inf) and writes none (they stay NaN); TILEORCH_RAGGED_ROWS=0 (run by
    run) gives the same rows."""
    monkeypatch.setenv("TILEORCH_RAGGED_ROWS", ragged)
    buf = np.full((3, 1024), np.inf, np.float16)
    buf[:, :1000] = RNG.standard_normal((3, 1000)).astype(np.float16)
    out = np.full((3, 1024), np.nan, np.float16)
    x_view = (buf, (3, 1000), (1024, 1), 0)
    y_view = (out, (3, 1000), (1024, 1), 0)
    (_, y) = _run(bytecode, "softmax_f16_1024", [x_view, y_view], (3, 1, 1), variant=f"/ragged{ragged}")
    x = buf[:, :1000].astype(np.float64)
    ref = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y[:, :1000].astype(np.float64), ref / ref.sum(axis=1, keepdims=True), atol=2e-3, rtol=0)
    assert np.isnan(y[:, 1000:]).all()


def test_strided_view_is_not_read_as_vectors(bytecode):
    """Every other column of a buffer (stride 2): the scalar path, right values."""
    buf = RNG.standard_normal((3, 2000)).astype(np.float16)
    view = (buf, (3, 1000), (2000, 2), 0)
    (_, y) = _run(bytecode, "softmax_f16_1024", [view, _nan((3, 1000), "f16")], (3, 1, 1))
    x = buf[:, ::2].astype(np.float64)
    ref = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y.astype(np.float64), ref / ref.sum(1, keepdims=True), atol=2e-3, rtol=0)


@pytest.mark.parametrize("name,vector", [("softmax_f16_1024", "v4.b32"), ("row_sum_bf16_4_512", "v4.b32"),
                                         ("axpby_f32_1024", "v4"), ("col_sum_f32_64_128", "v4")])
def test_ptx_has_vector_accesses_and_shuffles(bytecode, name, vector):
    from tileorch.testing.compile_memo import compile_once

    prog = compile_once((bytecode / f"{name}.tileirbc").read_bytes(), name, ptxas=False)
    assert f"ld.global.{vector}" in prog.ptx
    if name.startswith(("softmax", "row_sum")):
        assert "shfl.sync.bfly.b32" in prog.ptx


@pytest.mark.parametrize("name,threads", [("softmax_f16_1024", 32), ("layernorm_f16_256", 32),
                                          ("argmax_f32_256", 32), ("row_sum_bf16_4_512", 256),
                                          ("axpby_f32_1024", 256)])
def test_cta_size_of_single_pass_row_reductions(bytecode, name, threads):
    """A row program (reduce, no loop) gets 4 vector runs per thread (layout.ROW_RUNS): a
    1024-wide f16 row is one warp; kernels with a loop or no reduction keep one run per thread."""
    fn, cta = _kernel(bytecode, name)
    per_program = 32 if "tileorch.warp_programs" in fn.attributes else cta
    assert per_program == threads
    # a one-warp program runs one program per warp, up to 2 per CTA (warp_programs.py); others one per CTA
    assert cta == (64 if threads == 32 else threads)


def _per_program(fn, cta):
    return 32 if "tileorch.warp_programs" in fn.attributes else cta


# vector runs of the widest tile / runs per thread, as a power of two in [32, 512] (choose_threads):
# softmax f16 1024 = 128 runs of 8, softmax f32 1024 = 256 runs of 4, argmax f32 256 = 64 runs of 4
@pytest.mark.parametrize("runs", [1, 2, 8])
@pytest.mark.parametrize("name,vector_runs", [("softmax_f16_1024", 128), ("softmax_f32_1024", 256),
                                              ("argmax_f32_256", 64)])
def test_row_runs_switch_sizes_the_program(bytecode, monkeypatch, runs, name, vector_runs):
    """TILEORCH_ROW_RUNS=R (issue 22: a row program's code, hence its compile time, grows with
    its runs per thread) gives a single-pass row reduction R runs per thread instead of 4."""
    monkeypatch.setenv("TILEORCH_ROW_RUNS", str(runs))
    fn, cta = _kernel(bytecode, name, f"row_runs={runs}")
    assert _per_program(fn, cta) == min(512, max(32, vector_runs // runs))


def test_row_runs_switch_leaves_loop_and_plain_kernels_alone(bytecode, monkeypatch):
    monkeypatch.setenv("TILEORCH_ROW_RUNS", "1")
    assert _kernel(bytecode, "row_sum_f32_16_256", "row_runs=1")[1] == _kernel(bytecode, "row_sum_f32_16_256")[1]
    assert _kernel(bytecode, "axpby_f32_1024", "row_runs=1")[1] == _kernel(bytecode, "axpby_f32_1024")[1]


@pytest.mark.parametrize("runs", [1, 2])
@pytest.mark.parametrize("rows,cols,offset", [(3, 1000, 0), (2, 1024, 2)])
def test_row_runs_switch_softmax_fp16(bytecode, monkeypatch, runs, rows, cols, offset):
    monkeypatch.setenv("TILEORCH_ROW_RUNS", str(runs))
    x = RNG.standard_normal((rows, cols)).astype(np.float16)
    (_, y) = _run(bytecode, "softmax_f16_1024", [x, _nan((rows, cols), "f16")], (rows, 1, 1), {0: offset, 1: offset},
                  variant=f"row_runs={runs}")
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.astype(np.float64), ref / ref.sum(axis=1, keepdims=True), atol=2e-3, rtol=0)


@pytest.mark.parametrize("runs", [1, 2])
def test_row_runs_switch_softmax_fp32_and_argmax(bytecode, monkeypatch, runs):
    monkeypatch.setenv("TILEORCH_ROW_RUNS", str(runs))
    x = RNG.standard_normal((2, 1001)).astype(np.float32)
    (_, y) = _run(bytecode, "softmax_f32_1024", [x, _nan((2, 1001), "f32")], (2, 1, 1), variant=f"row_runs={runs}")
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, ref / ref.sum(axis=1, keepdims=True), atol=1e-6, rtol=0)
    a = RNG.standard_normal((4, 200)).astype(np.float32)
    a[1, 150] = a[1].max() + 1
    a[2, :] = 0.5  # all equal: the first index
    (_, idx) = _run(bytecode, "argmax_f32_256", [a, np.full(4, -7, np.int32)], (4, 1, 1), variant=f"row_runs={runs}")
    np.testing.assert_array_equal(idx, a.argmax(1))


def test_row_runs_switch_layernorm_fp16(bytecode, monkeypatch):
    monkeypatch.setenv("TILEORCH_ROW_RUNS", "1")
    x = RNG.standard_normal((3, 256)).astype(np.float16)
    w = RNG.standard_normal(256).astype(np.float16)
    b = RNG.standard_normal(256).astype(np.float16)
    y = _run(bytecode, "layernorm_f16_256", [x, w, b, _nan((3, 256), "f16")], (3, 1, 1), variant="row_runs=1")[3]
    xf = x.astype(np.float64)
    ref = (xf - xf.mean(1, keepdims=True)) / np.sqrt(xf.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-2, rtol=0)


def test_row_softmax_is_one_warp_without_barriers_and_issues_its_loads_together(bytecode):
    """softmax of a 1024-wide f16 row on 32 threads: both reductions are shuffles only, and the
    store, which no load follows, needs no barrier: no bar.sync at all; the ragged path issues
    each thread's four 16-byte loads as predicated ld.global.v4 before any branch that uses them:
    the whole-tile path, the ragged-row path (whole runs, those past the row's end padded) and
    the run-by-run path."""
    from tileorch.testing.compile_memo import compile_once

    ptx = compile_once((bytecode / "softmax_f16_1024.tileirbc").read_bytes(), "softmax_f16_1024", ptxas=False).ptx
    assert ".maxntid 64, 1, 1" in ptx  # one program per warp, up to 2 per CTA
    assert "%ntid.x" in ptx
    assert "bar.sync" not in ptx and "st.shared" not in ptx
    body = ptx[ptx.index("@p ld.global.v4.b32"):]
    # the whole-tile loads (4), the ragged-row path's (4), then the per-run loads of the ragged
    # path (4), each four without a branch between them
    loads = [i for i, line in enumerate(body.splitlines()) if "@p ld.global.v4.b32" in line]
    assert len(loads) == 12
    lines = body.splitlines()
    for group in (loads[:4], loads[4:8], loads[8:]):
        assert not any("bra" in line for line in lines[group[0]:group[-1]])


@pytest.mark.parametrize("rows,cols,offset", [(2, 1000, 0), (2, 1023, 4), (1, 1024, 0)])
def test_row_softmax_fp32_two_warps(bytecode, rows, cols, offset):
    """1024 f32 in 2 warps of 4 runs (ROW_RUNS): shuffles, then one shared-memory step."""
    assert _kernel(bytecode, "softmax_f32_1024")[1] == 64
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    (_, y) = _run(bytecode, "softmax_f32_1024", [x, _nan((rows, cols), "f32")], (rows, 1, 1), {0: offset, 1: offset})
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, ref / ref.sum(axis=1, keepdims=True), atol=1e-6, rtol=0)


@pytest.mark.parametrize("cols", [1000, 1024])
def test_row_softmax_bf16_words_unpacked(bytecode, cols):
    """bf16 rows: each predicated 16-byte load's words hold 8 bf16 bit patterns."""
    vals = RNG.standard_normal((2, cols)).astype(np.float32)
    bits = _bf16_bits(vals).view(np.int16)
    out = np.full((2, cols), 0x7FC0, np.uint16).view(np.int16)  # NaN
    (_, y) = _run(bytecode, "softmax_bf16_1024", [bits, out], (2, 1, 1))
    x = _bf16_value(bits.view(np.uint16)).astype(np.float64)
    ref = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(_bf16_value(y.view(np.uint16)), ref / ref.sum(axis=1, keepdims=True), atol=4e-3, rtol=0)


def test_prefetching_loop_runs_two_iterations_per_trip(bytecode):
    """prefetch.unrolled: the column sum's loop (its tiles loaded one iteration ahead) steps by
    two iterations; the second, under ``step <u ub - iv``, issues the tile two ahead (its own
    predicated vector loads) into the registers of the tile carried in, so nothing is copied at
    the back edge.  The iteration counts 1..5 of the ragged sums above run both halves."""
    from xdsl.dialects import arith, llvm, scf

    fn, _ = _kernel(bytecode, "col_sum_f32_64_128")
    loops = [op for op in fn.walk() if isinstance(op, scf.ForOp)
             and any(isinstance(i, llvm.InlineAsmOp) for i in op.body.walk())]
    assert len(loops) == 1
    loop = loops[0]
    step = loop.step.owner
    # 2 * step: step + step (i32), or with a run-time step the trip loop counts in i64 (tileaa_to_simt/unrolled_trips.py:
    # 2 * step past 2^31 must not wrap): extsi(step) * 2
    doubled = (isinstance(step, arith.AddiOp) and step.lhs is step.rhs) or (
        isinstance(step, arith.MuliOp) and isinstance(step.lhs.owner, arith.ExtSIOp)
        and isinstance(step.rhs.owner, arith.ConstantOp) and step.rhs.owner.value.value.data == 2)
    assert doubled, step
    second = loop.body.blocks[0].last_op.prev_op
    assert isinstance(second, scf.IfOp)
    assert [r.type for r in second.results] == [a.type for a in loop.body.blocks[0].args[1:]]
    asm = lambda region: sum(isinstance(i, llvm.InlineAsmOp) and "ld.global.v4" in i.asm_string.data  # noqa: E731
                             for i in region.walk())
    assert asm(second.true_region) == asm(loop.body) // 2 > 0
    assert asm(second.false_region) == 0


def test_layernorm_issues_row_weight_and_bias_loads_before_its_reductions(bytecode):
    """hoist.loads_first: the weight and bias loads, written after the two reductions, are
    issued with the row's, before the first shuffle."""
    from tileorch.testing.compile_memo import compile_once

    ptx = compile_once((bytecode / "layernorm_f16_256.tileirbc").read_bytes(), "layernorm_f16_256", ptxas=False).ptx
    first_shuffle = ptx.index("shfl.sync.bfly")
    assert ptx.rfind("ld.global", 0, first_shuffle) > 0
    assert "ld.global" not in ptx[first_shuffle:]


@pytest.mark.parametrize("rows", [1, 7, 8, 9, 19])
def test_one_program_per_warp_covers_every_row_once(bytecode, rows):
    """A one-warp program (argmax of a 256-wide row) runs 2 programs per CTA: the last CTA's
    warp past the last row does nothing (odd rows: a partial CTA; the output past the rows
    is a guard that no idle warp writes), every row gets its own program id."""
    x = RNG.standard_normal((rows + 5, 256)).astype(np.float32)
    x[np.arange(rows), (np.arange(rows) * 37) % 256] = 10.0  # a known winner per row
    y = np.full(rows + 5, -7, np.int32)
    (_, y) = _run(bytecode, "argmax_f32_256", [x[:rows], y], (rows, 1, 1))
    np.testing.assert_array_equal(y[:rows], (np.arange(rows) * 37) % 256)
    assert (y[rows:] == -7).all()


@pytest.mark.parametrize("per_warp", [1, 3, 4])
@pytest.mark.parametrize("rows,cols", [(1, 256), (5, 200), (12, 256), (13, 3), (23, 255)])
def test_programs_per_warp_cover_every_row_once(bytecode, monkeypatch, per_warp, rows, cols):
    """TILEORCH_PROGRAMS_PER_WARP=1, 3, 4: each warp runs that many consecutive rows (a
    partial last warp, a partial last CTA), every row once, ragged rows; nothing past the rows
    is written."""
    monkeypatch.setenv("TILEORCH_PROGRAMS_PER_WARP", str(per_warp))
    fn, _ = _kernel(bytecode, "argmax_f32_256", f"/{per_warp}")
    attr = fn.attributes.get("tileorch.programs_per_warp")
    assert (attr.value.data if attr is not None else 1) == per_warp
    x = RNG.standard_normal((rows + 6, cols)).astype(np.float32)
    x[np.arange(rows), (np.arange(rows) * 37) % cols] = 10.0
    x[rows - 1, :] = 0.25  # all equal: the first index
    y = np.full(rows + 6, -7, np.int32)
    (_, y) = _run(bytecode, "argmax_f32_256", [x[:rows], y], (rows, 1, 1), variant=f"/{per_warp}")
    np.testing.assert_array_equal(y[:rows], x[:rows].argmax(1))
    assert (y[rows:] == -7).all()


@pytest.mark.parametrize("rows,cols", [(9, 256), (6, 200), (3, 3)])
def test_reductions_of_the_warps_programs_at_once_are_bit_identical(bytecode, monkeypatch, rows, cols):
    """softmax of 256 f32 (1 KiB a row): two rows per warp whose max and sum reductions run at
    once (_reduce_copies: one shuffle per value in the first butterfly step, a shfl.sync.idx
    per result) fold the same lanes in the same order as one row per warp: the outputs are
    bit for bit those of TILEORCH_PROGRAMS_PER_WARP=1, and match numpy."""
    from xdsl.dialects import llvm

    x = (3 * RNG.standard_normal((rows, cols))).astype(np.float32)
    outs = {}
    for per_warp in ("1", "2", "4"):
        monkeypatch.setenv("TILEORCH_PROGRAMS_PER_WARP", per_warp)
        fn, _ = _kernel(bytecode, "softmax_f32_256", f"/{per_warp}")
        idx = sum(isinstance(op, llvm.CallIntrinsicOp) and op.intrin.data == "llvm.nvvm.shfl.sync.idx.i32"
                  for op in fn.walk())
        assert idx == (0 if per_warp == "1" else 2 * int(per_warp))  # max and sum, per program
        (_, outs[per_warp]) = _run(bytecode, "softmax_f32_256", [x, _nan((rows, cols), "f32")], (rows, 1, 1),
                                   variant=f"/{per_warp}")
    assert np.array_equal(outs["1"], outs["2"]) and np.array_equal(outs["1"], outs["4"])
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(outs["2"], ref / ref.sum(axis=1, keepdims=True), atol=1e-6, rtol=0)


@pytest.mark.parametrize("per_warp", ["1", "2", "4"])
def test_argmax_ptx_emulated(bytecode, monkeypatch, per_warp):
    """The PTX itself (after LLVM) of argmax at 1, 2 and 4 rows per warp, run CTA by CTA by
    tileorch.testing.ptx_emulator (predicated 16-byte loads, butterfly and idx shuffles):
    ragged rows, a partial last CTA, every row once, nothing written past the rows."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.ptx_emulator import Emu

    monkeypatch.setenv("TILEORCH_PROGRAMS_PER_WARP", per_warp)
    prog = compile_once((bytecode / "argmax_f32_256.tileirbc").read_bytes(), "argmax_f32_256", ptxas=False)
    assert prog.programs_per_warp == int(per_warp)
    for rows, cols in [(13, 256), (9, 200), (5, 3)]:
        x = RNG.standard_normal((rows, cols)).astype(np.float32)
        x[rows - 1] = 0.5  # all equal: the first index
        y = np.full(rows + 8, -7, np.int32)
        xb, yb = 1 << 32, 2 << 32
        memory = [(xb, x.view(np.uint8).reshape(-1), "x"), (yb, y.view(np.uint8).reshape(-1), "y")]
        params = [xb, rows, cols, cols, 1, yb, rows, 1, rows]  # x, y (base, shapes, strides), the programs
        per_cta = prog.threads // 32 * prog.programs_per_warp
        grid = -(-rows // per_cta)
        for cx in range(grid):
            emu = Emu(prog.ptx, params, 16, prog.threads, (cx, 0, 0), {}, memory, nctaid=(grid, 1, 1))
            emu.run()
            assert not emu.errors
        np.testing.assert_array_equal(y[:rows], x.argmax(1))
        assert (y[rows:] == -7).all()


def test_warps_per_cta_only_where_the_cta_limit_binds():
    """Two programs per CTA only where one-warp CTAs stop at the SM's 32-CTA limit: registers
    leave room for more warps (<= 64 a thread) and the grid has more programs than fit at once."""
    from tileorch.launchers.cutile import warps_per_cta

    assert warps_per_cta(1 << 20, 2, 132, 40) == 2
    assert warps_per_cta(1 << 20, 2, 132, 64) == 2
    assert warps_per_cta(1 << 20, 2, 132, 65) == 1  # register-bound already: coarser only hurts
    assert warps_per_cta(4096, 2, 132, 40) == 1  # every program resident at once anyway
    assert warps_per_cta(132 * 32 + 1, 2, 132, 40) == 2
    assert warps_per_cta(1 << 20, 1, 132, 40) == 1


def test_programs_per_warp_until_a_warp_loads_2_kib(monkeypatch):
    """Programs per warp: the smallest power of two whose hoisted loads bring 2 KiB per warp, at
    most 4 and within the hoisting's register budget; TILEORCH_PROGRAMS_PER_WARP forces it."""
    from tileorch.transforms.tileaa_to_simt.warp_programs import programs_per_warp

    monkeypatch.delenv("TILEORCH_PROGRAMS_PER_WARP", raising=False)
    assert programs_per_warp(1024, 8, 64) == 2  # an argmax row of 256 f32
    assert programs_per_warp(2048, 16, 64) == 1  # a softmax row of 1024 f16
    assert programs_per_warp(4096, 32, 64) == 1
    assert programs_per_warp(128, 1, 64) == 4  # at most 4
    assert programs_per_warp(1024, 8, 8) == 1  # no registers for a second
    assert programs_per_warp(0, 0, 64) == 1  # nothing hoisted: nothing to overlap
    monkeypatch.setenv("TILEORCH_PROGRAMS_PER_WARP", "4")
    assert programs_per_warp(2048, 16, 64) == 4


def test_warp_program_launch_divides_the_grid_by_warps_and_programs_per_warp():
    from tileorch.launchers.cutile import warp_program_launch

    assert warp_program_launch(1 << 18, 2, 2, 132, 40) == (64, 1 << 16)
    assert warp_program_launch(1 << 18, 2, 1, 132, 32) == (64, 1 << 17)
    assert warp_program_launch(19, 2, 2, 132, 40) == (32, 10)  # few programs: one warp per CTA
    assert warp_program_launch(132 * 64 + 3, 2, 2, 132, 40) == (64, 132 * 16 + 1)
    assert warp_program_launch(1 << 18, 2, 4, 132, 80) == (32, 1 << 16)  # > 64 registers: one warp


def test_argmax_runs_two_rows_per_warp_with_all_loads_before_the_first_reduction(bytecode):
    """An argmax row of 256 f32 loads 1 KiB per warp: each warp runs two programs (rows), and
    the whole-tile loads of both (two 16-byte loads per lane each) are issued before the first
    comparison or shuffle; the two reductions run at once (five butterfly steps of one
    (value, index) pair each, not ten); each program stores its own index."""
    from tileorch.testing.compile_memo import compile_once

    prog = compile_once((bytecode / "argmax_f32_256.tileirbc").read_bytes(), "argmax_f32_256", ptxas=False)
    assert prog.programs_per_warp == 2 and prog.warp_programs == 2
    assert any("2 programs per warp" in r for r in prog.remarks)
    ptx = prog.ptx
    first_use = min(ptx.index("shfl.sync.bfly"), ptx.index("setp.gt.f32"))
    issued = ptx[:first_use]
    assert issued.count("@p ld.global.v4.b32") >= 4
    assert "ld.global" not in ptx[first_use:]
    assert ptx.count("st.global") == 2
    assert ptx.count("shfl.sync.bfly") == 5 * 2


def test_split_cluster_size_fills_the_machine_once():
    """CTAs per program for a reduction loop split over a cluster: a power of two up to the
    kernel's most, every CTA of the grid on its own SM (a grid that fills the machine: 1)."""
    from tileorch.launchers.cutile import split_cluster_size

    assert split_cluster_size(8, 8, 132) == 8
    assert split_cluster_size(32, 8, 132) == 4
    assert split_cluster_size(1, 8, 132) == 8
    assert split_cluster_size(67, 8, 132) == 1
    assert split_cluster_size(3000, 8, 132) == 1
    assert split_cluster_size(8, 2, 132) == 2
    assert split_cluster_size(8, 16, 132) == 16  # TILEORCH_CLUSTER_SPLIT_MAX=16 (non-portable)


def test_largest_split_cluster_is_8_unless_asked(monkeypatch):
    from tileorch.transforms.tileaa_to_simt.cluster_split import max_cluster

    monkeypatch.delenv("TILEORCH_CLUSTER_SPLIT_MAX", raising=False)
    assert max_cluster() == 8
    monkeypatch.setenv("TILEORCH_CLUSTER_SPLIT_MAX", "16")
    assert max_cluster() == 16
    monkeypatch.setenv("TILEORCH_CLUSTER_SPLIT_MAX", "64")  # beyond sm_90's largest (16): an error, not clamped
    with pytest.raises(settings.SettingError, match="TILEORCH_CLUSTER_SPLIT_MAX='64': expected an integer 1..16"):
        max_cluster()


def _softmax_ref(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ref = np.exp(x - x.max(axis=1, keepdims=True))
    return ref / ref.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("div", ["1", "0"])
@pytest.mark.parametrize("name,cols", [("softmax_f16_1024", 1000), ("softmax_f16_1024", 1001),
                                       ("softmax_f16_1024", 999), ("softmax_f16_8", 7), ("softmax_f16_4096", 4095)])
def test_softmax_ragged_widths_with_and_without_the_shared_reciprocal(bytecode, monkeypatch, div, name, cols):
    """Rows of 1000, 1001, 999, 7 and 4095 f16 (tiles of 1024, 8, 4096) against numpy in fp64, with
    the division by the row's sum through one reciprocal per thread (uniform_division.py, the
    default) and without (TILEORCH_UNIFORM_DIV=0): the padding's zeros divided by the sum; a row
    with -inf elements (zero numerators inside the row); a row whose smallest exponentials are
    subnormal (the threads holding them take div.rn, the others the shared reciprocal)."""
    monkeypatch.setenv("TILEORCH_UNIFORM_DIV", div)
    x = RNG.standard_normal((4, cols)).astype(np.float16)
    x[1, ::3] = -np.inf
    x[1, 1] = 0.5  # a finite maximum
    x[2, :] = RNG.uniform(-2, 2, cols)
    x[2, 0], x[2, cols // 2] = 90.0, -5.0  # exp(-95) is a subnormal f32
    fn, _ = _kernel(bytecode, name, f"/div{div}")
    slots = 1 if cols < 8 else 32
    assert fn.attributes.get("tileorch.uniform_divisions") is None if (div == "0" or slots < 2) else \
        fn.attributes["tileorch.uniform_divisions"].value.data >= 1
    (_, y) = _run(bytecode, name, [x, _nan((4, cols), "f16")], (4, 1, 1), variant=f"/div{div}")
    np.testing.assert_allclose(y.astype(np.float64), _softmax_ref(x), atol=2e-3, rtol=0)


def _division_case():
    """Numerators (rows of 250 f32: normals over 2^-70..2^70, zeros of both signs and, in some
    rows, subnormals and tiny normals, the range edges 2^+-59..61, infinities, NaN) and each row's
    divisor."""
    divisors = [3.7, 1.0, 3.7, -2.5, 2.0 ** -61, 2.0 ** -60, 2.0 ** 60, 2.0 ** 61, 7e-39, np.inf, 1e-3, 12345.678]
    rows, cols = len(divisors), 250
    x = (RNG.standard_normal((rows, cols)) * 2.0 ** RNG.integers(-70, 71, (rows, cols))).astype(np.float32)
    zeros = [0.0, -0.0] * 4
    specials = [1e-45, -3e-39, 2.0 ** -61, 2.0 ** -60, 2.0 ** -59, 2.0 ** 59, 2.0 ** 60, -2.0 ** 61,
                np.inf, -np.inf, np.nan, 3.0e38]
    for r in range(rows):
        x[r, RNG.choice(cols, len(zeros), replace=False)] = zeros
        if r % 2:  # odd rows: every special value too
            x[r, RNG.choice(cols, len(specials), replace=False)] = specials
    for r in (2, 10):  # tiny numerators (exponents -149..-100): subnormal quotients, inexact remainders
        tiny = RNG.integers(1, 1 << 24, 120) * 2.0 ** RNG.integers(-172, -123, 120)
        x[r, RNG.choice(cols, 120, replace=False)] = (tiny * RNG.choice([-1, 1], 120)).astype(np.float32)
    x[0] = np.abs(x[0]) * np.where(np.arange(cols) % 2, 1, -1)  # row 0: normals and zeros only (all fast)
    x[0] = np.where(np.abs(x[0]) < 2.0 ** -59, np.float32(0.5), x[0])
    x[0, :8] = zeros
    x[0] = np.where(np.abs(x[0]) > 2.0 ** 59, np.float32(-3.0), x[0])
    d = np.repeat(np.array(divisors, np.float32)[:, None], cols, axis=1)
    return x, d


@pytest.mark.parametrize("div", ["1", "0"])
def test_division_by_a_shared_divisor_is_div_rn_bit_for_bit(bytecode, monkeypatch, div):
    """``x / max(d's row)`` against numpy's IEEE f32 division bit for bit (signed zeros, NaN where
    numpy has NaN): the shared-reciprocal sequence where the thread's operands lie in range, div.rn
    where they do not (a negative, tiny, huge, subnormal or infinite divisor; subnormal, extreme,
    infinite or NaN numerators)."""
    monkeypatch.setenv("TILEORCH_UNIFORM_DIV", div)
    x, d = _division_case()
    fn, _ = _kernel(bytecode, "row_divide_f32_256", f"/div{div}")
    assert ("tileorch.uniform_divisions" in fn.attributes) == (div == "1")
    (_, _, y) = _run(bytecode, "row_divide_f32_256", [x, d, _nan(x.shape, "f32")], (x.shape[0], 1, 1),
                     variant=f"/div{div}")
    with np.errstate(all="ignore"):
        ref = (x / d).astype(np.float32)
    nan = np.isnan(ref)
    assert (np.isnan(y) == nan).all()
    bad = np.argwhere((y.view(np.uint32) != ref.view(np.uint32)) & ~nan)
    assert not len(bad), [(x[r, c], d[r, c], y[r, c], ref[r, c]) for r, c in bad[:5]]
    assert (np.signbit(y[0, :8]) == np.signbit(x[0, :8])).all() and (y[0, :8] == 0).all()


def test_shared_divisor_ptx_one_reciprocal_and_div_rn_only_past_a_branch(bytecode, monkeypatch):
    """The softmax's ``e / sum``: one rcp.approx for the row (no div.rn before the per-thread
    branch; the 32 div.rn of the fallback after it), three fma/mul per element; the remark says
    so; TILEORCH_UNIFORM_DIV=0: 32 div.rn and no rcp."""
    from tileorch.testing.compile_memo import compile_once

    data = (bytecode / "softmax_f16_1024.tileirbc").read_bytes()
    prog = compile_once(data, "softmax_f16_1024", ptxas=False)
    ptx = prog.ptx
    assert ptx.count("rcp.approx.ftz.f32") == 1
    rcp = ptx.index("rcp.approx.ftz.f32")
    first_div = ptx.index("div.rn.f32")
    assert rcp < first_div and ptx.count("div.rn.f32") == 32
    between = ptx[rcp:first_div]
    assert "bra" in between and between.count("fma.rn.f32") >= 2 * 32 + 2
    assert ptx.count("min.u32") >= 31 and ptx.count("max.NaN.f32") >= 31  # the operands' range test trees
    assert any("tile division(s) by a value shared" in r for r in (prog.remarks or []))
    monkeypatch.setenv("TILEORCH_UNIFORM_DIV", "0")
    off = compile_once(data, "softmax_f16_1024", ptxas=False)
    assert "rcp.approx" not in off.ptx and off.ptx.count("div.rn.f32") == 32
    assert not any("tile division(s) by a value shared" in r for r in (off.remarks or []))
