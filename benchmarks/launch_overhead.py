"""Host time per launch: ``tileorch.gemm`` and ``tileorch.cutile.launch`` against ``torch.matmul``
and ``cuda.tile.launch`` (issue 22).

Usage::

    python benchmarks/launch_overhead.py [--mode auto|stub|gpu] [--calls 2000] [--out build/launch_overhead]

``gpu`` (the default when torch sees a CUDA device and cuda-python loads): real launches on the
current stream, no synchronisation between calls; each call is timed on its own
(``perf_counter`` around the call) after a warm-up that compiles and binds, and the median over
the calls is the host time per call (the GPU keeps up for the small shapes used, so a call does
not wait for a full launch queue).  ``torch.matmul(a, b, out=c)`` and ``cuda.tile.launch`` (when
cuTile can launch) are timed the same way in the same process.

``stub`` (no GPU needed): the same Python paths with the CUDA driver replaced by a stand-in whose
calls return at once (``tileorch.runtime.driver.use_api`` and a stand-in
``cuda.bindings.driver`` module) and torch CPU tensors that say they live on ``cuda:0``:
what is measured is tileorch's own Python per call, the part that issue 22 asks to bring under
torch's host time (12.6 us per ``torch.matmul`` on an H200 host).  Kernels are not compiled in
this mode (the hot path never compiles); without torch the GEMM part is skipped.

``*_new_arrays``: each call passes arrays not seen in the last FRESH calls, so
``tileorch.cutile.launch`` takes its full path (argument analysis, the compile caches, packing,
binding) instead of re-enqueueing a bound launch.

The JSON record (``--out``: ``launch_overhead.json``) holds the median, p10 and p90 microseconds
per call of each measured function and shape.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import sys
import time
import types
from pathlib import Path

SHAPES = [(256, 256, 256), (512, 1024, 512), (1024, 1024, 1024), (2048, 2048, 1024)]


FRESH = 512  # argument tuples cycled through by the *_new_arrays measurements (more than the launcher keeps bound)


def per_call_us(fn, calls: int, warmup: int = 20) -> dict:
    """Median/p10/p90 microseconds of ``fn()`` timed call by call."""
    for _ in range(warmup):
        fn()
    times = []
    clock = time.perf_counter
    for _ in range(calls):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * len(times)))] * 1e6  # noqa: E731
    return {"median_us": statistics.median(times) * 1e6, "p10_us": q(0.1), "p90_us": q(0.9), "calls": calls}


# --------------------------------------------------------------------------- the stand-in driver


class _Opaque:
    def __init__(self):
        self.opaque = list(range(16))


def stub_driver():
    """A ``cuda.bindings.driver`` stand-in: every call succeeds at once."""
    from types import SimpleNamespace

    ns = SimpleNamespace
    d = types.ModuleType("cuda.bindings.driver")
    d.CUresult = ns(CUDA_SUCCESS=0)
    d.CUstream = lambda v: v
    d.CUdeviceptr = lambda v: v
    d.cuuint64_t = d.cuuint32_t = lambda v: v
    d.CUlaunchConfig = lambda: ns(attrs=[], numAttrs=0, hStream=0)
    d.CUlaunchAttribute = lambda: ns(id=None, value=ns(clusterDim=ns(x=0, y=0, z=0)))
    d.CUlaunchAttributeID = ns(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION=4)
    d.CUfunction_attribute = ns(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=8,
                                CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED=9)
    d.CUdevice_attribute = ns(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=75,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=76,
                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT=16)
    d.CUtensorMapDataType = ns(**{f"CU_TENSOR_MAP_DATA_TYPE_{n}": i for i, n in
                                  enumerate(("BFLOAT16", "FLOAT16", "FLOAT32", "UINT8"))})
    d.CUtensorMapInterleave = ns(CU_TENSOR_MAP_INTERLEAVE_NONE=0)
    d.CUtensorMapSwizzle = ns(CU_TENSOR_MAP_SWIZZLE_128B=3)
    d.CUtensorMapL2promotion = ns(CU_TENSOR_MAP_L2_PROMOTION_L2_256B=3)
    d.CUtensorMapFloatOOBfill = ns(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE=0)
    attrs = {75: 9, 76: 0, 16: 132}
    params: dict[str, list[int]] = {}
    d._params = params
    d.cuInit = lambda f: (0,)
    d.cuDeviceGetCount = lambda: (0, 1)
    d.cuDeviceGet = lambda i: (0, i)
    d.cuDevicePrimaryCtxRetain = lambda dev: (0, "ctx")
    d.cuCtxSetCurrent = lambda c: (0,)
    d.cuDeviceGetName = lambda n, dev: (0, b"stub H100\0")
    d.cuDeviceGetAttribute = lambda a, dev: (0, attrs[a])
    d.cuDriverGetVersion = lambda: (0, 13000)
    d.cuModuleLoadData = lambda data: (0, "module")
    d.cuModuleGetFunction = lambda mod, name: (0, name.decode())
    d.cuFuncGetParamInfo = lambda fn, i: (0, 0, params[fn][i]) if i < len(params.get(fn, [])) else (1, 0, 0)
    d.cuFuncSetAttribute = lambda fn, attr, value: (0,)
    d.cuOccupancyMaxActiveClusters = lambda fn, config: (0, 66)
    d.cuTensorMapEncodeTiled = lambda *args: (0, _Opaque())
    d.cuLaunchKernelEx = lambda config, fn, params, extra: (0,)
    d.cuMemsetD8Async = lambda ptr, v, n, stream: (0,)
    d.cuEventCreate = lambda f: (0, object())
    d.cuEventRecord = lambda ev, s: (0,)
    d.cuEventDestroy = lambda ev: (0,)
    d.cuEventQuery = lambda ev: (0,)
    d.cuStreamSynchronize = lambda s: (0,)
    d.cuGetErrorName = lambda e: (0, b"CUDA_ERROR")
    d.cuGetErrorString = lambda e: (0, b"error")
    return d


def install_stub(d) -> None:
    """``from cuda.bindings import driver`` gives the stand-in (tensor maps are encoded that way)."""
    try:
        import cuda  # the real namespace package (cuda.tile lives there), when installed
    except ImportError:
        cuda = types.ModuleType("cuda")
        cuda.__path__ = []
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = d
    cuda.bindings = bindings
    sys.modules.setdefault("cuda", cuda)
    sys.modules["cuda.bindings"] = bindings
    sys.modules["cuda.bindings.driver"] = d


# --------------------------------------------------------------------------- measurements


def stub_gemm(calls: int) -> dict:
    """tileorch.gemm's per-call Python with the driver stubbed (torch CPU tensors as cuda:0)."""
    import torch

    from tileorch.launchers import gemm as gapi
    from tileorch.launchers.gemm_host import GemmKernel
    from tileorch.runtime.driver import use_api

    cuda0 = torch.device("cuda", 0)

    class CudaLike(torch.Tensor):  # a CPU tensor that reports cuda:0 (pointers are never used)
        __torch_function__ = torch._C._disabled_torch_function_impl
        is_cuda = property(lambda self: True)
        device = property(lambda self: cuda0)

    def kernel_for(cfg):  # no compile: the hot path never compiles
        if cfg not in gapi._kernels:
            gapi._kernels[cfg] = GemmKernel(cfg, b"\x7fELF stub cubin")
        return gapi._kernels[cfg]

    d = stub_driver()
    install_stub(d)
    # torch's CUDA queries answer as an H100 would (the tileorch code asks them once or per call)
    ns = types.SimpleNamespace
    torch_patches = {"get_device_capability": lambda device=None: (9, 0),
                     "get_device_properties": lambda device=None: ns(multi_processor_count=132),
                     "current_stream": lambda device=None: ns(cuda_stream=0)}
    saved_torch = {name: getattr(torch.cuda, name) for name in torch_patches}
    for name, fn in torch_patches.items():
        setattr(torch.cuda, name, fn)
    saved = {name: getattr(gapi, name) for name in ("kernel_for", "current_stream") if hasattr(gapi, name)}
    gapi.kernel_for = kernel_for
    if "current_stream" in saved:
        gapi.current_stream = lambda index: 0
    out = {}
    try:
        with use_api(d):
            for m, n, k in SHAPES:
                a = torch.empty((m, k), dtype=torch.float16).as_subclass(CudaLike)
                b = torch.empty((k, n), dtype=torch.float16).as_subclass(CudaLike)
                c = torch.empty((m, n), dtype=torch.float16).as_subclass(CudaLike)
                out[f"{m}x{n}x{k}"] = per_call_us(lambda: gapi.gemm(a, b, c), calls)
    finally:
        for name, fn in saved.items():
            setattr(gapi, name, fn)
        for name, fn in saved_torch.items():
            setattr(torch.cuda, name, fn)
    return out


