"""The CUDA runtime and `tileorch run` without a GPU: the no-GPU message path, and every driver
interaction (argument packing, cluster launch, watchdog) against a fake ``cuda.bindings.driver``."""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tileorch import runtime
from tileorch.cli import main as cli_main
from tileorch.cli import run as cli_run
from tileorch.runtime import device as rt_device
from tileorch.runtime.driver import check, use_api

NOT_READY, INVALID_VALUE, LAUNCH_FAILED, NOT_FOUND = 600, 1, 719, 500
PTX = """
.version 8.0
.target sm_90a
.address_size 64
.visible .entry fill(.param .u64 out, .param .u32 n, .param .f32 x)
{ ret; }
"""


class FakeDriver:
    """Enough of ``cuda.bindings.driver`` for the runtime; kernels 'run' per ``behaviour``."""

    ERRORS = {NOT_READY: "CUDA_ERROR_NOT_READY", INVALID_VALUE: "CUDA_ERROR_INVALID_VALUE",
              LAUNCH_FAILED: "CUDA_ERROR_LAUNCH_FAILED", NOT_FOUND: "CUDA_ERROR_NOT_FOUND"}

    def __init__(self, behaviour: str = "done", params: dict[str, list[int]] | None = None):
        self.behaviour = behaviour
        self.params = params if params is not None else {"fill": [8, 4, 4]}
        self.launches: list[dict] = []
        self.func_attrs: list[tuple] = []
        self.memory: dict[int, ctypes.Array] = {}
        self.CUdevice_attribute = SimpleNamespace(
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR="ccmaj",
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR="ccmin",
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT="sms")
        self.CUfunction_attribute = SimpleNamespace(
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES="maxdyn",
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED="nonportable")
        self.CUlaunchAttributeID = SimpleNamespace(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION="cluster",
                                                   CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION="pdl")

    # types
    @staticmethod
    def CUstream(v):
        return v

    @staticmethod
    def CUlaunchConfig():
        return SimpleNamespace(attrs=[], numAttrs=0)

    @staticmethod
    def CUlaunchAttribute():
        return SimpleNamespace(id=None, value=SimpleNamespace(clusterDim=SimpleNamespace(x=0, y=0, z=0),
                                                              programmaticStreamSerializationAllowed=0))

    # errors, device, context
    def cuGetErrorName(self, err):
        return 0, self.ERRORS[int(err)].encode()

    def cuGetErrorString(self, err):
        return 0, f"text of {self.ERRORS[int(err)]}".encode()

    def cuInit(self, flags):
        return (0,)

    def cuDeviceGetCount(self):
        return 0, 1

    def cuDeviceGet(self, i):
        return 0, i

    def cuDevicePrimaryCtxRetain(self, dev):
        return 0, "ctx"

    def cuCtxSetCurrent(self, ctx):
        return (0,)

    def cuDeviceGetName(self, n, dev):
        return 0, b"Fake H100\0\0"

    def cuDeviceGetAttribute(self, attr, dev):
        return 0, {"ccmaj": 9, "ccmin": 0, "sms": 132}[attr]

    def cuDriverGetVersion(self):
        return 0, 13000

    def cuCtxSynchronize(self):
        return (0,)

    # modules
    def cuModuleLoadData(self, data):
        return (0, "mod") if b".version" in data or data.startswith(b"\x7fELF") else (INVALID_VALUE, None)

    def cuModuleGetFunction(self, mod, name):
        return (0, name.decode()) if name.decode() in self.params else (NOT_FOUND, None)

    def cuFuncGetParamInfo(self, fn, index):
        sizes = self.params[fn]
        return (0, 8 * index, sizes[index]) if index < len(sizes) else (INVALID_VALUE, 0, 0)

    def cuFuncSetAttribute(self, fn, attr, value):
        self.func_attrs.append((fn, attr, value))
        return (0,)

    # memory
    def cuMemAlloc(self, n):
        buf = (ctypes.c_char * n)()
        self.memory[ctypes.addressof(buf)] = buf
        return 0, ctypes.addressof(buf)

    def cuMemcpyHtoD(self, dst, src, n):
        ctypes.memmove(dst, src, n)
        return (0,)

    def cuMemcpyDtoH(self, dst, src, n):
        ctypes.memmove(dst, src, n)
        return (0,)

    def cuMemsetD8(self, dst, v, n):
        ctypes.memset(dst, v, n)
        return (0,)

    def cuMemFree(self, p):
        self.memory.pop(int(p), None)
        return (0,)

    # events and launch
    def cuEventCreate(self, flags):
        return 0, object()

    def cuEventRecord(self, ev, stream):
        return (0,)

    def cuEventDestroy(self, ev):
        return (0,)

    def cuEventElapsedTime(self, a, b):
        return 0, 0.25

    def cuEventQuery(self, ev):
        return ({"done": 0, "hang": NOT_READY, "fault": LAUNCH_FAILED}[self.behaviour],)

    def cuLaunchKernelEx(self, config, fn, params, extra):
        sizes = self.params[fn]
        ptrs = (ctypes.c_void_p * len(sizes)).from_address(params) if sizes else []
        raw = [ctypes.string_at(p, s) for p, s in zip(ptrs, sizes)]
        self.launches.append({"fn": fn, "config": config, "params": raw})
        if fn == "fill" and self.behaviour == "done":  # out[i] = x for i < n
            out, n, x = struct.unpack("<Q", raw[0])[0], *struct.unpack("<I", raw[1]), raw[2]
            for i in range(n):
                ctypes.memmove(out + 4 * i, x, 4)
        return (0,)


