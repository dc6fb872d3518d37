"""``tileorch.cutile.launch`` without a GPU: the kernel signature and the parameter bytes built
from the actual arguments (against hand-computed values and against the entry cuTile exports),
constants taking no parameter, the errors naming the argument, and the whole launch path
against a fake driver and a stand-in for ``compile_program``.  The GEMM operand indices that
convert-nv-tileas-to-cutlass records are checked here too."""

from __future__ import annotations

import importlib.util
import os
import struct
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tileorch.launchers import cutile as rc

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tile_gemm.mlir"

if HAVE_CUTILE:
    import cuda.tile as ct

    @ct.kernel
    def add(a, b, c, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        x = ct.load(a, index=(i,), shape=(tile,))
        y = ct.load(b, index=(i,), shape=(tile,))
        ct.store(c, index=(i,), tile=x * alpha + y)

    @ct.kernel
    def rows(tn: ct.Constant[int], x, out, scale):
        r = ct.bid(0)
        t = ct.load(x, index=(r, 0), shape=(1, tn)).astype(ct.float32)
        ct.store(out, index=(r, 0), tile=(t * scale).astype(out.dtype))

    from typing import Annotated

    @ct.kernel
    def static_dims(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(-1,))],
                    y: Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(0, 1))], tile: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0), 0), shape=(1, tile))
        ct.store(y, index=(ct.bid(0), 0), tile=t)

    @ct.kernel
    def wide(x: ct.IndexedWithInt64, n: ct.ScalarInt64, tile: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0),), shape=(tile,))
        ct.store(x, index=(ct.bid(0),), tile=t + 1)


class Dev:
    """A device array as torch/cupy expose it (``__cuda_array_interface__``, byte strides)."""

    def __init__(self, ptr, shape, typestr="<f2", strides=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": typestr,
                                         "strides": strides, "version": 3}


class Bad:
    """An object whose ``__cuda_array_interface__`` is whatever the test gives."""

    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


def i32(*v):
    return [struct.pack("<i", x) for x in v]


def u64(v):
    return struct.pack("<Q", v)


# --------------------------------------------------------------------------- signature / packing


@needs_cutile
def test_2d_fp16_array_packs_pointer_shape_strides():
    x = Dev(0x7F0000100000, (3, 5), "<f2")  # C-contiguous: strides (5, 1) elements
    o = Dev(0x7F0000200000, (3, 5), "<f2", strides=(10, 2))  # the same layout, given in bytes
    args = rc.describe_arguments(rows, (64, x, o, 0.5))
    assert isinstance(args[0], rc.ConstantArg) and args[0].value == 64
    assert args[1].shape == (3, 5) and args[1].strides == (5, 1) and args[1].dtype == "float16"
    assert args[2].strides == (5, 1)
    assert rc.pack_simt_arguments(args) == (
        [u64(0x7F0000100000)] + i32(3, 5, 5, 1) + [u64(0x7F0000200000)] + i32(3, 5, 5, 1) + [struct.pack("<f", 0.5)])
    assert rc.flat_parameters(args) == [(1, "ptr"), (1, "shape0"), (1, "shape1"), (1, "stride0"), (1, "stride1"),
                                        (2, "ptr"), (2, "shape0"), (2, "shape1"), (2, "stride0"), (2, "stride1"),
                                        (3, "scalar")]


@needs_cutile
def test_constants_take_no_parameter_and_scalars_take_their_type():
    a, b, c = (Dev(0x10000 * (i + 1), (1000,), "<f4") for i in range(3))
    packed = rc.pack_simt_arguments(rc.describe_arguments(add, (a, b, c, 2, 256)))
    assert packed == ([u64(0x10000)] + i32(1000, 1) + [u64(0x20000)] + i32(1000, 1) + [u64(0x30000)]
                      + i32(1000, 1) + i32(2))
    packed = rc.pack_simt_arguments(rc.describe_arguments(add, (a, b, c, 1.5, 256)))
    assert packed[-1] == struct.pack("<f", 1.5)
    w = rc.describe_arguments(wide, (Dev(0x40000, (7,), "<i4"), 3, 128))
    assert rc.pack_simt_arguments(w) == [u64(0x40000), struct.pack("<q", 7), struct.pack("<q", 1), struct.pack("<q", 3)]


@needs_cutile
def test_signature_constraints_follow_the_arguments():
    from cuda.tile.compilation import ArrayConstraint, ConstantConstraint, ScalarConstraint

    x = Dev(0x10008, (4, 6), "<f4", strides=(4, 16))  # a transposed view: strides (1, 4), 8-byte aligned
    o = Dev(0x20000, (4, 6), "<f4")
    sig = rc.kernel_signature(rc.describe_arguments(rows, (32, x, o, 1.0)))
    p = sig.parameters
    assert p[0] == ConstantConstraint(32) and p[3] == ScalarConstraint(ct.float32)
    assert isinstance(p[1], ArrayConstraint) and p[1].dtype == ct.float32 and p[1].ndim == 2
    # column-major: compiled for its unit stride on dimension 0 (the kernel reads the transpose)
    assert p[1].index_dtype == ct.int32 and p[1].stride_constant == (1, None)
    assert p[1].base_addr_divisible_by == 8 and p[1].shape_divisible_by == (1, 1)
    assert p[2].stride_constant == (None, 1) and p[2].base_addr_divisible_by == 16
    assert p[1].alias_groups == () and not p[1].may_alias_internally
    strided = Dev(0x10008, (4, 6), "<f4", strides=(8, 32))  # strides (2, 8): neither major
    p = rc.kernel_signature(rc.describe_arguments(rows, (32, strided, o, 1.0))).parameters
    assert p[1].stride_constant == (None, None)


@needs_cutile
def test_array_annotations_static_dims_are_the_signatures_constants():
    """``ct.ArrayAnnotation(static_shape_dims=..., static_stride_dims=...)`` (cuTile 1.7): the launch-time
    extents / strides the annotation names become the signature's constants (calling convention v2 for a
    static shape, which cuTile requires), cuTile exports the kernel, its entry's parameters are still the
    ones packed, and another extent is another compile (was: cuTile's TypeError "no constant shape value
    is available" from every launch of such a kernel, the launcher passing no constants)."""
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode

    x, y = Dev(0x10000, (4, 6), "<f4"), Dev(0x20000, (4, 6), "<f4")
    args = rc.describe_arguments(static_dims, (x, y, 8))
    assert args[0].static_shape == (None, 6) and args[0].static_strides == ()
    assert args[1].static_shape == () and args[1].static_strides == (6, 1)
    p = rc.kernel_signature(args).parameters
    assert p[0].shape_constant == (None, 6) and p[0].stride_constant == (None, 1)
    assert p[1].shape_constant == (None, None) and p[1].stride_constant == (6, 1)
    module = read_bytecode(rc.export_bytecode(static_dims, args))
    entry = module.body.block.first_op.body.block.first_op
    assert len(entry.function_type.inputs.data) == len(rc.pack_simt_arguments(args)) == 10
    wider = rc.describe_arguments(static_dims, (Dev(0x10000, (4, 8), "<f4"), y, 8))
    assert rc.signature_key(wider) != rc.signature_key(args)
    plain = rc.describe_arguments(add, tuple(Dev(0x10000 * (i + 1), (1000,), "<f4") for i in range(3)) + (2.0, 256))
    assert "v1" in str(rc.kernel_signature(plain).calling_convention)  # unchanged without static shapes