def stub_cutile(calls: int) -> dict:
    """tileorch.cutile.launch's per-call Python for a SIMT program with the driver stubbed."""
    import cuda.tile as ct

    globals()["ct"] = ct  # the kernel's annotations are read in this module's namespace
    import tileorch.driver as frontend
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.launchers import cutile as rc
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    @ct.kernel
    def scale(x, y, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * alpha)

    d = stub_driver()
    sizes = {"tile<ptr<f32>>": 8, "tile<i32>": 4, "tile<f32>": 4}

    def compile_program(data, name, arch="sm_90a", schedule="persistent", ptxas=True, **_):
        entry = read_bytecode(data).body.block.first_op.body.block.first_op
        d._params[entry.sym_name.data] = [sizes[str(t).removeprefix("!cuda_tile.")]
                                          for t in entry.function_type.inputs.data]
        return types.SimpleNamespace(kind="simt", ptx=f".visible .entry {entry.sym_name.data}()\n", cubin=None,
                                     kernel=entry.sym_name.data, threads=128, gemm_config=None, gemm_args=None)

    class Dev:
        def __init__(self, ptr, n):
            self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (n,), "typestr": "<f4",
                                             "strides": None, "version": 3}

    saved = frontend.compile_program
    frontend.compile_program = compile_program
    rc.clear_caches()
    rt_device.forget_devices()
    out = {}
    try:
        with use_api(d):
            x, y = Dev(0x7F0000000000, 1 << 20), Dev(0x7F0001000000, 1 << 20)
            args = (x, y, 2.0, 1024)
            out["simt_scale"] = per_call_us(lambda: rc.launch(0, (1024,), scale, args), calls)
            fresh = itertools.cycle([(Dev(0x7E0000000000 + (i << 22), 1 << 20), y, 2.0, 1024) for i in range(FRESH)])
            out["simt_scale_new_arrays"] = per_call_us(lambda: rc.launch(0, (1024,), scale, next(fresh)), calls)
    finally:
        frontend.compile_program = saved
        rc.clear_caches()
        rt_device.forget_devices()
    return out