@pytest.fixture
def fake():
    drv = FakeDriver()
    rt_device.forget_devices()
    with use_api(drv):
        yield drv
    rt_device.forget_devices()


def test_status_without_cuda_python_is_a_clear_message(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cuda(name, *a, **k):
        if name.startswith("cuda"):
            raise ImportError("No module named 'cuda'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_cuda)
    with use_api(None):
        ok, reason = runtime.gpu_status()
        assert not ok and "tileorch[gpu]" in reason
        with pytest.raises(runtime.GpuUnavailable, match="cuda-python is not usable"):
            runtime.current_device()


def test_check_raises_readable_error(fake):
    with pytest.raises(runtime.CudaError, match=r"cuFoo failed: CUDA_ERROR_INVALID_VALUE \(1\)"):
        check((INVALID_VALUE, None), "cuFoo")
    assert check((0, 7), "x") == 7 and check((0,), "x") is None and check((0, 1, 2), "x") == (1, 2)


def test_launch_packs_arguments_by_parameter_size(fake):
    out = runtime.DeviceBuffer(4 * 8)
    out.fill_bytes(0xFF)
    kernel = runtime.Module(PTX).kernel("fill")
    assert kernel.param_sizes == [8, 4, 4]
    done = runtime.launch(kernel, grid=2, block=(128,), args=[out, 5, 1.5])
    raw = fake.launches[0]["params"]
    assert raw == [struct.pack("<Q", out.ptr), struct.pack("<i", 5), struct.pack("<f", 1.5)]
    host = out.download(np.float32)
    assert host[:5].tolist() == [1.5] * 5 and np.isnan(host[5])  # 0xFFFFFFFF is a NaN
    cfg = fake.launches[0]["config"]
    assert (cfg.gridDimX, cfg.gridDimY, cfg.blockDimX, cfg.numAttrs) == (2, 1, 128, 0)
    assert done.elapsed_ms() == 0.25


def test_cluster_launch_and_large_dynamic_smem(fake):
    kernel = runtime.Module(PTX).kernel("fill")
    runtime.launch(kernel, (4, 2), 384, [0, np.uint32(0), np.float32(0)], cluster=(2, 1), smem=200_000)
    cfg = fake.launches[0]["config"]
    assert cfg.numAttrs == 1 and cfg.attrs[0].id == "cluster"
    dims = cfg.attrs[0].value.clusterDim
    assert (dims.x, dims.y, dims.z) == (2, 1, 1) and cfg.sharedMemBytes == 200_000
    assert ("fill", "maxdyn", 200_000) in fake.func_attrs
    # 48 KiB of dynamic memory plus the kernel's static barriers exceeds the default limit too
    runtime.launch(kernel, 1, 32, [0, 0, 0.0], smem=48 * 1024)
    assert ("fill", "maxdyn", 48 * 1024) not in fake.func_attrs  # 200_000 already covers it
    other = runtime.Module(PTX).kernel("fill")
    runtime.launch(other, 1, 32, [0, 0, 0.0], smem=48 * 1024)
    assert fake.func_attrs.count(("fill", "maxdyn", 48 * 1024)) == 1
    with pytest.raises(ValueError, match="not a multiple of cluster"):
        runtime.launch(kernel, (3, 1), 32, [0, 0, 0.0], cluster=(2, 1))


def test_argument_errors_name_the_argument(fake):
    kernel = runtime.Module(PTX).kernel("fill")
    with pytest.raises(TypeError, match="takes 3 parameters"):
        runtime.launch(kernel, 1, 32, [0])
    with pytest.raises(TypeError, match="argument 0 is a host numpy array"):
        runtime.launch(kernel, 1, 32, [np.zeros(4), 1, 1.0])
    with pytest.raises(OverflowError, match="argument 1"):
        runtime.launch(kernel, 1, 32, [0, 1 << 40, 1.0])
    with pytest.raises(TypeError, match="argument 2 has 8 bytes"):
        runtime.launch(kernel, 1, 32, [0, 1, np.float64(1.0)])
    with pytest.raises(TypeError, match="not on a CUDA device"):
        runtime.device_pointer(np.zeros(4))  # numpy's DLPack says CPU


def test_bound_launch_closure_per_stream_configs_and_re_pointing(fake, monkeypatch):
    """BoundLaunch.launcher(): the same parameter bytes at every call, one launch configuration
    per stream handle (made on its first launch, shared with the re-pointed copies), a failed
    driver call raised with the kernel and configuration, a poisoned context refused before the
    driver is asked."""
    import importlib

    rt_launch = importlib.import_module("tileorch.runtime.launch")  # the module (runtime.launch is the function)
    made = []
    real = rt_launch._launch_config
    monkeypatch.setattr(rt_launch, "_launch_config", lambda drv, cfg: made.append(cfg) or real(drv, cfg))
    kernel = runtime.Module(PTX).kernel("fill")
    out, other, third = (runtime.DeviceBuffer(4 * 8) for _ in range(3))  # the fake fills out[:7] with 2.5
    bound = rt_launch.BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5], cluster=(2, 1))
    launch = bound.launcher()
    assert launch.bound is bound
    for stream in (5, 9, 5, 5, 9):
        launch(stream)
    assert len(made) == 2 and [x["config"].hStream for x in fake.launches] == [5, 9, 5, 5, 9]
    expected = [struct.pack("<Q", out.ptr), struct.pack("<i", 7), struct.pack("<f", 2.5)]
    assert all(x["params"] == expected for x in fake.launches)
    cfg = fake.launches[0]["config"]
    assert (cfg.gridDimX, cfg.gridDimY, cfg.blockDimX, cfg.numAttrs) == (4, 2, 64, 1)
    repoint = bound.repointer([0])
    moved = repoint((other.ptr,))
    moved(9)
    moved(5)
    assert len(made) == 2  # the streams' configurations are shared
    assert fake.launches[-1]["params"] == [struct.pack("<Q", other.ptr)] + expected[1:]
    assert other.download(np.float32)[:7].tolist() == [2.5] * 7
    launch(5)
    assert fake.launches[-1]["params"] == expected  # the original's bytes are untouched
    moved_again = repoint((third.ptr,))  # a buffer of its own: the earlier re-pointed launch keeps its bytes
    moved(5)
    moved_again(5)
    assert [x["params"][0] for x in fake.launches[-2:]] == [struct.pack("<Q", other.ptr), struct.pack("<Q", third.ptr)]
    assert moved.bound is not moved_again.bound
    assert bound.repointed([0], (third.ptr,)).launcher() is not None
    with pytest.raises(ValueError, match="parameter 1 of 'fill' has 4 bytes"):
        bound.repointer([1])
    monkeypatch.setattr(fake, "cuLaunchKernelEx", lambda *a: (INVALID_VALUE,))  # read when bound
    failing = rt_launch.BoundLaunch(kernel, (4, 2), 64, [out, 7, 2.5], cluster=(2, 1)).launcher()
    with pytest.raises(runtime.CudaError, match=r"cuLaunchKernelEx\('fill', grid=\(4, 2, 1\)"):
        failing(5)
    kernel.module.device.poisoned_by = "an earlier hang"
    try:
        with pytest.raises(runtime.ContextPoisoned, match="an earlier hang"):
            launch(5)
    finally:
        kernel.module.device.poisoned_by = None


