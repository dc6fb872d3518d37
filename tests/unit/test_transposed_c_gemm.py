"""The accumulator stored transposed (``acc^T`` into a row-major ``[N, M]`` array) on the tier's
TMA + WGMMA kernel, on the CPU:

* C passed column-major (``torch.empty(N, M).t()``): the store goes through a view with its
  dimensions swapped after ``tileaa-transpose-column-major``;
* ``ct.store(C, (bn, bm), ct.transpose(acc))`` / ``ct.permute`` with C of shape ``[N, M]``.

Both compile to the WGMMA kernel with ``c_transposed`` (the direct epilogue's fragment store
replaced by the tier's stores at transposed coordinates, after the program's epilogue ops);
ptxas accepts them.  What is not supported yet (a reduction of the result beside a transposed C,
a transposed tile into a column-major C) is a located refusal, and the SIMT path runs the program.
The store addressing is run on the CPU by the interpreter of tests/unit/simt_interp.py.
tests/gpu/test_transposed_c.py runs the programs on an H200."""

from __future__ import annotations

import dataclasses
import importlib.util
import re

import pytest

from tileorch.launchers import cutile as rc

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

WGMMA = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.")
TORCH = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}


class Dev:
    """A stand-in device array (``__cuda_array_interface__``, strides in bytes, no GPU)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], column_major: bool = False):
        strides = (2, 2 * shape[0]) if column_major else None
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": "<f2",
                                         "strides": strides, "version": 3}


def _args(form: str, m: int, n: int, k: int, tiles=(128, 128, 64)) -> tuple[object, tuple]:
    from tileorch.testing import dot_programs as dp

    a, b = Dev(0x7F0000000000, (m, k)), Dev(0x7F0010000000, (k, n))
    if form == "column_major":
        return dp.gemm, (a, b, Dev(0x7F0020000000, (m, n), column_major=True), *tiles)
    if form == "transpose":
        return dp.gemm_store_transposed, (a, b, Dev(0x7F0020000000, (n, m)), *tiles)
    if form == "permute":
        return dp.gemm_bias_relu_store_permuted, (a, b, Dev(0x7F0030000000, (n,)), Dev(0x7F0020000000, (n, m)),
                                                  *tiles)
    raise ValueError(form)


def _describe(kernel, args, dtype: str):
    described = rc.describe_arguments(kernel, args)
    return [dataclasses.replace(x, dtype=TORCH[dtype]) if isinstance(x, rc.ArrayArg) else x for x in described]


def _compile(kernel, described, schedule="persistent", config=""):
    """The compiled program through the launcher's caches (in process, and the session's disk
    cache keyed by content: the dot zoo compiles the same transposed-C kernels)."""
    return rc.compiled(kernel, described, "sm_90a", schedule, config).program


def _lowered(kernel, described):
    """The program's lowering only (path, remarks, configuration; no PTX), once per input in a test
    run (``tileorch.testing.compile_memo.lower_once``): for the tests of a refusal, whose SIMT
    fallback's back end is most of a full compile's CPU."""
    from tileorch.testing.compile_memo import lower_once

    return lower_once(rc.export_bytecode(kernel, described), getattr(kernel, "__name__", "k"), arch="sm_90a")


FORMS = ["column_major", "transpose", "permute"]


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("form", FORMS)
def test_transposed_c_compiles_to_wgmma(form, dtype):
    m, n, k = 300, 264, 192
    kernel, args = _args(form, m, n, k)
    described = _describe(kernel, args, dtype)
    p = _compile(kernel, described)
    assert p.kind == "gemm", p.remarks
    assert not any("refused" in r or "SIMT" in r for r in p.remarks), p.remarks
    assert any("stored transposed" in r for r in p.remarks), p.remarks
    cfg = p.gemm_config
    assert cfg.c_transposed and cfg.epilogue == "direct" and cfg.out_dtype == dtype
    assert WGMMA.search(p.ptx) and p.cubin is not None, "no WGMMA, or ptxas did not accept the PTX"
    # no TMA store of C: each thread stores its elements (16-bit stores, predicated on the bounds)
    assert "cp.async.bulk.tensor.2d.global.shared" not in p.ptx
    assert re.search(r"st\.global\.(?:b|u)16", p.ptx)
    # the epilogue addresses C from the work tile's origin: the launcher may retile the program
    assert p.retile_safe
    a, b, c, mm, nn, kk, batch = rc.gemm_problem_batched(p, rc.stored_arguments(described))
    assert (mm, nn, kk, batch) == (m, n, k, 1) and c.shape == (n, m)


@pytest.mark.parametrize("form", ["transpose", "column_major"])
def test_transposed_c_retiles_and_keeps_the_direct_epilogue(form):
    """The launcher's retiling (a 256-column tile, the TMA epilogue asked for, as tileorch.gemm's
    heuristic picks for f16): the transposed stores need the direct epilogue, which is kept."""
    kernel, args = _args(form, 1024, 1024, 256)
    p = _compile(kernel, _describe(kernel, args, "f16"), config="tile_n=256,epilogue=tma")
    assert p.kind == "gemm" and p.gemm_config.tile_n == 256
    assert p.gemm_config.c_transposed and p.gemm_config.epilogue == "direct"
    assert p.cubin is not None


def test_streamk_schedule_compiles():
    kernel, args = _args("permute", 1000, 520, 384)
    p = _compile(kernel, _describe(kernel, args, "f16"), schedule="streamk")
    assert p.kind == "gemm" and p.gemm_config.schedule == "streamk" and p.gemm_config.c_transposed
    assert p.cubin is not None


def test_host_rejects_a_c_of_the_untransposed_shape():
    kernel, args = _args("transpose", 300, 264, 192)
    p = _compile(kernel, _describe(kernel, args, "f16"))
    wrong = list(args)
    wrong[2] = Dev(0x7F0020000000, (300, 264))
    with pytest.raises(ValueError, match=r"stored as C\^T"):
        rc.gemm_problem_batched(p, rc.stored_arguments(_describe(kernel, tuple(wrong), "f16")))


# -- refusals: located, the SIMT path runs the program ---------------------------------------

if HAVE_CUTILE:
    import cuda.tile as ct

    @ct.kernel
    def transposed_with_colsum(A, B, C, S, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
        bm, bn = ct.bid(0), ct.bid(1)
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(S, index=(bm, bn), tile=ct.sum(acc, axis=0, keepdims=True))
        ct.store(C, index=(bn, bm), tile=ct.transpose(acc).astype(C.dtype))


# The refusals below come from the tier whatever the tile; the tests use 64x64x32 tiles, whose SIMT
# fallback compiles (through ptxas) in a tenth of the CPU of the 128x128x64 kernel (46 s -> 4 s).
REFUSED_TILES = (64, 64, 32)


def test_transposed_c_with_a_column_reduction_is_refused_with_a_location():
    kernel = transposed_with_colsum
    m, n, k = 256, 256, 128
    tm = REFUSED_TILES[0]
    s = Dev(0x7F0040000000, (m // tm, n))
    s.__cuda_array_interface__["typestr"] = "<f4"
    args = (Dev(0x7F0000000000, (m, k)), Dev(0x7F0010000000, (k, n)), Dev(0x7F0020000000, (n, m)), s, *REFUSED_TILES)
    p = _lowered(kernel, rc.describe_arguments(kernel, args))
    assert p.kind == "simt"
    refusal = [r for r in p.remarks if "refused" in r]
    assert refusal and "reduction of the result stored beside a transposed C" in refusal[0], p.remarks
    assert re.match(r".*test_transposed_c_gemm\.py:\d+:\d+: warning:", refusal[0]), refusal[0]


def test_transposed_tile_into_a_column_major_c_is_refused_with_a_location():
    """``ct.transpose(acc)`` stored into a column-major ``[N, M]`` C writes row-major memory
    through two transposes: not taken yet (a located refusal naming it), SIMT runs it."""
    from tileorch.testing.dot_programs import gemm_store_transposed

    m, n, k = 256, 256, 128
    args = (Dev(0x7F0000000000, (m, k)), Dev(0x7F0010000000, (k, n)), Dev(0x7F0020000000, (n, m), True),
            *REFUSED_TILES)
    p = _lowered(gemm_store_transposed, rc.describe_arguments(gemm_store_transposed, args))
    assert p.kind == "simt"
    assert any("a transposed tile stored through a view with dimension order [1, 0]" in r and "refused" in r
               for r in p.remarks), p.remarks


# -- the store addressing, run on the CPU ------------------------------------------------------

def _epilogue_kernel(kernel, described, tile_n: int):
    """A SIMT kernel of 256 threads (two consumer warp groups) that runs only the tier's
    transposed store of C for one work tile, with each accumulator element's value a function of
    its global (row, column): ``row * 7 + column * 3``.  Parameters: the tile kernel's, then the
    work tile's first row and column and its program ids (0, 1).  The fragment coordinates are
    the WGMMA D fragment's, as ``convert-nv-tileas-to-cutlass`` computes them."""
    from xdsl.dialects import arith, func
    from xdsl.dialects.builtin import DenseArrayBase, StringAttr, UnitAttr, f32, i32

    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.dialects import nv_tileaa as aa
    from tileorch.dialects import nvvm
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.transforms.tileaa_to_simt.emit import Emitter
    from tileorch.transforms.tileas.convert_to_cutlass import _param_type, analyze_dot_kernel
    from tileorch.transforms.tileas.epilogue import Coord, EpilogueLowering, KernelEnv
    from tileorch.transforms.transpose_column_major import transpose_column_major

    ctx = make_context()
    module = load(rc.export_bytecode(kernel, described), "k", ctx)
    run_passes(ctx, module, parse_pipeline("convert-cudatile-to-tileaa{compute_capability=sm_90a}"))
    transpose_column_major(module)
    run_passes(ctx, module, parse_pipeline("tileas-tier"))
    tk = next(op for op in module.walk() if isinstance(op, aa.FuncOp))
    dk = analyze_dot_kernel(tk)
    assert dk.c_transposed
    types = [_param_type(tk, t) for t in tk.function_type.inputs.data] + [i32] * 4
    fn = func.FuncOp("epilogue", (types, []))
    blk = fn.body.blocks.first
    args = list(blk.args)
    nparams = len(types) - 4
    e = Emitter(blk, 256)
    env = KernelEnv(args[:nparams], [args[nparams + 2], args[nparams + 3], e.const(0)], args[nparams:nparams + 2])
    tid = e.v(nvvm.SPECIAL_REGISTERS["tid.x"]())
    t = e.v(arith.AndIOp(tid, e.const(127)))
    wg = e.v(arith.ShRUIOp(tid, e.const(7)))
    warp, lane = e.v(arith.ShRUIOp(t, e.const(5))), e.v(arith.AndIOp(t, e.const(31)))
    row0 = e.add_i(e.add_i(e.mul_i(wg, e.const(64)), e.mul_i(warp, e.const(16))), e.v(arith.ShRUIOp(lane, e.const(2))))
    col_in = e.mul_i(e.v(arith.AndIOp(lane, e.const(3))), e.const(2))
    lowering = EpilogueLowering(tk.body.blocks.first, dk.acc, dk.store, env, e, store_swapped=dk.c_swapped)
    for g in range(tile_n // 8):
        for half in range(2):
            for j in range(2):
                row = Coord(e.add_i(row0, e.const(8 * half)), 0)
                col = Coord(e.add_i(col_in, e.const(8 * g + j)), 1)

                def value(row=row, col=col):
                    r, c = e.add_i(env.origin[0], row.value), e.add_i(env.origin[1], col.value)
                    return e.v(arith.SIToFPOp(e.add_i(e.mul_i(r, e.const(7)), e.mul_i(c, e.const(3))), f32))

                lowering.acc_element = value
                lowering.memo.clear()
                lowering.transposed_store(row, col, dk.c_swapped)
    blk.add_op(func.ReturnOp())
    fn.attributes["nvvm.kernel"] = UnitAttr()
    fn.attributes["nvvm.maxntid"] = DenseArrayBase.from_list(i32, [256])
    fn.attributes["sym_visibility"] = StringAttr("public")
    return fn


@pytest.mark.parametrize("form", FORMS)
def test_transposed_store_addressing_on_the_cpu(form):
    """Every element of a ragged C^T (M = 150, N = 140, 128 x 128 tiles: four work tiles, three
    of them partial) is written once with its own (row, column)'s value (plus the bias of its
    column, relu, for the permuted program), nothing outside it: f32 C so that the values are
    exact."""
    import numpy as np

    from simt_interp import Interpreter, Memory

    m, n, k = 150, 140, 64
    kernel, args = _args(form, m, n, k)
    described = _describe(kernel, args, "f16")
    ci = len(described) - 4  # C: the last array before the three tile constants
    described = [dataclasses.replace(x, dtype="float32") if i == ci else x for i, x in enumerate(described)]
    fn = _epilogue_kernel(kernel, described, 128)
    mem = Memory()
    a = np.zeros((m, k), np.float16)
    b = np.zeros((k, n), np.float16)
    guard = 64
    ct_buf = np.full(n * m + guard, np.nan, np.float32)  # C^T [N, M] row-major, then a guard
    params = []
    bias = np.arange(n, dtype=np.float16)
    for x in (a, b, bias) if form == "permute" else (a, b):
        base = mem.place(x.ravel(), 0)
        params += [base, *x.shape, *(s // x.itemsize for s in x.strides)]
    c_base = mem.place(ct_buf, 0)
    if described[ci].column_major:  # the cuTile entry's own view: C [M, N], strides (1, M)
        params += [c_base, m, n, 1, m]
    else:
        params += [c_base, n, m, m, 1]
    interp = Interpreter(fn, mem, 256)
    for tm_i in range(2):
        for tn_i in range(2):
            interp.run([*params, 128 * tm_i, 128 * tn_i, tm_i, tn_i], (1, 1, 1))
    raw, off = mem.find(c_base, ct_buf.nbytes)
    flat = np.frombuffer(raw[off:off + ct_buf.nbytes].tobytes(), np.float32)
    rows, cols = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    want = rows * 7 + cols * 3 + (cols if form == "permute" else 0)
    np.testing.assert_array_equal(flat[:n * m].reshape(n, m).T, want.astype(np.float32))
    assert np.isnan(flat[n * m:]).all(), "stored past C"
