"""``tileorch.gemm``'s repeated calls (:mod:`tileorch.launchers.gemm`): a call with the shapes,
strides, dtypes and devices of an earlier one reuses its problem, and with the same pointers its
bound launch (tensor maps and parameters encoded once); a changed pointer encodes the tensor maps
for the new address, a changed shape, dtype or device resolves the problem again, and arguments
the kernel cannot take are refused as on a first call, never launched with an older binding.

No GPU, no torch: a stand-in ``torch`` (tensors that report their facts), a stand-in driver
that records each launch's parameter bytes, and ``encode_tensor_map`` replaced by a recorder
whose map bytes start with the encoded address."""

from __future__ import annotations

import ctypes
import struct
import sys
from types import SimpleNamespace

import pytest

from tileorch.launchers import gemm as gapi
from tileorch.launchers import gemm_host


class Dtype:
    def __init__(self, name: str, size: int):
        self.name, self.itemsize = name, size

    def __str__(self) -> str:
        return f"torch.{self.name}"


F16, BF16, F32, U8 = Dtype("float16", 2), Dtype("bfloat16", 2), Dtype("float32", 4), Dtype("uint8", 1)


class Device:
    def __init__(self, kind: str = "cuda", index: int | None = 0):
        self.type, self.index = kind, index

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        return f"{self.type}:{self.index}"


CUDA0 = Device()
_next_ptr = [0x7F00_0000_0000]


class Tensor:
    """What tileorch.gemm reads of a torch tensor."""

    def __init__(self, shape, dtype=F16, strides=None, ptr=None, device=CUDA0):
        self.shape, self.dtype, self.device = tuple(shape), dtype, device
        self._strides = strides or (shape[1], 1)
        if ptr is None:
            ptr = _next_ptr[0]
            _next_ptr[0] += 1 << 24
        self._ptr = ptr

    is_cuda = property(lambda self: self.device.type == "cuda")

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def data_ptr(self):
        return self._ptr

    def dim(self):
        return len(self.shape)


class Driver:
    """The driver calls a GEMM kernel's load, binding and launches make."""

    CUstream = staticmethod(lambda v: v)
    CUlaunchConfig = staticmethod(lambda: SimpleNamespace(attrs=[], numAttrs=0, hStream=None))
    CUlaunchAttribute = staticmethod(lambda: SimpleNamespace(id=None, value=SimpleNamespace(
        clusterDim=SimpleNamespace(x=0, y=0, z=0))))
    CUlaunchAttributeID = SimpleNamespace(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION=4)
    CUfunction_attribute = SimpleNamespace(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=8,
                                           CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED=9)
    CUdevice_attribute = SimpleNamespace(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=75,
                                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=76,
                                         CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT=16)

    def __init__(self):
        self.launches: list[dict] = []
        self.loads = 0

    def cuDeviceGet(self, i):
        return 0, i

    def cuDevicePrimaryCtxRetain(self, dev):
        return 0, "ctx"

    def cuCtxSetCurrent(self, ctx):
        return (0,)

    def cuDeviceGetName(self, n, dev):
        return 0, b"stand-in H100\0"

    def cuDeviceGetAttribute(self, attr, dev):
        return 0, {75: 9, 76: 0, 16: 132}[attr]

    def cuDriverGetVersion(self):
        return 0, 13000

    def cuModuleLoadData(self, data):
        self.loads += 1
        return 0, "module"

    def cuModuleGetFunction(self, module, name):
        return 0, name.decode()

    def cuFuncGetParamInfo(self, fn, i):
        return (1, 0, 0)  # no parameter sizes: the launcher packs the GEMM's own layout

    def cuFuncSetAttribute(self, fn, attr, value):
        return (0,)

    def cuMemsetD8Async(self, ptr, value, n, stream):
        return (0,)

    def cuLaunchKernelEx(self, config, fn, params, extra):
        ptrs = (ctypes.c_void_p * 7).from_address(params)  # A, B, C maps, C, M, N, K
        sizes = (128, 128, 128, 8, 4, 4, 4)
        self.launches.append({"fn": fn, "stream": config.hStream, "grid": config.gridDimX,
                              "params": [ctypes.string_at(p, s) for p, s in zip(ptrs, sizes)]})
        return (0,)