def gpu(calls: int) -> dict:
    """Real launches: tileorch.gemm vs torch.matmul; tileorch.cutile.launch vs cuda.tile.launch."""
    import torch

    import tileorch

    out: dict = {"gemm": {}, "torch_matmul": {}}
    for m, n, k in SHAPES:
        a = torch.randn((m, k), dtype=torch.float16, device="cuda")
        b = torch.randn((k, n), dtype=torch.float16, device="cuda")
        c = torch.empty((m, n), dtype=torch.float16, device="cuda")
        name = f"{m}x{n}x{k}"
        out["gemm"][name] = per_call_us(lambda: tileorch.gemm(a, b, c), calls)
        torch.cuda.synchronize()
        out["torch_matmul"][name] = per_call_us(lambda: torch.matmul(a, b, out=c), calls)
        torch.cuda.synchronize()
    try:
        import cuda.tile as ct

        from tileorch.launchers import cutile as rc
    except ImportError as exc:
        out["cutile_skipped"] = str(exc)
        return out
    globals()["ct"] = ct  # the kernel's annotations are read in this module's namespace

    @ct.kernel
    def scale(x, y, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * alpha)

    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream()
    args = (x, y, 2.0, 1024)
    out["cutile_launch"] = per_call_us(lambda: rc.launch(stream, (1024,), scale, args), calls)
    torch.cuda.synchronize()
    # arrays not seen before at each call (FRESH inputs cycled): the launcher's full path
    xs = torch.randn((FRESH, 1 << 20), device="cuda")
    fresh = [(xs[i], y, 2.0, 1024) for i in range(FRESH)]
    cycled = itertools.cycle(fresh)
    out["cutile_launch_new_arrays"] = per_call_us(lambda: rc.launch(stream, (1024,), scale, next(cycled)), calls)
    torch.cuda.synchronize()
    try:
        out["cuda_tile_launch"] = per_call_us(lambda: ct.launch(stream, (1024,), scale, args), calls)
        torch.cuda.synchronize()
        cycled = itertools.cycle(fresh)
        out["cuda_tile_launch_new_arrays"] = per_call_us(lambda: ct.launch(stream, (1024,), scale, next(cycled)), calls)
    except Exception as exc:  # noqa: BLE001 - cuTile's own launcher may be unavailable
        out["cuda_tile_launch_skipped"] = f"{type(exc).__name__}: {exc}"
    torch.cuda.synchronize()
    return out


def summary(record: dict) -> list[str]:
    lines = []
    for section, value in record.items():
        if not isinstance(value, dict):
            continue
        for name, r in value.items():
            if isinstance(r, dict) and "median_us" in r:
                lines.append(f"{section:16s} {name:20s} median {r['median_us']:7.2f} us  p10 {r['p10_us']:7.2f}  "
                             f"p90 {r['p90_us']:7.2f}")
            elif isinstance(r, dict):
                for shape, rr in r.items():
                    lines.append(f"{section + '/' + name:16s} {shape:20s} median {rr['median_us']:7.2f} us  "
                                 f"p10 {rr['p10_us']:7.2f}  p90 {rr['p90_us']:7.2f}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("auto", "stub", "gpu"), default="auto")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--out", default="build/launch_overhead")
    args = parser.parse_args(argv)
    mode = args.mode
    if mode == "auto":
        try:
            import torch

            mode = "gpu" if torch.cuda.is_available() else "stub"
        except ImportError:
            mode = "stub"
    record: dict = {"mode": mode, "python": platform.python_version(), "machine": platform.machine(),
                    "cpus": os.cpu_count(), "calls": args.calls}
    if mode == "gpu":
        record["gpu"] = gpu(args.calls)
    else:
        record["stub"] = {}
        try:
            record["stub"]["gemm"] = stub_gemm(args.calls)
        except ImportError as exc:  # torch is not installed
            record["stub"]["gemm_skipped"] = str(exc)
        try:
            record["stub"]["cutile_launch"] = stub_cutile(args.calls)
        except ImportError as exc:
            record["stub"]["cutile_skipped"] = str(exc)
    for line in summary(record.get("gpu") or record.get("stub")):
        print(line)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "launch_overhead.json").write_text(json.dumps(record, indent=1))
    print(f"wrote {out / 'launch_overhead.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
