"""Host side of the GEMM: compile (and cache) a configuration, build tensor maps and scheduler
params for a problem, launch.

Importing this module needs neither xDSL nor a GPU; compiling needs xDSL (the CPU side),
launching needs cuda-python and an sm_90 GPU.  Compiled cubins are cached on disk under
``$TILEORCH_CACHE_DIR`` (default ``~/.cache/tileorch``) as ``gemm/<config name>-<ir hash>.cubin``,
so a machine without xDSL can run configurations compiled elsewhere.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError
from tileorch.kernels.gemm.ir import gemm_kernel_ir

CACHE_ENV = "TILEORCH_CACHE_DIR"


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "tileorch") / "gemm"


_FINGERPRINT: str | None = None


def compiler_fingerprint() -> str:
    """Hash of the compiler's own sources (dialects, transforms, backend, kernels): a cached cubin
    is reused only by the compiler that produced it."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        root = Path(__file__).resolve().parents[2]
        h = hashlib.sha256()
        for sub in ("dialects", "transforms", "backend", "kernels", "schedulers", "frontend"):
            for f in sorted((root / sub).rglob("*.py")):
                h.update(f.relative_to(root).as_posix().encode())
                h.update(f.read_bytes())
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


def cubin_path(cfg: GemmConfig) -> Path:
    digest = hashlib.sha256((gemm_kernel_ir(cfg) + compiler_fingerprint()).encode()).hexdigest()[:16]
    return cache_dir() / f"{cfg.name}-{digest}.cubin"


@dataclass
class CompiledGemm:
    cfg: GemmConfig
    cubin: bytes
    seconds: dict[str, float] = field(default_factory=dict)


def compile_gemm(cfg: GemmConfig, use_cache: bool = True) -> CompiledGemm:
    """IR -> cubin for ``cfg`` (in process), through the disk cache."""
    import time

    cfg.check()
    path = cubin_path(cfg)
    if use_cache and path.exists():
        return CompiledGemm(cfg, path.read_bytes(), {"cache": 0.0})
    try:
        from tileorch.backend.compile import compile_text
    except ImportError as exc:  # pragma: no cover - the GPU machine without xDSL
        raise RuntimeError(f"no cached cubin for {cfg.name} at {path} and the compiler is not installed "
                           f"({exc}); compile it on a machine with tileorch's CPU dependencies") from None
    t0 = time.perf_counter()
    result = compile_text(gemm_kernel_ir(cfg), f"<{cfg.name}>")
    seconds = {"total": time.perf_counter() - t0, **result.timings}
    cubin = result.ptxas.cubin
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(cubin)
    tmp.replace(path)
    return CompiledGemm(cfg, cubin, seconds)


# --------------------------------------------------------------------------- problem setup


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def check_problem(m: int, n: int, k: int, cfg: GemmConfig) -> None:
    """TMA needs 16-byte aligned row strides: K (A, K-major B) and N (N-major B, C) multiples of 8."""
    if min(m, n, k) < 1:
        raise GemmConfigError(f"M, N, K must be positive, got {m}, {n}, {k}")
    if k % 8:
        raise GemmConfigError(f"K = {k} must be a multiple of 8 (TMA needs 16-byte row strides of A)")
    if n % 8:
        raise GemmConfigError(f"N = {n} must be a multiple of 8 (16-byte row strides of C and of N-major B)")
    if max(m, n, k) >= 2**31:
        raise GemmConfigError("M, N and K must each be below 2**31")


def scheduler_params(cfg: GemmConfig, m: int, n: int, k: int, sms: int, max_active_clusters: int = 0,
                     batch: int = 1):
    """The CUTLASS-exact host params of the configuration's scheduler.  ``max_active_clusters``
    (``cuOccupancyMaxActiveClusters``; 0 = unknown) sizes the persistent grid to the clusters
    that can be resident at once, as CUTLASS does: GPCs with an odd SM count cannot host a
    2-CTA cluster on every SM, and a cluster that must wait for a free pair would run as a
    second wave (fatal for Stream-K's balance)."""
    from tileorch import schedulers as S

    problem, tile, cluster = (m, n, k, batch), (cfg.tile_m, cfg.tile_n, cfg.tile_k), (cfg.cluster_m, 1)
    raster = S.RasterOrderOptions(cfg.raster)
    mac = max_active_clusters if cfg.cluster_m > 1 else 0
    if cfg.schedule == "streamk":
        return S.streamk_params(problem, tile, cluster, sms, raster=raster, max_swizzle=cfg.max_swizzle,
                                max_active_clusters=mac)
    if cfg.schedule == "dp":
        return S.data_parallel_params(problem, tile, cluster, raster=raster, max_swizzle=cfg.max_swizzle)
    return S.static_persistent_params(problem, tile, cluster, sms, raster=raster, max_swizzle=cfg.max_swizzle,
                                      max_active_clusters=mac)