@needs_cutile
def test_overlapping_and_broadcast_arrays_are_declared():
    buf = Dev(0x50000, (8,), "<f4")
    same = Dev(0x50010, (8,), "<f4")  # overlaps buf's last 4 elements
    other = Dev(0x90000, (8,), "<f4")
    args = rc.describe_arguments(add, (buf, other, same, 1.0, 8))
    assert args[0].alias_groups == args[2].alias_groups == ("alias0",) and args[1].alias_groups == ()
    sig = rc.kernel_signature(args)
    assert sig.parameters[0].alias_groups == ("alias0",)
    bcast = Dev(0x60000, (8,), "<f4", strides=(0,))
    args = rc.describe_arguments(add, (bcast, other, Dev(0xA0000, (8,), "<f4"), 1.0, 8))
    assert args[0].may_alias_internally and args[0].strides == (0,)
    # the cache key tells layouts apart but not pointers of the same alignment
    k1 = rc.signature_key(rc.describe_arguments(add, (Dev(0x100, (9,), "<f4"), other, buf, 1.0, 8)))
    k2 = rc.signature_key(rc.describe_arguments(add, (Dev(0x200, (5,), "<f4"), other, buf, 2.0, 8)))
    k3 = rc.signature_key(rc.describe_arguments(add, (Dev(0x204, (5,), "<f4"), other, buf, 2.0, 8)))
    k4 = rc.signature_key(rc.describe_arguments(add, (Dev(0x200, (5,), "<f4"), other, buf, 2.0, 16)))
    assert k1 == k2 and k1 != k3 and k1 != k4


@needs_cutile
def test_dlpack_arrays_are_read(monkeypatch):
    import tileorch.runtime.buffers as buffers

    host = np.zeros((3, 8), np.float16)
    with pytest.raises(TypeError, match=r"argument 1 \('x'\) is a numpy array, in host memory"):
        rc.describe_arguments(rows, (8, host, Dev(0x1000, (3, 8)), 1.0))
    other = SimpleNamespace(__dlpack__=host.__dlpack__)  # another library's host array
    with pytest.raises(TypeError, match=r"argument 1 \('x'\) lives in host \(CPU\) memory, not on a CUDA device"):
        rc.describe_arguments(rows, (8, other, Dev(0x1000, (3, 8)), 1.0))
    monkeypatch.setattr(buffers, "_KDL_CUDA", 1)  # let host memory stand in for device memory
    args = rc.describe_arguments(rows, (8, host[:, ::2], Dev(0x1000, (3, 4)), 1.0))
    x = args[1]
    assert (x.dtype, x.shape, x.strides, x.ptr) == ("float16", (3, 4), (8, 2), host.ctypes.data)


class FakeTensor:
    """What the launcher reads of a torch tensor."""

    def __init__(self, dtype, shape, strides, ptr, device="cuda:0"):
        self.dtype, self.shape, self._strides, self._ptr, self.device = dtype, shape, strides, ptr, device
        self.is_cuda = device.startswith("cuda")

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr


@needs_cutile
def test_torch_tensors_are_read(monkeypatch):
    fake_torch = SimpleNamespace(Tensor=FakeTensor, __name__="torch")
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    x = FakeTensor("torch.bfloat16", (4, 6), (1, 4), 0x7000)  # a transposed view
    o = FakeTensor("torch.float16", (4, 6), (6, 1), 0x9000)
    args = rc.describe_arguments(rows, (16, x, o, 1.0))
    assert (args[1].dtype, args[1].shape, args[1].strides, args[1].ptr) == ("bfloat16", (4, 6), (1, 4), 0x7000)
    assert rc.pack_simt_arguments(args)[:5] == [u64(0x7000)] + i32(4, 6, 1, 4)
    assert args[2].dtype == "float16"
    with pytest.raises(TypeError, match=r"argument 1 \('x'\) is a torch tensor on cpu"):
        rc.describe_arguments(rows, (16, FakeTensor("torch.float16", (4, 6), (6, 1), 0x100, "cpu"), o, 1.0))
    with pytest.raises(TypeError, match=r"argument 2 \('out'\) has dtype torch.complex64"):
        rc.describe_arguments(rows, (16, x, FakeTensor("torch.complex64", (4, 6), (6, 1), 0x100), 1.0))
    with pytest.raises(TypeError, match=r"argument 3 \('scale'\) is a numpy float32 scalar"):
        rc.describe_arguments(rows, (16, x, o, np.float32(1.0)))


@needs_cutile
def test_exported_entry_matches_the_packed_parameters():
    """cuTile's own export of the signature: the entry's parameters are what we pack (8-byte
    pointers, 4-byte i32 shapes/strides, the scalar), constants absent."""
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode

    args = rc.describe_arguments(add, tuple(Dev(0x10000 * (i + 1), (1000,), "<f4") for i in range(3)) + (2.0, 256))
    module = read_bytecode(rc.export_bytecode(add, args))
    entry = module.body.block.first_op.body.block.first_op
    types = [str(t).removeprefix("!cuda_tile.") for t in entry.function_type.inputs.data]
    assert types == ["tile<ptr<f32>>", "tile<i32>", "tile<i32>"] * 3 + ["tile<f32>"]
    assert [len(p) for p in rc.pack_simt_arguments(args)] == [8, 4, 4] * 3 + [4]
    assert entry.sym_name.data.startswith("add_") and "I256" in entry.sym_name.data


# --------------------------------------------------------------------------- errors


@needs_cutile
@pytest.mark.parametrize("shape,strides", [((2**31 + 4096,), None), ((4, 2**31), None), ((4, 8), (2**31 * 2, 2))])
def test_int64_indices_past_2_31_are_refused_not_truncated(shape, strides):
    """``ct.IndexedWithInt64`` with a size or stride of 2**31 or more: the kernels' index arithmetic is 32-bit (the
    SIMT path's ``make_memref`` truncates the i64 size: ``cvt.u32.u64``, every access then masked off), so the
    launch refuses it by name instead of running with truncated sizes; below 2**31 the annotation is accepted."""
    with pytest.raises(ValueError, match=r"argument 0 \('x'\): shape .* reach 2\*\*31: ct.IndexedWithInt64 is accepted, "
                                         r"but tileorch's kernels compute .* in 32 bits"):
        rc.describe_arguments(wide, (Dev(16, shape, strides=strides), 3, 256))
    assert rc.describe_arguments(wide, (Dev(16, (2**31 - 1,)), 3, 256))[0].index_dtype == "int64"



@needs_cutile
@pytest.mark.parametrize("args,exc,words", [
    ((1, 2), TypeError, r"kernel 'add' takes 5 arguments \(a, b, c, alpha, tile\), got 2"),
    (("A", "B", "C", 1.0, 8), TypeError, r"argument 0 \('a'\): cannot pass a str"),
    (("X", "B", "C", 1.0, "tile"), TypeError, r"argument 0 \('a'\)"),
    ((None, None, None, 1.0, 8), TypeError, r"argument 0 \('a'\): cannot pass a NoneType"),
    ((Dev(16, (4,), "<c8"),) * 3 + (1.0, 8), TypeError, r"argument 0 \('a'\) has element type '<c8'"),
    ((Dev(16, (4,)),) * 3 + (1.0, Dev(16, (4,))), TypeError, r"argument 4 \('tile'\) is a ct.Constant parameter"),
    ((Dev(16, (4,)),) * 3 + (2**31, 8), ValueError, r"argument 3 \('alpha'\) = 2147483648 does not fit in int32"),
    ((Dev(16, (2**31,)),) * 3 + (1, 8), ValueError, r"argument 0 \('a'\).*exceed the int32 index range"),
    ((Dev(16, (4,)), (1, 2), Dev(16, (4,)), 1.0, 8), TypeError, r"argument 1 \('b'\): tuple parameters"),
    ((Dev(16, (4,)), [1, 2], Dev(16, (4,)), 1.0, 8), TypeError, r"argument 1 \('b'\) item 0 is a int"),
    ([Dev(16, (4,))] * 3 + ["1.0", 8], TypeError, r"argument 3 \('alpha'\): cannot pass a str"),
    # a malformed __cuda_array_interface__ names the argument (was a KeyError or an unrelated TypeError)
    ((Bad({"data": (16, False), "shape": (4,)}),) * 3 + (1.0, 8), TypeError,
     r"argument 0 \('a'\) has a malformed __cuda_array_interface__: no 'typestr' entry"),
    ((Bad(5),) * 3 + (1.0, 8), TypeError, r"argument 0 \('a'\) has a malformed __cuda_array_interface__: a dict"),
    ((Dev(16, ("4",)),) * 3 + (1.0, 8), TypeError, r"'shape' must be a tuple of ints, got \('4',\)"),
    ((Bad({"data": 16, "shape": (4,), "typestr": "<f4"}),) * 3 + (1.0, 8), TypeError,
     r"'data' must be \(pointer, read_only\), got 16"),
    ((Dev(16, (4, 4), strides=(16,)),) * 3 + (1.0, 8), TypeError, r"'strides' must be None or 2 int\(s\)"),
    ((Dev(16, (-4,)),) * 3 + (1.0, 8), ValueError, r"argument 0 \('a'\) has shape \(-4,\): an extent is negative"),
    ((Dev(0, (4,)),) * 3 + (1.0, 8), ValueError, r"argument 0 \('a'\) has 4 elements at address 0 \(a null pointer\)"),
])
def test_bad_arguments_name_the_argument(args, exc, words):
    with pytest.raises(exc, match=words):
        rc.describe_arguments(add, args)