@pytest.fixture
def stand_in(monkeypatch):
    """tileorch.gemm against the stand-ins; yields (driver, encoded tensor maps, configurations
    whose kernel was loaded, the current stream holder)."""
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    stream = [0x51]
    torch = SimpleNamespace(
        __name__="torch", Tensor=Tensor, float16=F16, bfloat16=BF16, float32=F32, uint8=U8,
        empty=lambda shape, dtype=F16, device=CUDA0: Tensor(shape if isinstance(shape, tuple) else (shape, 1),
                                                             dtype, device=device),
        cuda=SimpleNamespace(get_device_capability=lambda device=None: (9, 0),
                             get_device_properties=lambda device=None: SimpleNamespace(multi_processor_count=132)),
        _C=SimpleNamespace(_cuda_getCurrentRawStream=lambda index: stream[0]))
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(gapi, "_TORCH", torch)
    encoded: list[tuple] = []

    def encode(ptr, dtype, dims, row_bytes, box, swizzle=128):
        encoded.append((ptr, dtype, tuple(dims), tuple(row_bytes)))
        return struct.pack("<Q", ptr) + bytes(120)

    monkeypatch.setattr(gemm_host, "encode_tensor_map", encode)
    loaded: list = []

    def kernel_for(cfg):
        if cfg not in gapi._kernels:
            loaded.append(cfg)
            kernel = gemm_host.GemmKernel(cfg, b"\x7fELF stand-in cubin")
            kernel._mac = 66  # cuOccupancyMaxActiveClusters's answer
            gapi._kernels[cfg] = kernel
        return gapi._kernels[cfg]

    monkeypatch.setattr(gapi, "kernel_for", kernel_for)
    gapi.clear_caches()
    rt_device.forget_devices()
    drv = Driver()
    try:
        with use_api(drv):
            yield drv, encoded, loaded, stream
    finally:
        gapi.clear_caches()
        rt_device.forget_devices()


def maps_of(launch) -> tuple[int, int, int]:
    """The addresses the launch's A, B and C tensor maps were encoded for."""
    return tuple(struct.unpack_from("<Q", launch["params"][i])[0] for i in range(3))


def test_a_repeated_call_launches_the_bound_problem_again(stand_in):
    drv, encoded, loaded, _ = stand_in
    a, b, c = Tensor((256, 512)), Tensor((512, 384)), Tensor((256, 384))
    for _ in range(3):
        assert gapi.gemm(a, b, c) is c
    assert len(loaded) == 1 and len(encoded) == 3 and len(drv.launches) == 3
    assert drv.launches[0] == drv.launches[1] == drv.launches[2]
    assert maps_of(drv.launches[0]) == (a.data_ptr(), b.data_ptr(), c.data_ptr())
    assert drv.launches[0]["params"][3:] == [struct.pack("<Q", c.data_ptr()), *(struct.pack("<i", v)
                                                                               for v in (256, 384, 512))]
    # new tensors of the same facts at the same addresses (the allocator reusing memory): the same launch
    gapi.gemm(Tensor((256, 512), ptr=a.data_ptr()), Tensor((512, 384), ptr=b.data_ptr()), c)
    assert len(encoded) == 3 and drv.launches[-1] == drv.launches[0]


@pytest.mark.parametrize("operand", [0, 1, 2])
def test_a_new_pointer_encodes_tensor_maps_for_it(stand_in, operand):
    drv, encoded, loaded, _ = stand_in
    ops = [Tensor((256, 512)), Tensor((512, 384)), Tensor((256, 384))]
    gapi.gemm(*ops)
    moved = list(ops)
    moved[operand] = Tensor(ops[operand].shape)  # the same facts at another address
    gapi.gemm(*moved)
    assert len(loaded) == 1 and len(encoded) == 6  # the problem kept, the binding redone
    assert maps_of(drv.launches[-1]) == tuple(t.data_ptr() for t in moved) != maps_of(drv.launches[0])
    gapi.gemm(*ops)  # the first binding is still kept
    assert len(encoded) == 6 and drv.launches[-1] == drv.launches[0]