def test_missing_kernel_lists_the_module_kernels(fake):
    with pytest.raises(runtime.CudaError, match="no kernel named 'nope'; kernels in .*: fill"):
        runtime.Module(PTX).kernel("nope")


def test_watchdog_reports_a_hang_with_kernel_and_config(fake):
    fake.behaviour = "hang"
    kernel = runtime.Module(PTX).kernel("fill")
    with pytest.raises(runtime.KernelHang) as info:
        runtime.launch(kernel, (8, 1), 256, [0, 0, 0.0], cluster=(2, 1), timeout_s=0.05)
    msg = str(info.value)
    assert "'fill'" in msg and "grid=(8, 1, 1)" in msg and "cluster=(2, 1, 1)" in msg and "0.05 s" in msg
    with pytest.raises(runtime.ContextPoisoned, match="did not finish"):
        runtime.launch(kernel, 1, 32, [0, 0, 0.0])


def test_watchdog_reports_a_fault(fake):
    fake.behaviour = "fault"
    kernel = runtime.Module(PTX).kernel("fill")
    with pytest.raises(runtime.KernelFault, match="'fill' .*CUDA_ERROR_LAUNCH_FAILED"):
        runtime.launch(kernel, 1, 32, [0, 0, 0.0])


def test_cuda_array_interface_is_accepted():
    arr = SimpleNamespace(__cuda_array_interface__={"data": (0xABC0, False), "shape": (4,)})
    assert runtime.device_pointer(arr) == 0xABC0