@needs_cutile
def test_bad_grid_kernel_and_options():
    a = Dev(16, (4,), "<f4")
    good = (a, a, a, 1.0, 4)
    # a grid of another length is a ValueError, as cuda.tile.launch's "Grid dimensions must be at most 3"
    for grid, exc in (((), ValueError), ((1, 2, 3, 4), ValueError), ((0,), ValueError), ((1.5,), TypeError),
                      (([1],), TypeError), (None, TypeError), ((-1,), ValueError)):
        with pytest.raises(exc, match="grid"):
            rc.launch(0, grid, add, good)
    with pytest.raises(TypeError, match="decorated with @cuda.tile.kernel"):
        rc.launch(0, (1,), lambda a: a, (a,))
    with pytest.raises(TypeError, match="decorated with @cuda.tile.kernel"):  # unhashable: no bound-launch key
        rc.launch(0, (1,), [add], good)
    with pytest.raises(ValueError, match="schedule must be one of"):
        rc.launch(0, (1,), add, good, schedule="fast")
    with pytest.raises(ValueError, match="arch must be one of"):
        rc.launch(0, (1,), add, good, arch="sm_80")
    # the options by position (arch, schedule, sync, tiles), checked as by name
    with pytest.raises(ValueError, match="arch must be one of"):
        rc.launch(0, (1,), add, good, "sm_80")
    with pytest.raises(ValueError, match="schedule must be one of"):
        rc.launch(0, (1,), add, good, "sm_90a", "fast")
    with pytest.raises(TypeError, match="sync must be True or False, got 'no'"):
        rc.launch(0, (1,), add, good, "sm_90a", "auto", "no")
    with pytest.raises(ValueError, match="tiles must be 'auto' or 'program'"):
        rc.launch(0, (1,), add, good, "sm_90a", "auto", False, "big")
    with pytest.raises(TypeError, match="kernel arguments must be a tuple"):
        rc.launch(0, (1,), add, a)
    with pytest.raises(TypeError, match="stream must be a CUDA stream"):
        rc.launch("s", (1,), add, good)


@needs_cutile
@pytest.mark.parametrize("args,error,note", [
    ((Dev(0x10000, (4, 4), "<f4"),) * 3 + (1.0, 4), "Index size 1 does not match the array rank 2",
     "a: float32 2-D array [4, 4], b: float32 2-D array [4, 4]"),
    ((Dev(0x10000, (4,), "<f4"),) * 3 + (1.0, 3), "is not a power of two", "tile = 3 (constant)"),
    ((Dev(0x10000, (4,), "<i4"),) * 3 + (1.0, 4), "cannot implicitly cast float32 to int32",
     "c: int32 1-D array [4], alpha: float32 scalar"),
])
def test_arguments_cutile_cannot_type_the_kernel_for_are_named(stand_in_gpu, args, error, note):
    """A launch whose arguments the kernel's body cannot take (an array of another rank, a
    constant that is not a power of two, integer arrays for a float store): cuTile's own error at
    the kernel's source line, as ``ct.launch`` raises it, with a note naming the arguments the
    kernel was typed for; nothing compiled or launched."""
    from cuda.tile import TileError

    with pytest.raises(TileError, match=error) as info:
        rc.launch(0, (1,), add, args)
    assert any(note in n and "kernel 'add'" in n for n in getattr(info.value, "__notes__", [])), info.value
    assert info.value.loc is not None and "test_cutile_launch.py" in str(info.value.loc)
    assert not stand_in_gpu.compiles and not stand_in_gpu.launches


@needs_cutile
@pytest.mark.parametrize("sync", ["yes", 1, None])
def test_sync_must_be_a_bool(sync):
    a = Dev(0x1000, (4,), "<f4")
    with pytest.raises(TypeError, match=r"sync must be True or False, got " + repr(sync)):
        rc.launch(0, (1,), add, (a, a, a, 1.0, 4), sync=sync)


@needs_cutile
def test_no_gpu_is_gpu_unavailable():
    from tileorch.runtime import GpuUnavailable, gpu_status

    if gpu_status()[0]:
        pytest.skip("a GPU is present")
    a = Dev(0x1000, (4,), "<f4")
    with pytest.raises(GpuUnavailable):
        rc.launch(0, (1,), add, (a, a, a, 1.0, 4))