def test_a_changed_shape_dtype_or_device_resolves_the_problem_again(stand_in):
    drv, encoded, loaded, _ = stand_in
    a, b, c = Tensor((256, 512)), Tensor((512, 384)), Tensor((256, 384))
    gapi.gemm(a, b, c)
    narrower = Tensor((128, 512), ptr=a.data_ptr())  # M: same pointer, another problem
    gapi.gemm(narrower, b, Tensor((128, 384), ptr=c.data_ptr()))
    assert drv.launches[-1]["params"][4] == struct.pack("<i", 128) and len(encoded) == 6
    assert encoded[3][2] == (512, 128)  # A's map of the new M
    gapi.gemm(Tensor((256, 512), BF16, ptr=a.data_ptr()), Tensor((512, 384), BF16, ptr=b.data_ptr()), c)
    assert [cfg.dtype for cfg in loaded] == ["f16", "bf16"] and encoded[-3][1] == "bf16"
    on_one = Device("cuda", 1)
    gapi.gemm(Tensor((256, 512), ptr=a.data_ptr(), device=on_one), Tensor((512, 384), ptr=b.data_ptr(), device=on_one),
              Tensor((256, 384), ptr=c.data_ptr(), device=on_one))
    assert len(drv.launches) == 4 and len(encoded) == 12
    gapi.gemm(a, b, c)
    assert drv.launches[-1] == drv.launches[0] and len(encoded) == 12


def test_arguments_an_earlier_call_bound_are_refused_when_they_change(stand_in):
    """What the first call would refuse is refused after a bound call with the same pointers."""
    drv, encoded, _, _ = stand_in
    a, b, c = Tensor((256, 512)), Tensor((512, 384)), Tensor((256, 384))
    gapi.gemm(a, b, c)
    with pytest.raises(ValueError, match="a is on cpu:None, not on a CUDA device"):
        gapi.gemm(Tensor((256, 512), ptr=a.data_ptr(), device=Device("cpu", None)), b, c)
    with pytest.raises(ValueError, match="row-major contiguous"):
        gapi.gemm(a, b, Tensor((256, 384), strides=(768, 2), ptr=c.data_ptr()))
    with pytest.raises(TypeError, match="both be bf16 or both fp16"):
        gapi.gemm(a, Tensor((512, 384), BF16, ptr=b.data_ptr()), c)
    with pytest.raises(ValueError, match="inner dimensions"):
        gapi.gemm(a, Tensor((384, 384), ptr=b.data_ptr()), c)
    assert len(drv.launches) == 1 and len(encoded) == 3


CPU, CUDA1 = Device("cpu", None), Device("cuda", 1)