# ---- tileorch run -------------------------------------------------------------------------


def test_parse_args_entries():
    assert cli_run.parse_arg("i32:-3") == np.int32(-3) and cli_run.parse_arg("f32:1.5").dtype == np.float32
    spec = cli_run.parse_arg("buf:u32:4:iota")
    assert spec.initial.tolist() == [0, 1, 2, 3] and spec.initial.dtype == np.uint32
    assert cli_run.parse_arg("buf:f32:2:7").initial.tolist() == [7.0, 7.0]
    for bad in ("x:1", "i32:abc", "buf:i32", "buf:q9:4"):
        with pytest.raises(cli_run.ArgError):
            cli_run.parse_arg(bad)


def test_run_without_gpu_says_so(tmp_path, capsys, monkeypatch):
    ptx = tmp_path / "k.ptx"
    ptx.write_text(PTX)
    monkeypatch.setattr(runtime, "gpu_status", lambda: (False, "no NVIDIA driver found"))
    with pytest.raises(SystemExit) as code:
        cli_main.main(["run", str(ptx), "--kernel", "fill", "--block", "32"])
    assert code.value.code == 1
    err = capsys.readouterr().err
    assert "no GPU: no NVIDIA driver found" in err and "nothing was run" in err


def test_run_without_gpu_fails_unless_asked_to_simulate(capsys, monkeypatch):
    """No GPU is an error (it silently ran the simulator and exited 0); --simulate asks for it."""
    example = Path(__file__).resolve().parents[2] / "examples" / "ws_pipeline.mlir"
    monkeypatch.setattr(runtime, "gpu_status", lambda: (False, "no NVIDIA driver found"))
    with pytest.raises(SystemExit) as code:
        cli_main.main(["run", str(example), "--kernel", "ws_mainloop", "--block", "384",
                       "--args", "i32:4", "buf:u8:16", "buf:f32:4"])
    assert code.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("tileorch run: error: no GPU: no NVIDIA driver found; nothing was run")
    assert "--simulate" in err and "simulate" not in err.split("nothing was run", 1)[0]
    with pytest.raises(SystemExit) as code:
        cli_main.main(["run", str(example), "--kernel", "ws_mainloop", "--block", "384", "--simulate"])
    err = capsys.readouterr().err
    assert "--simulate: running `tileorch simulate" in err and "--kernel ws_mainloop" in err
    assert code.value.code == 0


def test_run_launches_and_prints_buffers(tmp_path, capsys, fake):
    ptx = tmp_path / "k.ptx"
    ptx.write_text(PTX)
    with pytest.raises(SystemExit) as code:
        cli_main.main(["run", str(ptx), "--kernel", "fill", "--grid", "1", "--block", "32",
                       "--args", "buf:f32:6", "u32:3", "f32:2.5", "--dump", str(tmp_path / "d")])
    assert code.value.code == 0
    out = capsys.readouterr().out
    assert "kernel fill ran in 0.250 ms on Fake H100" in out
    assert np.load(tmp_path / "d" / "arg0.npy").tolist() == [2.5, 2.5, 2.5, 0, 0, 0]