def test_missing_cutile_is_an_import_error_and_import_tileorch_needs_neither(monkeypatch):
    monkeypatch.setitem(sys.modules, "cuda.tile", None)
    with pytest.raises(ImportError, match="pip install cuda-tile"):
        rc.describe_arguments(object(), ())
    code = ("import sys; sys.modules['cuda.tile'] = None; sys.modules['cuda.bindings'] = None; import tileorch\n"
            "print(tileorch.cutile.launch.__name__)\n"
            "try:\n    tileorch.cutile.launch(0, (1,), None, ())\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "launch" and "pip install cuda-tile" in out.stdout


def test_streams():
    assert rc.stream_handle(None) == 0 and rc.stream_handle(7) == 7
    assert rc.stream_handle(SimpleNamespace(cuda_stream=42)) == 42
    assert rc.stream_handle(SimpleNamespace(__cuda_stream__=lambda: (0, 99))) == 99
    assert rc.normalize_grid((3,)) == (3, 1, 1) and rc.normalize_grid([2, 5]) == (2, 5, 1)



@pytest.mark.parametrize("stream,error,message", [
    (0.5, TypeError, r"stream must be a CUDA stream \(torch/cupy stream, CUstream or int handle\), got float 0.5"),
    (True, TypeError, r"got bool True"),
    (-1, ValueError, r"stream handle must be a non-negative int \(0: the default stream\), got -1"),
])
def test_stream_handles_that_are_not_streams_are_refused(stream, error, message):
    # 0.5 and True were int()-ed into the default stream (0) and stream 1, silently; -1 reached the driver
    with pytest.raises(error, match=message):
        rc.stream_handle(stream)


# --------------------------------------------------------------------------- launch against a fake driver


class FakeDriver:
    """The driver calls tileorch.runtime makes for a module load and one launch."""

    def __init__(self, params: dict[str, list[int]]):
        self.params, self.launches, self.loaded = params, [], []
        self.CUdevice_attribute = SimpleNamespace(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR="maj",
                                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR="min",
                                                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT="sms")
        self.CUfunction_attribute = SimpleNamespace(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES="dyn")

    CUstream = staticmethod(lambda v: v)
    CUlaunchConfig = staticmethod(lambda: SimpleNamespace(attrs=[], numAttrs=0))

    def cuInit(self, f):
        return (0,)

    def cuDeviceGetCount(self):
        return 0, 1

    def cuDeviceGet(self, i):
        return 0, i

    def cuDevicePrimaryCtxRetain(self, d):
        return 0, "ctx"

    def cuCtxSetCurrent(self, c):
        return (0,)

    def cuDeviceGetName(self, n, d):
        return 0, b"Fake H100\0"

    def cuDeviceGetAttribute(self, a, d):
        return 0, {"maj": 9, "min": 0, "sms": 132}[a]

    def cuDriverGetVersion(self):
        return 0, 13000

    def cuModuleLoadData(self, data):
        self.loaded.append(bytes(data))
        return 0, "mod"

    def cuModuleGetFunction(self, mod, name):
        return (0, name.decode()) if name.decode() in self.params else (500, None)

    def cuFuncGetParamInfo(self, fn, i):
        sizes = self.params[fn]
        return (0, 0, sizes[i]) if i < len(sizes) else (1, 0, 0)

    def cuEventCreate(self, f):
        return 0, object()

    def cuEventRecord(self, ev, s):
        return (0,)

    def cuEventDestroy(self, ev):
        return (0,)

    def cuEventQuery(self, ev):
        return (0,)

    def cuLaunchKernelEx(self, config, fn, params, extra):
        import ctypes

        sizes = self.params[fn]
        ptrs = (ctypes.c_void_p * len(sizes)).from_address(params)
        self.launches.append({"fn": fn, "config": config, "stream": config.hStream,
                              "params": [ctypes.string_at(p, s) for p, s in zip(ptrs, sizes)]})
        return (0,)


@pytest.fixture
def stand_in_gpu(monkeypatch):
    """The launch path against :class:`FakeDriver` and a ``compile_program`` stand-in that names
    each compiled program ``k<n>`` (its parameter sizes read from the exported entry); records
    the compiles (entry name, arch, schedule) and the argument descriptions (calls that took the
    full path)."""
    import tileorch.driver as frontend
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    drv = FakeDriver({})
    drv.compiles, drv.described = [], []

    def compile_program(data, name, arch="sm_90a", schedule="persistent", ptxas=True, **_):
        entry = read_bytecode(data).body.block.first_op.body.block.first_op
        kernel = f"k{len(drv.compiles)}"
        drv.compiles.append((entry.sym_name.data, arch, schedule))
        drv.params[kernel] = [8 if "ptr<" in str(t) or "64" in str(t) else 4 for t in entry.function_type.inputs.data]
        return SimpleNamespace(kind="simt", ptx=f".version 8.0\n.visible .entry {kernel}()\n", cubin=None,
                               kernel=kernel, threads=128, gemm_config=None, gemm_args=None)

    describe = rc.describe_arguments
    monkeypatch.setattr(rc, "describe_arguments", lambda k, a: drv.described.append(a) or describe(k, a))
    monkeypatch.setattr(frontend, "compile_program", compile_program, raising=False)
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    rc.clear_caches()
    rt_device.forget_devices()
    try:
        with use_api(drv):
            yield drv
    finally:
        rt_device.forget_devices()
        rc.clear_caches()


@needs_cutile
def test_launch_simt_program_end_to_end(stand_in_gpu):
    """Argument analysis -> cuTile export -> compile_program (a stand-in that reads the real
    bytecode's entry for the parameter sizes) -> module load -> one launch on the cuTile grid."""
    drv = stand_in_gpu
    a, b, c = (Dev(0x100000 * (i + 1), (1000,), "<f4") for i in range(3))
    rc.launch(SimpleNamespace(cuda_stream=5), (4,), add, (a, b, c, 3.0, 256))
    rc.launch(0, (4, 1, 1), add, (a, b, Dev(0x900000, (900,), "<f4"), 1.0, 256), sync=True)
    rc.launch(0, (2,), add, (a, b, c, 1.0, 512))
    # the same function with other compiler options is another kernel
    rc.launch(0, (4,), ct.kernel(add._annotated_function.pyfunc, occupancy=2), (a, b, c, 3.0, 256))
    # one compile per signature (the second launch differs only in values), one module load each
    calls = drv.compiles
    assert [c[1:] for c in calls] == [("sm_90a", "persistent")] * 3 and len(drv.loaded) == 3
    assert "I256" in calls[0][0] and "I512" in calls[1][0]
    first = drv.launches[0]
    cfg = first["config"]
    assert (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ) == (4, 1, 1) and (cfg.blockDimX, cfg.blockDimY) == (128, 1)
    assert cfg.hStream == 5
    assert first["params"] == ([u64(0x100000)] + i32(1000, 1) + [u64(0x200000)] + i32(1000, 1) + [u64(0x300000)]
                               + i32(1000, 1) + [struct.pack("<f", 3.0)])
    assert drv.launches[1]["params"][6:8] == [u64(0x900000)] + i32(900)
    assert drv.launches[2]["config"].gridDimX == 2


@needs_cutile
def test_a_repeated_launch_reuses_the_bound_launch(stand_in_gpu):
    """The same kernel, grid and arguments again: no argument analysis, no packing, one driver
    launch with the same parameter bytes; another stream is taken, another value is a new bind."""
    drv = stand_in_gpu
    a, b, c = (Dev(0x100000 * (i + 1), (1000,), "<f4") for i in range(3))
    for stream in (5, 5, 7):
        rc.launch(stream, (4,), add, (a, b, c, 3.0, 256))
    rc.launch(7, (4,), add, (a, b, c, 2.0, 256))  # another value: bound anew
    assert len(drv.described) == 2 and len(drv.launches) == 4
    assert drv.launches[0]["params"] == drv.launches[1]["params"] == drv.launches[2]["params"]
    assert [x["stream"] for x in drv.launches] == [5, 5, 7, 7]
    assert drv.launches[3]["params"][-1] == struct.pack("<f", 2.0)
    cfg = drv.launches[1]["config"]
    assert (cfg.gridDimX, cfg.blockDimX, cfg.sharedMemBytes) == (4, 128, 0)


def _counted(monkeypatch, module, name, counts):
    """Replace ``module.name`` by a wrapper counting its calls in ``counts[name]``."""
    real = getattr(module, name)

    def counting(*args, **kwargs):
        counts[name] = counts.get(name, 0) + 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)


def _errors(calls) -> list[str]:
    out = []
    for call in calls:
        with pytest.raises((TypeError, ValueError)) as info:
            call()
        out.append(f"{type(info.value).__name__}: {info.value}")
    return out


@needs_cutile
def test_repeated_public_launches_re_derive_nothing(stand_in_gpu, monkeypatch):
    """``tileorch.cutile.launch`` is the launcher's own function; its repeated calls (two streams
    in turn) describe, sign, compile, configure and pack once, make one launch configuration per
    stream, and launch the same bytes; a call differing in an array's address re-points the
    bound launch (its stream configurations shared); wrong arguments after all this raise the
    errors a first call raises."""
    import importlib

    import tileorch
    from tileorch.launchers import cutile_bound as cb

    rt_launch = importlib.import_module("tileorch.runtime.launch")

    assert tileorch.cutile.launch is rc.launch
    drv = stand_in_gpu
    counts: dict[str, int] = {}
    for module, names in ((rc, ("describe_arguments", "kernel_signature", "signature_key", "compiled",
                                "pack_simt_arguments", "stream_handle", "learn")),
                          (rt_launch, ("pack_arguments", "_launch_config", "_prepare")),
                          (cb, ("_generate", "rebound"))):
        for name in names:
            _counted(monkeypatch, module, name, counts)
    launch = tileorch.cutile.launch
    a, b, c = (Dev(0x100000 * (i + 1), (1000,), "<f4") for i in range(3))
    wrong = [lambda: launch(5, (4,), add, (a, b, c, 3.0)), lambda: launch(5, (4,), add, (a, "b", c, 3.0, 256)),
             lambda: launch(5, (0,), add, (a, b, c, 3.0, 256)), lambda: launch(5, (4,), add, (a, b, c, 3.0, 256),
                                                                              schedule="nope"),
             lambda: launch(5, (4,), add, (a, b, c, 1 << 40, 256))]
    first_errors = _errors(wrong)
    rc.clear_caches()
    counts.clear()
    for i in range(40):
        launch(5 if i % 2 else 7, (4,), add, (a, b, c, 3.0, 256))
    once = dict(counts)
    moved = Dev(0x7000000, (1000,), "<f4")
    for i in range(4):
        launch(5 if i % 2 else 7, (4,), add, (a, b, moved, 3.0, 256))
    after_move = dict(counts)
    later_errors = _errors(wrong)
    assert {k: once.get(k) for k in ("describe_arguments", "compiled", "pack_simt_arguments", "pack_arguments",
                                     "_prepare", "learn", "stream_handle")} == dict.fromkeys(
        ("describe_arguments", "compiled", "pack_simt_arguments", "pack_arguments", "_prepare", "learn",
         "stream_handle"), 1)
    assert once["_launch_config"] == 2  # one per stream, made on its first launch
    assert once["kernel_signature"] == 1 and once["signature_key"] == 1 and once["_generate"] == 1
    assert once["rebound"] == 1  # asked on the first call's miss only: every repeated call was a plain hit
    # the re-pointed launch: no description, compile or packing, and no launch bound for it (the hot launcher
    # writes the pointers into a parameter buffer: no rebound); the two streams' configurations shared
    assert after_move == once
    assert len(drv.launches) == 44 and [x["stream"] for x in drv.launches] == [7, 5] * 22
    assert all(x["params"] == drv.launches[0]["params"] for x in drv.launches[:40])
    # c's pointer is the 7th parameter (a and b: pointer, shape, stride each)
    assert drv.launches[40]["params"] == drv.launches[0]["params"][:6] + [u64(0x7000000)] + \
        drv.launches[0]["params"][7:]
    assert all(x["params"] == drv.launches[40]["params"] for x in drv.launches[40:])
    assert later_errors == first_errors
    assert first_errors[0].startswith("TypeError: kernel 'add' takes 5 arguments")
    assert "argument 1 ('b')" in first_errors[1] and "grid extents must be positive" in first_errors[2]
    assert "schedule must be one of" in first_errors[3] and "does not fit in int32" in first_errors[4]