@pytest.mark.parametrize("call,exc,message", [
    (lambda: gapi.gemm([[1.0]], Tensor((8, 8))), TypeError, r"a must be a torch tensor .*got a list"),
    (lambda: gapi.gemm(Tensor((8, 8)), None), TypeError, r"b must be a torch tensor .*got None"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), [1]), TypeError, r"out must be a torch tensor or None .*list"),
    (lambda: gapi.gemm(Tensor((2, 8, 8), strides=(64, 8, 1)), Tensor((8, 8))), ValueError,
     r"2-D matrices, got shapes \(2, 8, 8\) \(a\) and \(8, 8\) \(b\)"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8), device=CPU)), ValueError, r"b is on cpu:None, not on a CUDA"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8), device=CUDA1)), ValueError, r"a is on cuda:0 and b on cuda:1"),
    (lambda: gapi.gemm(Tensor((8, 8), F32), Tensor((8, 8), F32)), TypeError, r"a has dtype torch.float32"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8), U8)), TypeError, r"b has dtype torch.uint8"),
    (lambda: gapi.gemm(Tensor((8, 8), F16), Tensor((8, 8), BF16)), TypeError,
     r"got torch.float16 \(a\) and torch.bfloat16 \(b\)"),
    (lambda: gapi.gemm(Tensor((8, 16)), Tensor((8, 8))), ValueError, r"inner dimensions differ: a is \(8, 16\)"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), Tensor((8, 16))), ValueError,
     r"out must be a \[8, 8\] tensor on cuda:0, got \(8, 16\)"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), Tensor((8, 8), device=CPU)), ValueError, r"got \(8, 8\) on cpu"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), Tensor((8, 8), U8)), TypeError,
     r"out has dtype torch.uint8; it must be bf16, fp16 or float32"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), Tensor((8, 8), strides=(16, 1))), ValueError,
     r"out must be row-major contiguous \(strides \(8, 1\)\), got strides \(16, 1\)"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), schedule="fast"), ValueError,
     r"schedule must be one of auto, persistent, streamk, dp, got 'fast'"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), schedule=3), ValueError, r"schedule must be one of .*got 3"),
    (lambda: gapi.gemm(Tensor((8, 8)), Tensor((8, 8)), config="big"), TypeError, r"config must be a GemmConfig"),
])
def test_misuse_names_the_argument(stand_in, call, exc, message):
    """Each wrong argument is refused before anything is compiled or launched, naming the
    argument (``out=[1]`` and ``config="big"`` were AttributeErrors; a CPU ``b`` or a ``uint8``
    ``out`` gave a message about "a and b" or about the inputs)."""
    drv, _, loaded, _ = stand_in
    with pytest.raises(exc, match=message):
        call()
    assert not drv.launches and not loaded


def test_each_launch_reads_the_current_stream(stand_in):
    drv, _, _, stream = stand_in
    a, b, c = Tensor((256, 512)), Tensor((512, 384)), Tensor((256, 384))
    gapi.gemm(a, b, c)
    stream[0] = 0x77
    gapi.gemm(a, b, c)
    stream[0] = 0x51
    gapi.gemm(a, b, c)
    assert [launch["stream"] for launch in drv.launches] == [0x51, 0x77, 0x51]


