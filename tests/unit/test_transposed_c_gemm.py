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
    from tileorch.driver import compile_program

    return compile_program(rc.export_bytecode(kernel, described), "<transposed C test>", schedule=schedule,
                           config=config)


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


def test_transposed_c_with_a_column_reduction_is_refused_with_a_location():
    kernel = transposed_with_colsum
    m, n, k = 256, 256, 128
    s = Dev(0x7F0040000000, (m // 128, n))
    s.__cuda_array_interface__["typestr"] = "<f4"
    args = (Dev(0x7F0000000000, (m, k)), Dev(0x7F0010000000, (k, n)), Dev(0x7F0020000000, (n, m)), s, 128, 128, 64)
    p = _compile(kernel, rc.describe_arguments(kernel, args))
    assert p.kind == "simt"
    refusal = [r for r in p.remarks if "refused" in r]
    assert refusal and "reduction of the result stored beside a transposed C" in refusal[0], p.remarks
    assert re.match(r".*test_transposed_c_gemm\.py:\d+:\d+: error:", refusal[0]), refusal[0]


def test_transposed_tile_into_a_column_major_c_is_refused_with_a_location():
    """``ct.transpose(acc)`` stored into a column-major ``[N, M]`` C writes row-major memory
    through two transposes: not taken yet (a located refusal naming it), SIMT runs it."""
    from tileorch.testing.dot_programs import gemm_store_transposed

    m, n, k = 256, 256, 128
    args = (Dev(0x7F0000000000, (m, k)), Dev(0x7F0010000000, (k, n)), Dev(0x7F0020000000, (n, m), True),
            128, 128, 64)
    p = _compile(gemm_store_transposed, rc.describe_arguments(gemm_store_transposed, args))
    assert p.kind == "simt"
    assert any("a transposed tile stored through a view with dimension order [1, 0]" in r and "refused" in r
               for r in p.remarks), p.remarks