# --------------------------------------------------------------------------- GEMM operands


def test_convert_to_cutlass_records_gemm_operand_arguments():
    from tileorch.transforms.tileas.convert_to_cutlass import CONFIG_ATTR, gemm_operands
    from tileorch.transforms.tileas.nv_tileas_to_cutlass import lower_tile_program

    text = EXAMPLE.read_text()
    head = "@tile_gemm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32"
    assert head in text
    for signature, expected in ((head, (0, 1, 2)),
                                ("@tile_gemm(%m: i32, %c: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, "
                                 "%a: !nv_tileaa.ptr<f16>", (3, 2, 1))):
        cfg, module = lower_tile_program(text.replace(head, signature), schedule="dp")
        fn = next(op for op in module.walk() if CONFIG_ATTR in op.attributes)
        assert gemm_operands(fn) == expected
        assert cfg.tile_n == 256 and cfg.cluster_m == 2 and cfg.schedule == "dp"


@needs_cutile
def test_gemm_operands_map_entry_parameters_to_arguments():
    from tileorch.kernels.gemm.config import GemmConfig

    @ct.kernel
    def g(tm: ct.Constant[int], A, scale, B, C):
        pass

    A, B, C = Dev(0x1000, (256, 128)), Dev(0x2000, (128, 64)), Dev(0x3000, (256, 64))
    args = rc.describe_arguments(g, (128, A, 1.0, B, C))
    # entry parameters: A ptr 0 (+4 shape/stride), scale 5, B ptr 6 (+4), C ptr 11
    prog = SimpleNamespace(gemm_args=(0, 6, 11), gemm_config=GemmConfig(dtype="f16", out_dtype="f16", b_major="n"))
    a, b, c, m, n, k = rc.gemm_problem(prog, args)
    assert (a.position, b.position, c.position, m, n, k) == (1, 3, 4, 256, 64, 128)
    with pytest.raises(RuntimeError, match="GEMM operand B at entry parameter 5"):
        rc.gemm_operands(SimpleNamespace(gemm_args=(0, 5, 11)), args)
    transposed = rc.describe_arguments(g, (128, A, 1.0, Dev(0x2000, (128, 64), strides=(2, 256)), C))
    assert rc.b_major(rc.gemm_problem(prog, transposed)[1]) == "k"  # a B^T view: K-major B
    assert rc.b_major(rc.gemm_problem(prog, args)[1]) == "n"
    bad = rc.describe_arguments(g, (128, A, 1.0, Dev(0x2000, (128, 64), strides=(4, 512)), C))
    with pytest.raises(rc.LayoutNotSupported, match=r"argument 3 \('B'\): the WGMMA GEMM needs"):
        rc.gemm_problem(prog, bad)
    one_row = rc.describe_arguments(g, (128, Dev(0x1000, (1, 128)), 1.0, B, Dev(0x3000, (1, 64), strides=(256, 4))))
    with pytest.raises(ValueError, match=r"argument 4 \('C'\): the WGMMA GEMM needs"):
        rc.gemm_problem(prog, one_row)
    one_row = rc.describe_arguments(g, (128, Dev(0x1000, (1, 128), strides=(4000, 2)), 1.0, B, Dev(0x3000, (1, 64))))
    assert rc.gemm_problem(prog, one_row)[3:] == (1, 64, 128)
    f32 = rc.describe_arguments(g, (128, A, 1.0, B, Dev(0x3000, (256, 64), "<f4")))
    with pytest.raises(TypeError, match=r"argument 4 \('C'\) has dtype float32"):
        rc.gemm_problem(prog, f32)


# --------------------------------------------------------------------------- with the real compiler


if HAVE_CUTILE:
    @ct.kernel
    def mm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
        bm, bn = ct.bid(0), ct.bid(1)
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def _compile(data: bytes, name: str):
    """The launcher's call of compile_program (without ptxas where there is none)."""
    return rc._compile_program(data, name, "sm_90a", "persistent")