@pytest.mark.parametrize("schedule", ["persistent", "streamk"])
def test_the_ctypes_path_launches_what_the_cuda_python_path_launches(stand_in, monkeypatch, schedule):
    """tileorch.gemm's bound launches through ctypes and through the compiled C launcher (the
    default where it builds; tileorch.runtime.direct_launch, against a stand-in libcuda of C
    function pointers): the same grid, block, shared memory, stream, cluster attribute and
    parameter bytes as through cuda-python's binding; Stream-K zeroes its locks first either way."""
    from fake_libcuda import FakeLibcuda, cuda_python_launch, handle

    from tileorch.runtime import direct_launch

    drv, _, _, stream = stand_in
    monkeypatch.setattr(drv, "cuModuleGetFunction", lambda module, name: (0, handle(name.decode())))
    sizes = (128, 128, 128, 8, 4, 4, 4)  # A, B, C maps, C, M, N, K
    records, memsets = [], []

    def binding_launch(config, fn, params, extra):
        ptrs = (ctypes.c_void_p * 7).from_address(params)
        records.append(cuda_python_launch(config, fn, [ctypes.string_at(p, s) for p, s in zip(ptrs, sizes)]))
        return (0,)

    monkeypatch.setattr(drv, "cuLaunchKernelEx", binding_launch)
    monkeypatch.setattr(drv, "cuMemsetD8Async", lambda ptr, value, n, s: memsets.append((ptr, value, n, s)) or (0,))
    a, b, c = Tensor((512, 8192)), Tensor((8192, 512)), Tensor((512, 512))  # Stream-K with locks to zero

    def calls():
        for s in (0x51, 0x51, 0x77):
            stream[0] = s
            gapi.gemm(a, b, c, schedule=schedule)

    monkeypatch.setenv(direct_launch.ENV, "0")
    calls()
    problem = next(iter(gapi._problems.values()))
    launch = next(iter(problem.bound.values()))
    assert getattr(launch, "path", None) in (None, "cuda-python")  # Stream-K: PreparedGemm.launch itself
    via_binding = list(memsets)
    gapi.clear_caches()
    memsets.clear()
    monkeypatch.setenv(direct_launch.ENV, "1")
    fake = FakeLibcuda(lambda name: sizes)
    with direct_launch.use_library(fake):
        calls()
    prepared = next(iter(next(iter(gapi._problems.values())).bound.values()))
    prepared = getattr(prepared, "bound", None) or prepared.__self__
    assert prepared.path == "ctypes" and prepared.kernel.cfg.schedule == schedule
    assert len(fake.launches) == 3 and fake.launches == records
    cfg = prepared.kernel.cfg
    first = fake.launches[0]
    assert first["block"] == (cfg.threads, 1, 1) and first["smem"] == cfg.smem_bytes
    assert first["attrs"] == [(4, (cfg.cluster_m, 1, 1))] and first["grid"] == tuple(prepared.grid)
    assert [x["stream"] for x in fake.launches] == [0x51, 0x51, 0x77]
    assert [m[1:] for m in memsets] == [m[1:] for m in via_binding]  # the workspace is allocated anew
    assert [m[3] for m in memsets] == ([0x51, 0x51, 0x77] if schedule == "streamk" else [])
    from tileorch.runtime import c_launch

    if c_launch.wait() is None:  # (no C launcher on this machine: the two paths above are all there is)
        return
    gapi.clear_caches()  # the default: the compiled C launcher (Stream-K's launch method enqueues through it too)
    memsets.clear()
    monkeypatch.delenv(direct_launch.ENV)
    fake = FakeLibcuda(lambda name: sizes)
    with direct_launch.use_library(fake):
        calls()
    launch = next(iter(next(iter(gapi._problems.values())).bound.values()))
    prepared = getattr(launch, "bound", None) or launch.__self__
    assert prepared.path == "c" and fake.launches == records
    assert type(launch).__name__ == ("method" if schedule == "streamk" else "Launcher")
    assert len(prepared._direct._enqueuers) == (schedule == "streamk")  # the method's launch: a C launcher too
    assert [m[1:] for m in memsets] == [m[1:] for m in via_binding]


def test_a_compile_setting_changed_between_calls_loads_the_kernel_again(stand_in, monkeypatch):
    """A ``TILEORCH_*`` compile setting (one of ``settings.CODEGEN``) set between two calls with the same tensors:
    the second call resolves the problem and loads the kernel again (before session 35 it relaunched the kernel
    compiled under the old value: the bound problem is keyed by the tensors alone); a setting that changes no
    code, or a compile setting set back to the value the kernel was made under, keeps what is bound
    (stale_settings.py); an ``overridden`` block is a change too."""
    from tileorch import settings

    drv, _, loaded, _ = stand_in
    monkeypatch.delenv("TILEORCH_ATTN_TREE_REDUCE", raising=False)
    a, b, c = Tensor((256, 512)), Tensor((512, 384)), Tensor((256, 384))
    gapi.gemm(a, b, c)
    gapi.gemm(a, b, c)
    assert len(loaded) == 1
    monkeypatch.setenv("TILEORCH_SYNC_TIMEOUT", "30")  # (no code changes: kept)
    gapi.gemm(a, b, c)
    assert len(loaded) == 1
    assert "TILEORCH_ATTN_TREE_REDUCE" in settings.CODEGEN
    monkeypatch.setenv("TILEORCH_ATTN_TREE_REDUCE", "1")
    gapi.gemm(a, b, c)
    assert len(loaded) == 2, "the kernel made under the old setting was launched again"
    gapi.gemm(a, b, c)
    assert len(loaded) == 2
    with settings.overridden("TILEORCH_ATTN_TREE_REDUCE", "0"):
        gapi.gemm(a, b, c)
    assert len(loaded) == 3
    gapi.gemm(a, b, c)  # (back under the environment's 1)
    assert len(loaded) == 4 and len(drv.launches) == 7