def test_run_compiles_mlir_then_launches(capsys, fake):
    kernel = Path(__file__).resolve().parents[1] / "gpu" / "kernels" / "bulk_copy.mlir"
    fake.params["bulk_copy"] = [8, 8, 4]
    with pytest.raises(SystemExit) as code:
        cli_main.main(["run", str(kernel), "--kernel", "bulk_copy", "--block", "128", "--smem", "528",
                       "--args", "buf:u32:128:iota", "buf:u32:128", "i32:512"])
    assert code.value.code == 0
    raw = fake.launches[0]["params"]
    assert [len(r) for r in raw] == [8, 8, 4] and struct.unpack("<i", raw[2]) == (512,)
    assert "kernel bulk_copy ran" in capsys.readouterr().out


def test_run_reports_errors_without_traceback(tmp_path, capsys, fake):
    ptx = tmp_path / "k.ptx"
    ptx.write_text(PTX)
    fake.behaviour = "hang"
    with pytest.raises(SystemExit) as code:
        cli_main.main(["run", str(ptx), "--kernel", "fill", "--block", "32", "--timeout", "0.01",
                       "--args", "buf:f32:1", "u32:1", "f32:1"])
    assert code.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("tileorch run: error: kernel 'fill' did not finish") and "Traceback" not in err


# ---- bounded synchronization (tileorch.cutile.synchronize, the GEMM path's sync=True) ----------


def test_synchronize_reports_a_hang_naming_the_kernels_then_poisons(fake, monkeypatch):
    from tileorch.launchers import cutile as lc

    monkeypatch.setattr(lc, "_LAUNCHED", {"matmul_kernel": None, "softmax_kernel": None})
    fake.behaviour = "hang"
    with pytest.raises(runtime.KernelHang) as info:
        lc.synchronize(7, timeout_s=0.05)
    msg = str(info.value)
    assert "one of the kernels tileorch.cutile.launch launched in this process ('softmax_kernel', " \
           "'matmul_kernel', most recent first) did not finish within 0.05 s" in msg, msg
    assert "stream 7" in msg and "--debug-timeout" in msg
    with pytest.raises(runtime.ContextPoisoned, match="did not finish"):
        lc.synchronize(7, timeout_s=1.0)


def test_synchronize_names_a_fault_and_returns_when_done(fake, monkeypatch):
    from tileorch.launchers import cutile as lc

    monkeypatch.setattr(lc, "_LAUNCHED", {"attention_fwd": None})
    lc.synchronize(None)  # done: returns
    fake.behaviour = "fault"
    with pytest.raises(runtime.KernelFault, match="kernel 'attention_fwd' .*CUDA_ERROR_LAUNCH_FAILED"):
        lc.synchronize(None)


@pytest.mark.parametrize("env, timeout, error", [
    ("", -1.0, "timeout_s must be a positive, finite number"),
    ("", float("inf"), "timeout_s must be a positive, finite number"),
    ("", "3", "timeout_s must be a number of seconds"),
    ("0", None, "TILEORCH_SYNC_TIMEOUT='0': expected a positive, finite number of seconds"),
    ("soon", None, "TILEORCH_SYNC_TIMEOUT='soon'"),
])
def test_synchronize_refuses_a_bad_deadline(fake, monkeypatch, env, timeout, error):
    from tileorch.launchers import cutile as lc

    monkeypatch.setenv("TILEORCH_SYNC_TIMEOUT", env)
    with pytest.raises((TypeError, ValueError), match=error.replace("(", r"\(").replace(")", r"\)")):
        lc.synchronize(0, timeout_s=timeout)


def test_synchronize_deadline_from_the_environment(fake, monkeypatch):
    from tileorch.launchers import cutile as lc

    monkeypatch.setattr(lc, "_LAUNCHED", {})
    monkeypatch.setenv("TILEORCH_SYNC_TIMEOUT", "0.03")
    fake.behaviour = "hang"
    with pytest.raises(runtime.KernelHang, match=r"the work queued on the stream \(no cuTile kernel launched by "
                                                 r"tileorch in this process\) did not finish within 0.03 s"):
        lc.synchronize(0)


def test_the_cutile_launchers_never_wait_unbounded():
    """Every wait of the launchers goes through the watchdog: no cuStreamSynchronize/cuCtxSynchronize
    call is left in the launch code (the GEMM path's sync=True was one)."""
    import inspect

    from tileorch.launchers import cutile, cutile_bound, cutile_native, gemm, gemm_host

    for module in (cutile, cutile_bound, cutile_native, gemm, gemm_host):
        source = inspect.getsource(module)
        assert "cuStreamSynchronize(" not in source and "cuCtxSynchronize(" not in source, module.__name__