@needs_cutile
@pytest.mark.parametrize("ptxas", [True, False])
def test_compiled_simt_entry_takes_the_packed_parameters(ptxas, monkeypatch):
    """The PTX entry compile_program produces for a SIMT program has exactly the parameters
    :func:`pack_simt_arguments` fills (sizes, in order); without ptxas the PTX stays."""
    import re

    import tileorch.backend.ptxas as backend_ptxas

    monkeypatch.setenv("TILEORCH_CACHE", "0")  # a cached cubin would stand in for ptxas
    if not ptxas:  # a TILEORCH_PTXAS naming no file: the PTX, the driver JIT-compiles it (a warning says so)
        monkeypatch.setenv(backend_ptxas.PTXAS_ENV, "/nonexistent/ptxas")

    args = rc.describe_arguments(add, tuple(Dev(0x10000 * (i + 1), (1000,), "<f4") for i in range(3)) + (2.0, 256))
    program = _compile(rc.export_bytecode(add, args), "add")
    assert program.kind == "simt" and program.threads > 0
    if not ptxas:
        assert program.cubin is None
        assert [r for r in program.remarks if r.startswith("warning:")] == [
            "warning: TILEORCH_PTXAS=/nonexistent/ptxas is not an executable file: the CUDA driver JIT-compiles the "
            "PTX when the program is loaded (its errors and register use are not checked before), in every new "
            "process (a program without a cubin is not kept in the on-disk cache)"]
    else:
        assert not [r for r in program.remarks if "JIT" in r]
    m = re.search(r"\.entry\s+" + re.escape(program.kernel) + r"\s*\((.*?)\)", program.ptx, re.S)
    assert m, f"no .entry {program.kernel} in the PTX"
    kinds = re.findall(r"\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]+\d+)", m.group(1))
    assert [int(re.sub(r"\D", "", k)) // 8 for k in kinds] == [len(p) for p in rc.pack_simt_arguments(args)]


@needs_cutile
def test_compiled_gemm_reports_its_operands():
    """compile_program on cuTile's GEMM: a gemm program whose gemm_args pick A, B and C."""
    A, B, C = Dev(0x1000, (512, 256)), Dev(0x100000, (256, 384)), Dev(0x200000, (512, 384))
    args = rc.describe_arguments(mm, (A, B, C, 128, 128, 64))
    program = _compile(rc.export_bytecode(mm, args), "mm")
    assert program.kind == "gemm" and program.kernel == program.gemm_config.name
    a, b, c, m, n, k = rc.gemm_problem(program, args)
    assert (a.name, b.name, c.name, m, n, k) == ("A", "B", "C", 512, 384, 256)
    assert (program.gemm_config.tile_m, program.gemm_config.tile_n, program.gemm_config.tile_k) == (128, 128, 64)


@needs_cutile
def test_a_slower_path_is_a_performance_warning_once():
    """A dot program the tier refused (its remark) or whose operands sent it to the SIMT path is
    reported to the launcher's caller as one PerformanceWarning per compiled program."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning

    class Program:
        remarks = ["k.py:3:4: warning: convert-nv-tileas-to-cutlass: ... [the tensor-core path refused this kernel: "
                   "the SIMT path compiles it, slowly]", "remark: ptxas: k: 40 registers, 0 spills, 0 B stack"]

    entry = rc._Compiled(Program())
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        rc._warn_slow_path(entry, rows, "A: strided [the SIMT path runs it]")
        rc._warn_slow_path(entry, rows)
    assert len(got) == 1 and issubclass(got[0].category, PerformanceWarning)
    text = str(got[0].message)
    assert "refused this kernel" in text and "A: strided" in text and "40 registers" not in text

    class Quiet:
        remarks = ["remark: ptxas: k: 40 registers, 0 spills, 0 B stack"]

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        rc._warn_slow_path(rc._Compiled(Quiet()), rows)
    assert got == []


# --------------------------------------------------------------------------- bound launches are reused only for equal calls


@needs_cutile
def test_a_bound_launch_is_reused_only_for_the_same_arrays_and_grid(stand_in_gpu):
    """After a launch of ``rows``, a call that changes one fact the kernel variant, the grid or
    the parameter bytes depend on (dtype, strides class, alignment, rank, shape, grid) takes the
    full path: it is described again, compiled again where the signature differs, and launched
    with its own bytes (or fails as it would have the first time); the same call again is not."""
    drv = stand_in_gpu
    out = Dev(0x20000, (4, 6))

    def run(x, grid=(4,)):
        rc.launch(0, grid, rows, (8, x, out, 1.0))
        return drv.launches[-1]

    base = Dev(0x10000, (4, 6))  # float16, row-major
    first = run(base)
    assert run(Dev(0x10000, (4, 6))) == first and len(drv.described) == 1 and len(drv.compiles) == 1
    assert run(Dev(0x10000, (4, 6), "<f4"))["fn"] == "k1"  # dtype
    assert run(Dev(0x10000, (4, 6), strides=(2, 8)))["fn"] == "k2"  # column-major: another kernel variant
    assert run(Dev(0x10002, (4, 6)))["fn"] == "k3"  # 2-byte aligned: another kernel variant
    with pytest.raises(Exception, match="does not match the array rank 3"):  # rank: the program's load rejects it
        run(Dev(0x10000, (2, 4, 6)))
    narrow = run(Dev(0x10000, (4, 5)))  # shape: the same program, other bytes
    assert narrow["fn"] == "k0" and narrow["params"][:5] == [u64(0x10000)] + i32(4, 5, 5, 1)
    half = run(base, grid=(2,))
    assert half["fn"] == "k0" and half["config"].gridDimX == 2 and first["config"].gridDimX == 4
    assert len(drv.described) == 7 and len(drv.compiles) == 4
    assert run(base) == first and run(base, grid=(2,)) == half and len(drv.described) == 7


@needs_cutile
def test_a_call_with_arrays_at_other_addresses_re_points_the_bound_launch(stand_in_gpu):
    """Arrays at other addresses of the same alignment, apart as before: the bound launch with
    the pointer parameters replaced (no argument analysis, no compile, every other byte and the
    configuration as bound); arrays that come to overlap take the full path (another alias
    group: another kernel)."""
    drv = stand_in_gpu

    def run(x, out, stream=0):
        rc.launch(stream, (4,), rows, (8, x, out, 1.0))
        return drv.launches[-1]

    first = run(Dev(0x10000, (4, 6)), Dev(0x20000, (4, 6)))
    moved = run(Dev(0x50000, (4, 6)), Dev(0x60010, (4, 6)), stream=7)
    assert len(drv.described) == 1 and len(drv.compiles) == 1 and moved["fn"] == first["fn"]
    assert moved["params"] == [u64(0x50000)] + first["params"][1:5] + [u64(0x60010)] + first["params"][6:]
    assert moved["config"] is not first["config"] and moved["config"].hStream == 7
    assert (moved["config"].gridDimX, moved["config"].blockDimX) == (first["config"].gridDimX, first["config"].blockDimX)
    assert run(Dev(0x10000, (4, 6)), Dev(0x20000, (4, 6)))["params"] == first["params"]  # the first binding
    assert first["config"].hStream == 0
    run(Dev(0x70000, (4, 6)), Dev(0x60010, (4, 6)))
    assert len(drv.described) == 1
    in_place = run(Dev(0x80000, (4, 6)), Dev(0x80000, (4, 6)))  # out is x: an alias group
    assert len(drv.described) == 2 and len(drv.compiles) == 2 and in_place["fn"] == "k1"
    run(Dev(0x90000, (4, 6)), Dev(0x90000, (4, 6)))  # in place again, elsewhere: re-pointed
    assert len(drv.described) == 2 and drv.launches[-1]["params"][0] == u64(0x90000)
    run(Dev(0x90008, (4, 6)), Dev(0xA0000, (4, 6)))  # 8-byte aligned: another kernel variant
    assert len(drv.described) == 3


@needs_cutile
def test_a_bound_launch_is_not_reused_for_a_tensor_on_another_device(stand_in_gpu, monkeypatch):
    """A tensor with the same pointer, shape, strides and dtype on another device is not the
    bound one: on the CPU or on another GPU (kernels run on device 0) it is refused as on a first
    call."""
    drv = stand_in_gpu
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(Tensor=FakeTensor, __name__="torch"))
    out = FakeTensor("torch.float16", (4, 6), (6, 1), 0x20000)
    x = FakeTensor("torch.float16", (4, 6), (6, 1), 0x10000)
    rc.launch(0, (4,), rows, (8, x, out, 1.0))
    rc.launch(0, (4,), rows, (8, FakeTensor("torch.float16", (4, 6), (6, 1), 0x10000), out, 1.0))
    assert len(drv.launches) == 2 and len(drv.described) == 1
    with pytest.raises(TypeError, match=r"argument 1 \('x'\) is a torch tensor on cpu"):
        rc.launch(0, (4,), rows, (8, FakeTensor("torch.float16", (4, 6), (6, 1), 0x10000, "cpu"), out, 1.0))
    with pytest.raises(ValueError, match=r"argument 1 \('x'\) is on cuda:1; tileorch.cutile.launch runs kernels on "
                                         r"device 0"):
        rc.launch(0, (4,), rows, (8, FakeTensor("torch.float16", (4, 6), (6, 1), 0x10000, "cuda:1"), out, 1.0))
    assert len(drv.launches) == 2 and len(drv.described) == 3


def test_compile_switch_between_launches_compiles_again(monkeypatch):
    """A compile switch (``tileorch.cache.COMPILE_ENV``) set between two ``compiled`` calls in one
    process gives a new compile, not the program compiled with it unset (the in-process key holds
    the switches as the disk cache's does)."""
    from tileorch.launchers import cutile as rc

    calls = []

    def fake_compile(data, name, arch, schedule, config, resume=None):
        calls.append(os.environ.get("TILEORCH_MATH"))
        return SimpleNamespace(kind="simt")

    monkeypatch.setattr(rc, "_compile_program", fake_compile)
    monkeypatch.setattr(rc, "export_bytecode", lambda kernel, arguments: b"bytecode")
    monkeypatch.setattr(rc, "signature_key", lambda arguments: ("sig",))
    monkeypatch.setattr(rc, "_Compiled", lambda program, **_: program)
    monkeypatch.setattr(rc, "kernel_name", lambda kernel: "k")
    monkeypatch.delenv("TILEORCH_MATH", raising=False)
    rc.clear_caches()
    kernel = object()
    first = rc.compiled(kernel, [], "sm_90a", "auto")
    assert rc.compiled(kernel, [], "sm_90a", "auto") is first and calls == [None]
    monkeypatch.setenv("TILEORCH_MATH", "approx")
    assert rc.compiled(kernel, [], "sm_90a", "auto") is not first and calls == [None, "approx"]
    rc.clear_caches()


def test_a_deferred_ask_of_a_program_compiled_in_full_is_the_entry_a_plain_ask_gets(monkeypatch):
    """``cutile.launch`` asks with ``defer_gemm``; a program that is not a GEMM is compiled in full
    by that ask, and a later plain ``compiled`` (the GPU tests read the launch's remarks that way)
    gets the same entry, not a second compile; a deferred GEMM does not stand for its full compile."""
    from tileorch.launchers import cutile as rc

    calls = []

    def fake_compile(data, name, arch, schedule, config, resume=None):
        calls.append(config)
        return SimpleNamespace(kind="gemm" if os.environ.get("FAKE_GEMM") else "simt",
                               deferred=bool(os.environ.get("FAKE_GEMM")) and config.endswith(rc.LOWERED_ONLY))

    monkeypatch.setattr(rc, "_compile_program", fake_compile)
    monkeypatch.setattr(rc, "export_bytecode", lambda kernel, arguments: b"bytecode")
    monkeypatch.setattr(rc, "signature_key", lambda arguments: ("sig",))
    monkeypatch.setattr(rc, "_Compiled", lambda program, **_: program)
    monkeypatch.setattr(rc, "kernel_name", lambda kernel: "k")
    monkeypatch.setattr(rc, "source_cache_key", lambda *a: (None, "no source key"))
    monkeypatch.delenv("FAKE_GEMM", raising=False)
    rc.clear_caches()
    kernel = object()
    deferred = rc.compiled(kernel, [], "sm_90a", "persistent", defer_gemm=True)
    assert rc.compiled(kernel, [], "sm_90a", "persistent") is deferred and len(calls) == 1
    monkeypatch.setenv("FAKE_GEMM", "1")
    rc.clear_caches()
    gemm = rc.compiled(kernel, [], "sm_90a", "persistent", defer_gemm=True)
    assert gemm.deferred and rc.compiled(kernel, [], "sm_90a", "persistent") is not gemm and len(calls) == 3
    rc.clear_caches()


@needs_cutile
@pytest.mark.parametrize("bound, bad", [
    ((1,), (True,)), ((1,), (np.int64(1),)), ((1, 1), (1, True)), ((2, 1), (np.int32(2), 1)), (1, True),
    (1, np.int64(1)), ((1,), np.int64(1)),
])
def test_a_grid_of_bools_or_numpy_integers_is_refused_after_a_bound_launch_of_ints(stand_in_gpu, bound, bad):
    """``True == 1`` and ``np.int64(1) == 1`` (equal hashes too): a call with such a grid must not
    find the launch bound for the ints; it takes the full path, which refuses it as on a first
    call (``cuda.tile.launch`` refuses numpy integers as well)."""
    drv = stand_in_gpu
    a = Dev(0x100000, (1000,), "<f4")
    args = (a, a, a, 3.0, 256)
    for _ in range(3):  # bound, then the kernel's hot launcher's last call
        rc.launch(0, bound, add, args)
    assert len(drv.described) == 1 and len(drv.launches) == 3
    with pytest.raises(TypeError, match="grid must be a tuple of 1 to 3 ints"):
        rc.launch(0, bad, add, args)
    assert len(drv.launches) == 3
    rc.launch(0, bound, add, args)  # the bound launch is still there
    assert len(drv.described) == 1 and len(drv.launches) == 4


@needs_cutile
def test_the_ctypes_path_launches_what_the_cuda_python_path_launches(stand_in_gpu, monkeypatch):
    """First, repeated, other-stream and re-pointed calls of ``tileorch.cutile.launch`` through
    ctypes (tileorch.runtime.direct_launch against a stand-in libcuda of C function pointers) pass
    the driver the grid, block, shared memory, stream and parameter bytes the cuda-python path
    passes."""
    from fake_libcuda import FakeLibcuda, cuda_python_launch, handle

    from tileorch.launchers import cutile_bound as cb
    from tileorch.runtime import direct_launch

    drv = stand_in_gpu
    monkeypatch.setattr(drv, "cuModuleGetFunction", lambda mod, name: (0, handle(name.decode())))

    def calls():
        for stream, x, out, grid in ((5, 0x10000, 0x20000, (4,)), (5, 0x10000, 0x20000, (4,)),
                                     (7, 0x10000, 0x20000, (4,)), (7, 0x50000, 0x60010, (4,)),
                                     (0, 0x50000, 0x60010, (2, 1)), (0, 0x50000, 0x60010, (2, 1))):
            rc.launch(stream, grid, rows, (8, Dev(x, (4, 6)), Dev(out, (4, 6)), 1.5))

    monkeypatch.setenv(direct_launch.ENV, "0")
    calls()
    expected = [cuda_python_launch(x["config"], x["fn"], x["params"]) for x in drv.launches]
    assert {launch.path for launch in cb.bound_launches.values()} == {"cuda-python"}
    assert len(drv.described) == 2  # the first call and the other grid; the rest bound or re-pointed
    rc.clear_caches()
    drv.compiles.clear()  # the compile stand-in names the kernels k0, k1, ... again
    monkeypatch.setenv(direct_launch.ENV, "1")
    fake = FakeLibcuda(lambda name: drv.params[name])
    with direct_launch.use_library(fake):
        calls()
    assert {launch.path for launch in cb.bound_launches.values()} == {"ctypes"}
    assert len(drv.described) == 4 and len(fake.launches) == 6 and fake.launches == expected
    assert [x["stream"] for x in fake.launches] == [5, 5, 7, 7, 0, 0]
    assert fake.launches[3]["params"][0] == u64(0x50000) and fake.launches[4]["grid"] == (2, 1, 1)


@needs_cutile
def test_the_native_switch_without_cutiles_launcher_keeps_tileorchs_path(stand_in_gpu, monkeypatch):
    """TILEORCH_CUTILE_NATIVE=1 where cuTile's launcher cannot run (no libcuda here): the kernel is
    refused once, with the reason, and every call takes tileorch's own path (bound after the first)."""
    from tileorch.launchers import cutile_native

    drv = stand_in_gpu
    monkeypatch.setattr(cutile_native, "available", lambda: "cuTile's launcher cannot load libcuda (stand-in)")
    cutile_native.set_enabled(True)
    try:
        a = Dev(0x100000, (1000,), "<f4")
        for _ in range(3):
            rc.launch(0, (4,), add, (a, a, a, 3.0, 256))
        assert cutile_native.refused[add] == "cuTile's launcher cannot load libcuda (stand-in)"
        assert cutile_native.routes[add] is None
        assert len(drv.launches) == 3 and len(drv.described) == 1
    finally:
        cutile_native.set_enabled(False)


def test_the_native_switch_refused_says_so_once(stand_in_gpu, monkeypatch):
    """A kernel taken off the route TILEORCH_CUTILE_NATIVE=1 asks for is reported once, with the reason,
    as a PerformanceWarning (never silently on another launcher)."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning
    from tileorch.launchers import cutile_native

    monkeypatch.setattr(cutile_native, "available", lambda: "cuTile's launcher cannot load libcuda (stand-in)")
    cutile_native.refused.pop(add, None)
    cutile_native.routes.pop(add, None)
    cutile_native.set_enabled(True)
    try:
        a = Dev(0x100000, (1000,), "<f4")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                rc.launch(0, (4,), add, (a, a, a, 3.0, 256))
        said = [str(w.message) for w in caught if issubclass(w.category, PerformanceWarning)
                and "TILEORCH_CUTILE_NATIVE=1 not applied" in str(w.message)]
        assert len(said) == 1 and "cannot load libcuda (stand-in)" in said[0], said
    finally:
        cutile_native.set_enabled(False)


@needs_cutile
def test_re_pointed_launches_use_each_call_s_pointers_and_re_derive_on_other_facts(stand_in_gpu):
    """New arrays of the bound layout each call (PyTorch's usual pattern): each launch carries that
    call's pointers (read by the driver at the call), nothing is described or bound again; a
    change of shape, dtype or stride misses the re-pointing (described again); arrays that come to
    overlap take another kernel variant, through the full path on every call."""
    drv = stand_in_gpu
    out = Dev(0x20000, (4, 6))
    rc.launch(0, (4,), rows, (8, Dev(0x10000, (4, 6)), out, 1.0))
    first = drv.launches[-1]
    for i in range(1, 6):
        rc.launch(0, (4,), rows, (8, Dev(0x10000 + i * 0x1000, (4, 6)), Dev(0x40000 + i * 0x1000, (4, 6)), 1.0))
        assert drv.launches[-1]["params"] == [u64(0x10000 + i * 0x1000)] + first["params"][1:5] + \
            [u64(0x40000 + i * 0x1000)] + first["params"][6:], i
    assert len(drv.described) == 1 and len(drv.compiles) == 1 and len(__import__("tileorch.launchers.cutile_bound", fromlist=["x"]).bound_launches) == 1
    rc.launch(0, (4,), rows, (8, Dev(0x10000, (4, 6)), out, 1.0))  # the bound call again: its own bytes
    assert drv.launches[-1]["params"] == first["params"]
    for change, described in ((Dev(0x31000, (4, 5)), 2), (Dev(0x32000, (4, 6), "<f4"), 3),
                              (Dev(0x33000, (4, 6), strides=(2, 8)), 4)):
        rc.launch(0, (4,), rows, (8, change, Dev(0x50000, (4, 6)), 1.0))
        assert len(drv.described) == described, change
    for x, o in ((0xA0000, 0xA0030), (0xB0030, 0xB0000)):  # 48-byte arrays side by side: apart, re-pointed
        rc.launch(0, (4,), rows, (8, Dev(x, (4, 6)), Dev(o, (4, 6)), 1.0))
        assert len(drv.described) == 4 and drv.launches[-1]["params"][0] == u64(x)
    # 16 bytes short of apart: overlapping at different addresses, an aliasing variant, and never re-pointed
    # (session 39's review: a kept layout would carry a later shifted call past the full path's checks)
    for k, (x, o) in enumerate(((0xC0000, 0xC0020), (0xD0020, 0xD0000))):
        rc.launch(0, (4,), rows, (8, Dev(x, (4, 6)), Dev(o, (4, 6)), 1.0))
        assert drv.launches[-1]["fn"] != first["fn"] and drv.launches[-1]["params"][0] == u64(x)
        assert len(drv.described) == 5 + k


@needs_cutile
def test_a_null_pointer_never_takes_a_re_pointed_launch(stand_in_gpu):
    """A null pointer of a non-empty array counts as 16-byte aligned, so it matched a bound layout: the
    re-pointed fast path (and ``rebound``) launched it where the full path refuses it (review, session
    32).  Now it is refused on every route, the first call and after the layout is bound and hot."""
    drv = stand_in_gpu
    rc.launch(0, (4,), rows, (8, Dev(0x10000, (4, 6)), Dev(0x20000, (4, 6)), 1.0))
    rc.launch(0, (4,), rows, (8, Dev(0x11000, (4, 6)), Dev(0x21000, (4, 6)), 1.0))  # re-pointed once: hot
    launched = len(drv.launches)
    for x, o in ((0, 0x22000), (0x12000, 0)):
        with pytest.raises(ValueError, match="null pointer"):
            rc.launch(0, (4,), rows, (8, Dev(x, (4, 6)), Dev(o, (4, 6)), 1.0))
    assert len(drv.launches) == launched


@needs_cutile
def test_a_hot_launch_checks_the_device_of_each_new_torch_stream(stand_in_gpu):
    """The generated hot launcher read a torch stream's handle directly once the stream's type was known,
    so a torch stream of cuda:1 reached the driver after the first launch (review, session 32); each new
    stream object is now read by ``stream_handle`` (its device checked), the same object again is not."""
    from tileorch.launchers import cutile_bound as cb

    class FakeTorchStream:
        def __init__(self, device_index, handle):
            self.device_index, self.cuda_stream = device_index, handle

    drv = stand_in_gpu
    cb._TORCH_STREAM_TYPES.add(FakeTorchStream)
    try:
        s0 = FakeTorchStream(0, 0x55)
        args = (8, Dev(0x10000, (4, 6)), Dev(0x20000, (4, 6)), 1.0)
        for _ in range(3):  # bound, then hot
            rc.launch(s0, (4,), rows, args)
        launched = len(drv.launches)
        with pytest.raises(ValueError, match="is on cuda:1"):
            rc.launch(FakeTorchStream(1, 0x66), (4,), rows, args)
        assert len(drv.launches) == launched
        rc.launch(FakeTorchStream(0, 0x77), (4,), rows, args)
        assert len(drv.launches) == launched + 1
    finally:
        cb._TORCH_STREAM_TYPES.discard(FakeTorchStream)


@needs_cutile
def test_the_generic_hot_path_checks_the_device_of_each_new_stream(stand_in_gpu, monkeypatch):
    """A kernel without a generated hot launcher takes ``generic_hot``, which read a known torch stream
    type's handle directly: a torch stream of cuda:1 reached the driver on a bound call (session 32's
    note).  Now each new stream object is read by ``stream_handle`` (its device checked); so are cupy's
    (``device_id``) and cuda.core's (``device.device_id``) streams."""
    from tileorch.launchers import cutile_bound as cb

    class FakeTorchStream:
        def __init__(self, device_index, handle):
            self.device_index, self.cuda_stream = device_index, handle

    class FakeCupyStream:
        def __init__(self, device_id, handle):
            self.device_id, self.ptr = device_id, handle

    class FakeCoreStream:
        def __init__(self, device_id, handle):
            self.device = type("Device", (), {"device_id": device_id})()
            self.handle = handle

    drv = stand_in_gpu
    monkeypatch.setattr(cb, "learn", lambda kernel, args: None)  # no generated hot launcher: generic_hot
    monkeypatch.setattr(rc, "learn", lambda kernel, args: None)
    cb._TORCH_STREAM_TYPES.add(FakeTorchStream)
    try:
        s0 = FakeTorchStream(0, 0x55)
        args = (8, Dev(0x10000, (4, 6)), Dev(0x20000, (4, 6)), 1.0)
        for _ in range(3):  # bound, then hot
            rc.launch(s0, (4,), rows, args)
        assert rows not in cb.hot_launchers
        launched = len(drv.launches)
        for other in (FakeTorchStream(1, 0x66), FakeCupyStream(1, 0x67), FakeCoreStream(2, 0x68)):
            with pytest.raises(ValueError, match="is on cuda:[12]"):
                rc.launch(other, (4,), rows, args)
        assert len(drv.launches) == launched
        for ok in (FakeTorchStream(0, 0x77), FakeCupyStream(0, 0x78), FakeCoreStream(0, 0x79), s0):
            rc.launch(ok, (4,), rows, args)
        assert len(drv.launches) == launched + 4
    finally:
        cb._TORCH_STREAM_TYPES.discard(FakeTorchStream)


@needs_cutile
def test_threads_re_pointing_one_kernel_never_mix_pointers(stand_in_gpu, monkeypatch):
    """Two threads launch the same kernel with their own new arrays (each on its own stream) while
    the driver yields the GIL inside the launch: every recorded launch has its thread's pointers."""
    import threading
    import time

    drv = stand_in_gpu
    real = drv.cuLaunchKernelEx

    def slow(config, fn, params, extra):  # another thread runs between the pointers' write and their read
        time.sleep(0)
        return real(config, fn, params, extra)

    monkeypatch.setattr(drv, "cuLaunchKernelEx", slow)
    rc.launch(0, (4,), rows, (8, Dev(0x10000, (4, 6)), Dev(0x20000, (4, 6)), 1.0))
    errors = []

    def worker(stream: int, base: int) -> None:
        try:
            for i in range(300):
                x = base + (i % 50) * 0x1000
                rc.launch(stream, (4,), rows, (8, Dev(x, (4, 6)), Dev(x + 0x800000, (4, 6)), 1.0))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(s, b)) for s, b in ((5, 0x1000000), (7, 0x4000000))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors
    launches = drv.launches[1:]
    assert len(launches) == 600 and len(drv.described) == 1
    for record in launches:
        x = int.from_bytes(record["params"][0], "little")
        low = {5: 0x1000000, 7: 0x4000000}[record["stream"]]
        assert low <= x < low + 50 * 0x1000 and record["params"][5] == u64(x + 0x800000), record["stream"]