def streamk_workspace_bytes(cfg: GemmConfig, m: int, n: int, k: int, sms: int,
                            max_active_clusters: int = 0, batch: int = 1) -> tuple[int, int]:
    from tileorch import schedulers as S

    sizes = S.workspace_sizes((m, n, k, batch), (cfg.tile_m, cfg.tile_n, cfg.tile_k), (cfg.cluster_m, 1), sms,
                              raster=S.RasterOrderOptions(cfg.raster), max_swizzle=cfg.max_swizzle,
                              mma_warp_groups=cfg.consumer_groups,
                              max_active_clusters=max_active_clusters if cfg.cluster_m > 1 else 0)
    return sizes.reduction, sizes.barrier


# --------------------------------------------------------------------------- tensor maps


def encode_tensor_map(ptr: int, dtype: str, dims: tuple[int, ...], row_bytes: tuple[int, ...],
                      box: tuple[int, ...]) -> bytes:
    """``cuTensorMapEncodeTiled`` (dims innermost first, 128B swizzle, zero out-of-bounds fill)."""
    from cuda.bindings import driver as cu

    u64, u32 = cu.cuuint64_t, cu.cuuint32_t
    dt = {"bf16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
          "f16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16}[dtype]
    err, tmap = cu.cuTensorMapEncodeTiled(
        dt, len(dims), ptr, [u64(d) for d in dims], [u64(s) for s in row_bytes], [u32(b) for b in box],
        [u32(1)] * len(dims), cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed ({err}) for dims={dims} strides={row_bytes} box={box}")
    return b"".join(int(x).to_bytes(8, "little") for x in tmap.opaque)


def tensor_maps(cfg: GemmConfig, a_ptr: int, b_ptr: int, c_ptr: int, m: int, n: int, k: int,
                batch: int = 1) -> tuple[bytes, bytes, bytes]:
    """A ``[64 K, 128 M]`` boxes, B ``[64 K, tile_n/cluster N]`` (K-major) or ``[64 N, 64 K]``
    (N-major), C ``[64 N, 64 M]`` (TMA epilogue; zeros for the direct one).  A batched
    configuration adds the batch dimension (contiguous ``[L, rows, cols]`` arrays, box extent 1)."""

    def tmap(ptr, dtype, dims, row_bytes, box):
        if cfg.batched:
            dims, row_bytes, box = (*dims, batch), (*row_bytes, row_bytes[0] * dims[1]), (*box, 1)
        return encode_tensor_map(ptr, dtype, dims, row_bytes, box)

    tma_a = tmap(a_ptr, cfg.dtype, (k, m), (k * 2,), (64, cfg.tile_m))
    if cfg.b_major == "k":
        tma_b = tmap(b_ptr, cfg.dtype, (k, n), (k * 2,), (64, cfg.tile_n // cfg.cluster_m))
    else:
        tma_b = tmap(b_ptr, cfg.dtype, (n, k), (n * 2,), (64, 64))
    tma_c = tmap(c_ptr, cfg.out_dtype, (n, m), (n * 2,), (64, 64)) if cfg.epilogue == "tma" else bytes(128)
    return tma_a, tma_b, tma_c


# --------------------------------------------------------------------------- launching


class GemmKernel:
    """A loaded GEMM configuration; :meth:`prepare` binds a problem, :meth:`PreparedGemm.launch` runs it."""

    def __init__(self, cfg: GemmConfig, cubin: bytes):
        from tileorch.runtime.module import Module

        self.cfg = cfg
        self.module = Module(cubin, label=cfg.name)
        self.kernel = self.module.kernel(cfg.name)
        self._opted_in = False

    def opt_in(self) -> None:
        from tileorch.runtime.launch import LaunchConfig, _prepare

        if not self._opted_in:
            _prepare(self.kernel, LaunchConfig.make((self.cfg.cluster_m, 1, 1), self.cfg.threads, (self.cfg.cluster_m, 1, 1), self.cfg.smem_bytes))
            self._opted_in = True

    def max_active_clusters(self) -> int:
        """``cuOccupancyMaxActiveClusters`` for this kernel's block, cluster and shared memory."""
        if getattr(self, "_mac", None) is None:
            from cuda.bindings import driver as drv

            from tileorch.runtime.driver import check

            self.opt_in()
            cfg = self.cfg
            config = drv.CUlaunchConfig()
            config.gridDimX, config.gridDimY, config.gridDimZ = cfg.cluster_m, 1, 1
            config.blockDimX, config.blockDimY, config.blockDimZ = cfg.threads, 1, 1
            config.sharedMemBytes = cfg.smem_bytes
            attr = drv.CUlaunchAttribute()
            attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cfg.cluster_m, 1, 1
            config.attrs = [attr]
            config.numAttrs = 1
            self._mac = int(check(drv.cuOccupancyMaxActiveClusters(self.kernel.function, config),
                                  "cuOccupancyMaxActiveClusters"))
        return self._mac

    def prepare(self, a_ptr: int, b_ptr: int, c_ptr: int, m: int, n: int, k: int, sms: int,
                workspace: Any = None, extra: list[bytes] = (), batch: int = 1) -> PreparedGemm:
        """Bind a problem; ``extra``: the parameter bytes a kernel with a compiled epilogue takes
        after the GEMM's own (the tile program's parameters, in order); ``batch``: L of a batched
        configuration."""
        return PreparedGemm(self, a_ptr, b_ptr, c_ptr, m, n, k, sms, workspace, extra, batch)


class PreparedGemm:
    """Everything one launch needs, packed once (tensor maps, params record on the device)."""

    def __init__(self, kernel: GemmKernel, a_ptr, b_ptr, c_ptr, m, n, k, sms, workspace_alloc, extra=(), batch=1):
        from tileorch.runtime.buffers import DeviceBuffer
        from tileorch.schedulers.device_params import pack_device_params

        cfg = kernel.cfg
        check_problem(m, n, k, cfg)
        kernel.opt_in()
        self.kernel = kernel
        mac = kernel.max_active_clusters() if cfg.cluster_m > 1 else 0
        if batch != 1 and not cfg.batched:
            raise GemmConfigError(f"batch = {batch} needs a batched configuration")
        p = scheduler_params(cfg, m, n, k, sms, mac, batch)
        self.grid = p.grid
        workspace_ptr, red, bar = 0, 0, 0
        self._keep: list[Any] = []
        if cfg.schedule == "streamk":
            red, bar = streamk_workspace_bytes(cfg, m, n, k, sms, mac, batch)
            if red + bar:
                ws = workspace_alloc(red + bar) if workspace_alloc else DeviceBuffer(red + bar)
                self._keep.append(ws)
                workspace_ptr = ws if isinstance(ws, int) else getattr(ws, "ptr", None) or ws.data_ptr()
                self.zero_bytes = (workspace_ptr + red, bar)
        record = pack_device_params(p, workspace_ptr, red, bar)  # passed by value (grid-constant)
        tma_a, tma_b, tma_c = tensor_maps(cfg, a_ptr, b_ptr, c_ptr, m, n, k, batch)
        args = [tma_a, tma_b, tma_c, struct.pack("<Q", c_ptr), struct.pack("<i", m), struct.pack("<i", n),
                struct.pack("<i", k), record, *extra]
        self._storage = [ctypes.create_string_buffer(a, len(a)) for a in args]
        self._pointers = (ctypes.c_void_p * len(args))(*[ctypes.addressof(s) for s in self._storage])
        self._config = self._launch_config()

    def _launch_config(self):
        from cuda.bindings import driver as drv

        cfg = self.kernel.cfg
        config = drv.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = self.grid
        config.blockDimX, config.blockDimY, config.blockDimZ = cfg.threads, 1, 1
        config.sharedMemBytes = cfg.smem_bytes
        attr = drv.CUlaunchAttribute()
        attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cfg.cluster_m, 1, 1
        config.attrs = [attr]
        config.numAttrs = 1
        return config

    def launch(self, stream: int = 0) -> None:
        """Enqueue one launch on ``stream`` (no synchronisation); Stream-K zeroes its locks first."""
        from cuda.bindings import driver as drv

        from tileorch.runtime.driver import check

        if self.kernel.cfg.schedule == "streamk" and getattr(self, "zero_bytes", None):
            ptr, nbytes = self.zero_bytes
            check(drv.cuMemsetD8Async(ptr, 0, nbytes, drv.CUstream(stream)), "cuMemsetD8Async(stream-K locks)")
        self._config.hStream = drv.CUstream(stream)
        check(drv.cuLaunchKernelEx(self._config, self.kernel.kernel.function, ctypes.addressof(self._pointers), 0),
              f"cuLaunchKernelEx({self.kernel.cfg.name}, grid={self.grid})")
