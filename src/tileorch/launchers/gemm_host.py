"""Host side of the GEMM: compile (and cache) a configuration, build tensor maps and scheduler
params for a problem, launch.

Importing this module needs neither xDSL nor a GPU; compiling needs xDSL (the CPU side),
launching needs cuda-python and an sm_90 GPU.  Compiled cubins are kept in the one on-disk
cache (:mod:`tileorch.cache`, keyed by the configuration, the compiler's sources and ptxas),
so a machine without xDSL can run configurations compiled elsewhere.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError
from tileorch.launchers import launch_copies


def cache_key(cfg: GemmConfig) -> str:
    """The configuration's key in :mod:`tileorch.cache`: the kernel text is a function of the
    configuration and the compiler's sources (both in the key), so the configuration stands in
    for the text (no template rendering to look a cubin up)."""
    from tileorch import cache

    return cache.make_key("gemm", repr(cfg))


def cubin_path(cfg: GemmConfig) -> Path:
    """Where the configuration's cubin is (or will be) cached."""
    from tileorch import cache

    return cache.entry_dir(cache_key(cfg)) / "kernel.cubin"


def _cluster_launch_config(drv: Any, cfg: GemmConfig, grid: tuple[int, int, int], pdl: bool = False) -> Any:
    """A ``CUlaunchConfig`` of the GEMM kernel ``cfg`` on ``grid``: its threads, shared memory and
    its ``cluster_m x 1 x 1`` cluster attribute (set even for 1-CTA clusters, as the occupancy
    query and the launch both expect); ``pdl``: programmatic stream serialization too (a kernel compiled
    with ``griddepcontrol.wait`` only, ``TILEORCH_PDL=1``)."""
    config = drv.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = cfg.threads, 1, 1
    config.sharedMemBytes = cfg.smem_bytes
    attr = drv.CUlaunchAttribute()
    attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cfg.cluster_m, 1, 1
    attrs = [attr]
    if pdl:
        serial = drv.CUlaunchAttribute()
        serial.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        serial.value.programmaticStreamSerializationAllowed = 1
        attrs.append(serial)
    config.attrs = attrs
    config.numAttrs = len(attrs)
    return config


@dataclass
class CompiledGemm:
    """A GEMM configuration's cubin and each compile phase's seconds (``{"cache": s}`` from the cache)."""

    cfg: GemmConfig
    cubin: bytes
    seconds: dict[str, float] = field(default_factory=dict)
    pdl: bool = False
    """Compiled for programmatic dependent launch (``TILEORCH_PDL=1``: the kernel waits before its first global
    access; the cache entry's record says so): :class:`GemmKernel` launches it with the attribute."""


def compile_gemm(cfg: GemmConfig, use_cache: bool = True) -> CompiledGemm:
    """``cfg``'s tile program (:func:`tileorch.launchers.gemm_program.gemm_program`) through the TileAS
    tier and the backend -> cubin (in process), through the disk cache (:mod:`tileorch.cache`;
    ``use_cache=False`` skips the lookup, the result is stored all the same); ``seconds`` holds
    the compile's phases (``import``: the compiler's modules; ``tier``: the tile program to the
    kernel's IR, with ``tier/<pass>`` per pass; then the backend's) and ``total``."""
    import time

    from tileorch import cache

    cfg.check()
    store = cache.enabled()  # ``use_cache=False`` compiles anew but still stores the result
    key = cache_key(cfg) if store else ""
    if use_cache and store:
        t0 = time.perf_counter()
        entry = cache.load(key)
        if entry is not None and entry.meta.get("kind") == "gemm" and entry.files.get("kernel.cubin"):
            return CompiledGemm(cfg, entry.files["kernel.cubin"], {"cache": time.perf_counter() - t0},
                                pdl=bool(entry.meta.get("pdl", False)))
    from tileorch import timing
    from tileorch.dataclass_code import reading

    # the compiler's dataclasses on a first compile (tileorch.dataclass_code); the timing scope
    # covers the compiler's imports (``import``: a first compile's largest phase, as in
    # ``tileorch compile --timings``), so that the phases account for the compile's time
    with reading(), timing.collect() as timer:
        try:
            with timing.timed("import"):
                from tileorch.driver import compile_module
                from tileorch.launchers.gemm_program import lower_gemm
        except ImportError as exc:  # pragma: no cover - the GPU machine without xDSL
            raise RuntimeError(f"no cached cubin for {cfg.name} at {cubin_path(cfg)} and the compiler is not installed "
                               f"({exc}); compile it on a machine with tileorch's CPU dependencies") from None
        with timing.timed("tier"):
            module = lower_gemm(cfg)  # the tile program through the TileAS tier
        # isolated code generation, as tileorch.cutile.launch compiles: LLVM runs in a forked child
        # (an abort is an error, not the end of the caller's process) while this process verifies
        # the lowered module, and ptxas starts as soon as the PTX is there.  kind="gemm": the
        # module is the tier's own lowering of a verified tile program (as the cuTile route's
        # kind says), so the backend verifies it once, after its pipeline, not also before it
        result = compile_module(module, isolate=True, kind="gemm")
    seconds = timer.as_dict()
    cubin = result.ptxas.cubin
    pdl = bool(getattr(result, "pdl", None))  # (the kernels compiled for PDL: TILEORCH_PDL=1)
    if store:
        cache.store(key, {"kind": "gemm", "config": cfg.name, **({"pdl": True} if pdl else {})}, {"kernel.cubin": cubin})
    return CompiledGemm(cfg, cubin, seconds, pdl=pdl)


# --------------------------------------------------------------------------- problem setup


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def check_problem(m: int, n: int, k: int, cfg: GemmConfig) -> None:
    """Sizes the kernel can index (row strides TMA cannot take are staged: :class:`StagingPlan`)."""
    if min(m, n, k) < 1:
        raise GemmConfigError(f"M, N, K must be positive, got {m}, {n}, {k}")
    if max(m, n, k) >= 2**31:
        raise GemmConfigError("M, N and K must each be below 2**31")


ESIZE = {"f16": 2, "bf16": 2, "f32": 4, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1, "s32": 4}


@dataclass(frozen=True)
class OperandRows:
    """One operand as TMA reads it: ``rows`` rows (all matrices of a batch) of ``width`` bytes
    at ``ptr``, row-major and contiguous (the launcher checked), so its pitch is ``width``, unless
    ``stride`` gives another (a C that is a column slice of a wider array)."""

    name: str
    ptr: int
    rows: int
    width: int
    stride: int = 0
    """The row stride in bytes when it is not ``width`` (C a column slice of a wider array:
    ``GemmConfig.c_ld``); 0: ``width``."""
    pair: int = 0
    """C's bytes per column pair (two elements): the direct epilogue stores each thread's two adjacent
    columns with one store guarded by the first column alone (``atom.store_fragment``), so a row that ends
    mid-pair (an odd number of columns) has the element after its last one written; 0: not C."""

    @property
    def pitch(self) -> int:
        """The bytes from one row to the next in the array itself."""
        return self.stride or self.width

    @property
    def tma_ok(self) -> bool:
        """TMA needs a 16-byte aligned base and a row stride that is a multiple of 16 bytes."""
        return self.ptr % 16 == 0 and self.pitch % 16 == 0

    @property
    def ends_mid_pair(self) -> bool:
        """C's rows end inside a column pair (odd columns): only the possible case in place is a column slice
        of a wider array (a dense C whose pitch TMA takes has whole pairs), whose next column the pair store
        would overwrite."""
        return bool(self.pair) and self.width % self.pair != 0

    @property
    def in_place(self) -> bool:
        """The kernel may address the operand where it is: :attr:`tma_ok`, and C's rows of whole column pairs."""
        return self.tma_ok and not self.ends_mid_pair

    @property
    def padded_pitch(self) -> int:
        return -(-self.width // 16) * 16


def operand_rows(cfg: GemmConfig, a_ptr: int, b_ptr: int, c_ptr: int, m: int, n: int, k: int,
                 batch: int = 1, more_b: tuple[int, ...] = (), ldc: int = 0,
                 c_cols: int = 0, operand_batches: tuple[int, int] = (),
                 more_a: tuple[int, ...] = (), seg_k: tuple[int, ...] = (),
                 mid_ld: tuple[int, int, int] = ()) -> tuple[OperandRows, ...]:
    """A, B, C as row sets: A ``[M, K]`` (``[K, M]`` M-major), B ``[N, K]`` (K-major) or ``[K, N]``,
    C ``[M, N]``, then the other B operands (``more_b``: ``B1``, ``B2``, ... laid out as B) of a
    configuration with ``b_operands > 1``; a batched problem stacks its L matrices' rows; ``ldc``: C's
    row stride in elements when C is a column slice of a wider array (``cfg.c_ld``), 0 for N; ``c_cols``:
    C's columns when they are not N (a program-grid kernel storing its tiles at columns it computes,
    into an output wider than B), 0 for N; ``operand_batches``: (A's, B's) matrix counts when they are
    not C's ``batch`` (a kernel reading each operand at its own batch index per work tile); ``more_a``: the other A
    operands (``A1``, ``A2``, ... laid out as A) of a configuration with ``a_operands > 1``, after them; ``seg_k``:
    the K of each later pair's A and B (``cfg.k_segments``; default: K); ``mid_ld``: the row strides in elements of
    A, B and C when batched in their middle dimension (``cfg.batch_mid``: an ``[rows, L, cols]`` array's own, e.g.
    ``X[:, j:j + L, :]`` of a wider middle dimension; 0: ``L cols``)."""
    es, eo = ESIZE[cfg.dtype], ESIZE[cfg.out_dtype]
    lda, ldb, ldc_mid = tuple(mid_ld) or (0, 0, 0)

    la, nb = operand_batches or (batch, 1 if getattr(cfg, "b_shared", False) else batch)  # one B for every batch

    mid = getattr(cfg, "batch_mid", "") if cfg.batched else ""  # [rows, L, cols] arrays: rows of L matrices' rows

    def rows_of(name, ptr, rows, width, count, e):
        # (a batched operand's L matrices stacked, or, batched in its middle dimension, rows of L rows side by side,
        # the array's own row stride apart)
        ld = {"A": lda, "B": ldb}.get(name, 0) * e
        return OperandRows(name, ptr, rows, width * count, ld if ld != width * count else 0) if _is_mid(cfg, name) \
            else OperandRows(name, ptr, rows * count, width)

    def b_rows(name, ptr, es=ESIZE[getattr(cfg, "b_raw", "") or cfg.dtype], k=k):  # a computed B: its raw array
        return rows_of(name, ptr, n, k * es, nb, es) if cfg.b_major == "k" else rows_of(name, ptr, k, n * es, nb, es)

    ea = ESIZE[getattr(cfg, "a_raw", "") or cfg.dtype]  # a computed A: its raw array
    def a_rows(name, ptr, k=k):
        return rows_of(name, ptr, m, k * ea, la, ea) if cfg.a_major == "k" else rows_of(name, ptr, k, m * ea, la, ea)

    ks = tuple(seg_k) or (k,) * max(len(more_a), len(more_b))
    a = a_rows("A", a_ptr)
    more = (*(b_rows(f"B{i}", ptr, k=ks[i - 1]) for i, ptr in enumerate(more_b, start=1)),
            *(a_rows(f"A{i}", ptr, ks[i - 1]) for i, ptr in enumerate(more_a, start=1)))
    nc = c_cols or n
    pair = 0 if cfg.epilogue == "tma" else 2 * eo  # (TMA's stores stop at the map's last column)
    c = OperandRows("C", c_ptr, m, batch * nc * eo, ldc_mid * eo if ldc_mid and ldc_mid != batch * nc else 0,
                    pair) if "c" in mid else \
        OperandRows("C", c_ptr, m * batch, nc * eo, ldc * eo if ldc and ldc != nc else 0, pair)
    if getattr(cfg, "a_gather", False):  # a gathered A: read by the kernel's own loads, never through TMA
        return (b_rows("B", b_ptr), c, *more)
    return (a, b_rows("B", b_ptr), c, *more)


def staging_reasons(cfg: GemmConfig, a_ptr: int, b_ptr: int, c_ptr: int, m: int, n: int, k: int,
                    batch: int = 1, more_b: tuple[int, ...] = (), ldc: int = 0, c_cols: int = 0,
                    operand_batches: tuple[int, int] = (), more_a: tuple[int, ...] = (),
                    seg_k: tuple[int, ...] = (), mid_ld: tuple[int, int, int] = ()) -> list[str]:
    """Why operands of this problem go through padded copies (empty: TMA reads them in place; a gathered A,
    read by the kernel's own loads, never)."""
    out = []
    for op in operand_rows(cfg, a_ptr, b_ptr, c_ptr, m, n, k, batch, more_b, ldc, c_cols, operand_batches, more_a,
                           seg_k, mid_ld):
        if op.in_place:
            continue
        why = (f"row stride {op.pitch} bytes is not a multiple of 16" if op.pitch % 16
               else f"base address 0x{op.ptr:x} is not 16-byte aligned" if op.ptr % 16
               else f"its rows end inside a pair of columns ({op.width // (op.pair // 2)}, odd), which the "
                    "kernel stores together (the column after a slice's last would be written)")
        how = ("written to a padded buffer and copied out" if op.name == "C" else "TMA reads a padded copy")
        out.append(f"{op.name}: {why}; {how} (one extra pass over {op.name})")
    return out


class StagingPlan:
    """Operands TMA cannot address in place (row stride not a multiple of 16 bytes, e.g. K = 700
    in f16, or an unaligned base) go through padded device copies: inputs are copied in
    (``cuMemcpy2DAsync``, pitch rounded up to 16 bytes) before the kernel, C is written padded
    and copied out after it.  ``reasons`` says what was staged (the launcher reports it)."""

    def __init__(self, cfg: GemmConfig, a_ptr, b_ptr, c_ptr, m, n, k, batch, more_b: tuple[int, ...] = (),
                 ldc: int = 0, c_cols: int = 0, operand_batches: tuple[int, int] = (), more_a: tuple[int, ...] = (),
                 seg_k: tuple[int, ...] = (), mid_ld: tuple[int, int, int] = ()):
        self.copies_in: list[tuple[int, int, int, int, int, int]] = []  # src, src pitch, dst, dst pitch, width, rows
        self.copies_out: list[tuple[int, int, int, int, int, int]] = []
        self.pitch: dict[str, int] = {}
        self.ptr: dict[str, int] = {}
        batch = batch if cfg.batched else 1  # a grid_l problem's L splits the work, not the arrays
        counts = operand_batches if cfg.batched else ()
        # C addressed in place by the tier's own stores (atomic adds, transposed stores): never staged
        c_in_place = cfg.epilogue == "atomic" or getattr(cfg, "c_transposed", False)
        self.reasons = [r for r in staging_reasons(cfg, a_ptr, b_ptr, c_ptr, m, n, k, batch, more_b, ldc, c_cols,
                                                   counts, more_a, seg_k, mid_ld)
                        if not (c_in_place and r.startswith("C:"))]
        self._buffers: list[Any] = []
        self.pitch["A"], self.ptr["A"] = 0, a_ptr  # (a gathered A has no rows here: its pointer as it is)
        for op in operand_rows(cfg, a_ptr, b_ptr, c_ptr, m, n, k, batch, more_b, ldc, c_cols, counts, more_a, seg_k,
                               mid_ld):
            if op.in_place or (op.name == "C" and c_in_place):  # the program's stores address C itself
                self.pitch[op.name], self.ptr[op.name] = op.pitch, op.ptr
                continue
            from tileorch.runtime.buffers import DeviceBuffer

            buf = DeviceBuffer(op.padded_pitch * op.rows)
            self._buffers.append(buf)
            self.pitch[op.name], self.ptr[op.name] = op.padded_pitch, buf.ptr
            if op.name == "C":  # (only C's own columns copied out: a slice's neighbours stay as they are)
                self.copies_out.append((buf.ptr, op.padded_pitch, op.ptr, op.pitch, op.width, op.rows))
            else:
                self.copies_in.append((op.ptr, op.pitch, buf.ptr, op.padded_pitch, op.width, op.rows))

    def cover_part_of_c(self) -> None:
        """The launch covers part of C (a launch grid shorter than C's tiles, ``sched_mn``): the kernel stores the
        covered tiles of a padded C only and the whole buffer is copied out, so C (or the caller's scratch, by a
        copy in the caller put before this one) is copied into the padded C first: C's uncovered parts come back
        unchanged (review of session 43: they were the buffer's uninitialised bytes).  Said in the C reason."""
        c_staged = [c for c in self.copies_out if c[0] == self.ptr.get("C")]
        if not c_staged:
            return
        self.copies_in.extend(launch_copies.reversed_copies(c_staged))
        self.reasons = [r + "; C copied into it first: the launch covers part of C" if r.startswith("C:") else r
                        for r in self.reasons]

    def warn(self, label: str, extra: list[str] = ()) -> None:
        """One ``PerformanceWarning`` naming ``label`` and every staged operand (and ``extra``
        reasons from the caller), attributed to the user's call (the first frame outside tileorch); nothing when
        nothing was staged."""
        reasons = [*self.reasons, *extra]
        if reasons:
            import warnings

            from tileorch.diagnostics import PerformanceWarning, user_stacklevel

            warnings.warn(f"{label}: " + "; ".join(reasons), PerformanceWarning, stacklevel=user_stacklevel())


def scheduler_params(cfg: GemmConfig, m: int, n: int, k: int, sms: int, max_active_clusters: int = 0,
                     batch: int = 1):
    """The CUTLASS-exact host params of the configuration's scheduler.  ``max_active_clusters``
    (``cuOccupancyMaxActiveClusters``; 0 = unknown) sizes the persistent grid to the clusters
    that can be resident at once, as CUTLASS does: GPCs with an odd SM count cannot host a
    2-CTA cluster on every SM, and a cluster that must wait for a free pair would run as a
    second wave (fatal for Stream-K's balance)."""
    from tileorch import schedulers as S

    problem, tile, cluster = (m, n, k, batch), (cfg.tile_m, cfg.out_tile_n, cfg.tile_k), (cfg.cluster_m, 1)
    raster = S.RasterOrderOptions(cfg.raster)
    mac = max_active_clusters if cfg.cluster_m > 1 else 0
    if cfg.schedule == "streamk":
        return S.streamk_params(problem, tile, cluster, sms, raster=raster, max_swizzle=cfg.max_swizzle,
                                max_active_clusters=mac)
    if cfg.schedule == "dp":
        return S.data_parallel_params(problem, tile, cluster, raster=raster, max_swizzle=cfg.max_swizzle)
    return S.static_persistent_params(problem, tile, cluster, sms, raster=raster, max_swizzle=cfg.max_swizzle,
                                      max_active_clusters=mac)


def epi_tiles_per_cta(cfg: GemmConfig, m: int, n: int, sms: int, choice: str = "auto") -> int:
    """The N tiles of C each work tile of a kernel looping over N tiles covers (``cfg.epi_loop``: the kernel's
    ``epi_c``); 1 for every other kernel.  ``choice``: ``"auto"`` splits each row of ``ceil(N / epi_n)`` N tiles into
    ``max(1, sms // M tiles)`` groups (the work tiles fill the SMs in one wave: every row whole once the M tiles
    alone do), ``"off"`` is 1 (each work tile one N tile, the first dot recomputed per N tile), an integer is that
    many (at most the row's N tiles)."""
    if not cfg.epi_loop:
        return 1
    n_tiles, m_tiles = ceil_div(n, cfg.epi_n), ceil_div(m, cfg.tile_m)
    if choice == "off":
        return 1
    if choice != "auto":
        return max(1, min(int(choice), n_tiles))
    groups = min(n_tiles, max(1, sms // m_tiles))
    return ceil_div(n_tiles, groups)


def epi_scheduler_n(cfg: GemmConfig, n: int, epi_c: int) -> int:
    """The N the scheduler walks for a kernel looping over ``epi_c`` N tiles per work tile (``cfg.epi_loop``): one
    ``epi_n`` column tile per ``epi_c`` of C's ``ceil(N / epi_n)``; ``n`` itself for every other kernel."""
    return ceil_div(ceil_div(n, cfg.epi_n), epi_c) * cfg.epi_n if getattr(cfg, "epi_loop", False) else n


def check_cluster_grid(cfg: GemmConfig, grid: tuple[int, int, int], sms: int) -> None:
    """Refuse a scheduler grid that is not a whole number of clusters (CUDA would refuse the launch).

    CUTLASS's ``get_grid_shape`` walking along M puts ``SMs // cluster_n`` CTAs along x; with fewer
    than 18 SMs (one GH100 GPC) that count need not be a multiple of ``cluster_m``.  (Those are also
    the only grids on which CUTLASS's workspace sizing can fall short of its params.)"""
    if grid[0] % cfg.cluster_m:
        raise GemmConfigError(f"{cfg.name} on {sms} SMs: the scheduler's grid {list(grid)} is not a whole number "
                              f"of {cfg.cluster_m}x1 clusters; use cluster_m = 1 or more SMs")


def streamk_workspace_bytes(cfg: GemmConfig, m: int, n: int, k: int, sms: int,
                            max_active_clusters: int = 0, batch: int = 1, params=None) -> tuple[int, int]:
    """(reduction, barrier) bytes: CUTLASS's ``get_workspace_size`` split, raised where ``params``
    (the launch's stream-K params) address more (``schedulers.workspace.sufficient_workspace_sizes``:
    a CUTLASS under-allocation), with a warning naming both sizes."""
    from tileorch import schedulers as S
    from tileorch.schedulers.workspace import sufficient_workspace_sizes

    tile = (cfg.tile_m, cfg.tile_n, cfg.tile_k)
    sizes = S.workspace_sizes((m, n, k, batch), tile, (cfg.cluster_m, 1), sms,
                              raster=S.RasterOrderOptions(cfg.raster), max_swizzle=cfg.max_swizzle,
                              mma_warp_groups=cfg.consumer_groups,
                              max_active_clusters=max_active_clusters if cfg.cluster_m > 1 else 0)
    if params is not None:
        enough = sufficient_workspace_sizes(params, sizes, tile, mma_warp_groups=cfg.consumer_groups)
        if enough != sizes:
            import warnings

            warnings.warn(f"{cfg.name}: CUTLASS's stream-K workspace size ({sizes.reduction} + {sizes.barrier} bytes) "
                          f"is smaller than its params address; allocating {enough.reduction} + {enough.barrier}",
                          stacklevel=2)
        sizes = enough
    return sizes.reduction, sizes.barrier


# --------------------------------------------------------------------------- tensor maps


def encode_tensor_map(ptr: int, dtype: str, dims: tuple[int, ...], row_bytes: tuple[int, ...],
                      box: tuple[int, ...], swizzle: int = 128) -> bytes:
    """``cuTensorMapEncodeTiled`` (dims innermost first, a ``swizzle``-byte swizzle: 128, 64 or 32,
    whose span the box's contiguous extent must not exceed, or 0: none; zero out-of-bounds fill)."""
    from cuda.bindings import driver as cu

    u64, u32 = cu.cuuint64_t, cu.cuuint32_t
    dt = {"bf16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
          "f16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
          "f32": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
          "tf32": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
          "e4m3": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8,
          "e5m2": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8,
          "s8": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8,  # TMA moves bytes: signedness is WGMMA's
          "u8": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8,
          "s32": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_INT32}[dtype]
    err, tmap = cu.cuTensorMapEncodeTiled(
        dt, len(dims), ptr, [u64(d) for d in dims], [u64(s) for s in row_bytes], [u32(b) for b in box],
        [u32(1)] * len(dims), cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(cu.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{swizzle}B" if swizzle else "CU_TENSOR_MAP_SWIZZLE_NONE"),
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed ({err}) for dims={dims} strides={row_bytes} box={box}")
    return b"".join(int(x).to_bytes(8, "little") for x in tmap.opaque)


def _is_mid(cfg: GemmConfig, name: str) -> bool:
    """Whether operand ``name`` (``A``, ``B``, ``C``, ``A1``...) is batched in its array's middle dimension
    (``cfg.batch_mid``: ``[rows, L, cols]``)."""
    return bool(cfg.batched) and name[:1].lower() in getattr(cfg, "batch_mid", "")


def batched_map(cfg: GemmConfig, name: str, dims: tuple[int, int], pitch: int | None, box: tuple[int, int],
                es: int, count: int, batch_pitch: int = 0,
                row_pitch: int = 0) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(dims, byte strides, box) of operand ``name``'s tensor map, innermost first: ``dims`` (its contiguous extent,
    then its rows) with ``pitch`` bytes between rows (None: the array's own); a batched configuration adds the batch
    dimension of ``count`` matrices, box extent 1.  Matrices stacked (``[L, rows, cols]``): rows ``cols * es`` bytes
    apart, matrices ``rows`` rows apart; batched in the middle dimension (``[rows, L, cols]``, :func:`_is_mid`): rows
    ``L * cols * es`` bytes apart, matrices ``cols * es`` bytes apart (a staged copy's padded pitch replaces the
    row pitch; the matrices stay ``cols * es`` apart in it).  ``batch_pitch``: the bytes from one matrix to the next
    when they are not stacked (a strided batch, e.g. every other matrix of a larger array: its own batch stride,
    read in place; 0: stacked); ``row_pitch``: the bytes between a strided batch's rows where they are not
    ``cols`` apart (a ``transpose(0, 1)`` view of ``[rows, L, cols]`` storage; read in place; 0: ``cols``)."""
    mid = _is_mid(cfg, name)
    row = pitch if pitch is not None else dims[0] * es * (count if mid else 1)
    if not cfg.batched:
        return dims, (row,), box
    if (batch_pitch or row_pitch) and (mid or pitch is not None and pitch != dims[0] * es):
        raise GemmConfigError(f"{name}: a strided batch ({batch_pitch} bytes between matrices, rows "
                              f"{row_pitch or 'cols'} bytes apart) is read in place only: not batched in its middle "
                              "dimension, not through a staged copy")
    if row_pitch and not batch_pitch:
        raise GemmConfigError(f"{name}: rows {row_pitch} bytes apart are a strided batch's (batch_pitch) only")
    row = row_pitch or row
    return (*dims, count), (row, batch_pitch or (dims[0] * es if mid else row * dims[1])), (*box, 1)


def tensor_maps(cfg: GemmConfig, a_ptr: int, b_ptr: int, c_ptr: int, m: int, n: int, k: int,
                batch: int = 1, pitch: dict[str, int] | None = None, c_cols: int = 0,
                operand_batches: tuple[int, int] = (), batch_pitch: dict[str, int] | None = None,
                row_pitch: dict[str, int] | None = None) -> tuple[bytes, bytes, bytes]:
    """A ``[tile_k K, tile_m M]`` boxes (``[64 M, tile_k K]`` when A is stored ``[K, M]``), B
    ``[tile_k K, tile_n/cluster N]`` (K-major) or ``[64 N, tile_k K]`` (N-major), C ``[64 N, 64 M]``
    (TMA epilogue; zeros for the direct one); a K-major box swizzled by its K row
    (``cfg.k_row_bytes``), the others by 128 bytes.  A batched configuration adds the batch
    dimension (contiguous ``[L, rows, cols]`` arrays, box extent 1): L = ``batch`` matrices, A's and
    B's ``operand_batches`` when given (each operand's own count); ``batch_pitch``: A's and B's bytes between
    matrices where they are not stacked (a strided batch, :func:`batched_map`); ``row_pitch``: their bytes between
    rows where not ``cols`` apart (a strided batch's, read in place)."""

    pitch, bp, rp = pitch or {}, batch_pitch or {}, row_pitch or {}
    es = ESIZE[cfg.dtype]
    la, lb = operand_batches or (batch, 1 if getattr(cfg, "b_shared", False) else batch)

    def tmap(ptr, dtype, dims, row_bytes, box, name, swizzle=128):
        count = la if name == "A" else batch
        dims, row_bytes, box = batched_map(cfg, name, dims, pitch.get(name), box, row_bytes[0] // dims[0], count,
                                           bp.get(name, 0), rp.get(name, 0))
        return encode_tensor_map(ptr, dtype, dims, row_bytes, box, swizzle)

    a_raw = getattr(cfg, "a_raw", "")
    if getattr(cfg, "a_gather", False):  # a gathered A: no A map is read (B's, a valid one, stands in its place)
        tma_a = b_tensor_map(cfg, b_ptr, n, k, lb, pitch, "B", batch_pitch=bp.get("B", 0), row_pitch=rp.get("B", 0))
    elif a_raw:  # a computed A: its raw array in boxes unswizzled, or swizzled by their row (GemmConfig.a_raw_swizzle)
        ra = ESIZE[a_raw]
        dims, row_bytes = ((k, m), (k * ra,)) if cfg.a_major == "k" else ((m, k), (m * ra,))
        box = (cfg.a_raw_chunk_columns, cfg.tile_m if cfg.a_major == "k" else cfg.tile_k)
        tma_a = tmap(a_ptr, a_raw, dims, row_bytes, box, "A", getattr(cfg, "a_raw_swizzle", 0))
    else:
        tma_a = a_tensor_map(cfg, a_ptr, m, k, la if cfg.batched else 1, pitch, "A", bp.get("A", 0), rp.get("A", 0))
    tma_b = b_tensor_map(cfg, b_ptr, n, k, lb, pitch, "B", batch_pitch=bp.get("B", 0), row_pitch=rp.get("B", 0))
    nc = c_cols or n  # C's columns (a program-grid kernel's C may be wider than B)
    tma_c = tmap(c_ptr, cfg.out_dtype, (nc, m), (nc * ESIZE[cfg.out_dtype],), (64, 64), "C") \
        if cfg.epilogue == "tma" else bytes(128)
    return tma_a, tma_b, tma_c


def a_tensor_map(cfg: GemmConfig, a_ptr: int, m: int, k: int, batch: int = 1, pitch: dict[str, int] | None = None,
                 name: str = "A", batch_pitch: int = 0, row_pitch: int = 0) -> bytes:
    """The tensor map of an A operand as loaded (``name``: ``A``, or ``A1``... for the other A operands of an
    ``a_operands > 1`` configuration, laid out as A): ``[tile_k K, tile_m M]`` boxes swizzled by
    ``cfg.k_row_bytes`` (A ``[M, K]``) or ``[64 M, tile_k K]`` (A stored ``[K, M]``, 128-byte swizzle); a
    batched configuration's ``batch`` matrices; its pitch from ``pitch[name]`` when staged."""
    es = ESIZE[cfg.dtype]
    if cfg.a_major == "k":
        dims, row_bytes, box, swizzle = (k, m), (k * es,), (cfg.tile_k, cfg.tile_m), cfg.k_row_bytes
    else:  # A stored [K, M]: 64 M x tile_k K boxes
        dims, row_bytes, box, swizzle = (m, k), (m * es,), (64, cfg.tile_k), 128
    dims, row_bytes, box = batched_map(cfg, name, dims, (pitch or {}).get(name), box, es, batch, batch_pitch,
                                       row_pitch)
    return encode_tensor_map(a_ptr, cfg.dtype, dims, row_bytes, box, swizzle)


def b_tensor_map(cfg: GemmConfig, b_ptr: int, n: int, k: int, batch: int = 1, pitch: dict[str, int] | None = None,
                 name: str = "B", tile_n: int = 0, batch_pitch: int = 0, row_pitch: int = 0) -> bytes:
    """The tensor map of a B operand (``name``: ``B``, or ``B1``... for the other B operands of a
    ``b_operands > 1`` configuration, laid out as B): ``[tile_k K, tile_n/cluster N]`` boxes (K-major,
    swizzled by ``cfg.k_row_bytes``) or ``[64 N, tile_k K]`` (N-major, 128-byte swizzle); its pitch
    from ``pitch[name]`` when staged."""
    b_raw = getattr(cfg, "b_raw", "")
    if b_raw:  # a computed B: its raw array in unswizzled boxes (GemmConfig.b_raw)
        es = ESIZE[b_raw]
        dims, row_bytes = ((k, n), (k * es,)) if cfg.b_major == "k" else ((n, k), (n * es,))
        box = (cfg.raw_chunk_columns, cfg.tile_n if cfg.b_major == "k" else cfg.tile_k)
        dims, row_bytes, box = batched_map(cfg, name, dims, (pitch or {}).get(name), box, es, batch, batch_pitch,
                                           row_pitch)
        return encode_tensor_map(b_ptr, b_raw, dims, row_bytes, box, 0)
    es = ESIZE[cfg.dtype]
    if cfg.b_major == "k":
        dims, row_bytes, box = (k, n), (k * es,), (cfg.tile_k, (tile_n or cfg.tile_n) // cfg.cluster_m)
        swizzle = cfg.k_row_bytes
    else:
        dims, row_bytes, box = (n, k), (n * es,), (64, cfg.tile_k)
        swizzle = 128
    dims, row_bytes, box = batched_map(cfg, name, dims, (pitch or {}).get(name), box, es, batch, batch_pitch,
                                       row_pitch)
    return encode_tensor_map(b_ptr, cfg.dtype, dims, row_bytes, box, swizzle)


def epi_tensor_map(cfg: GemmConfig, e_ptr: int, r: int, n: int) -> bytes:
    """The tensor map of a second dot's B (``cfg.epi_n``): E ``[R, N]`` row-major, boxes of 64 N columns x
    ``cfg.epi_k`` rows (the first dot's N, or a low-rank branch's rank), 128-byte swizzle (an N-major operand, as
    the kernel's descriptors); a K-major E (``cfg.epi_major == "k"``) ``[N, R]`` row-major, boxes of 64 R
    columns (one 128-byte swizzled K row) x ``epi_n`` rows."""
    es = ESIZE[cfg.dtype]
    if getattr(cfg, "epi_major", "n") == "k":
        return encode_tensor_map(e_ptr, cfg.dtype, (r, n), (r * es,), (64, cfg.epi_n), 128)
    return encode_tensor_map(e_ptr, cfg.dtype, (n, r), (n * es,), (64, cfg.epi_k), 128)


# --------------------------------------------------------------------------- launching


class GemmKernel:
    """A loaded GEMM configuration; :meth:`prepare` binds a problem, :meth:`PreparedGemm.launch` runs it."""

    def __init__(self, cfg: GemmConfig, cubin: bytes, pdl: bool = False):
        from tileorch.runtime.module import Module

        self.cfg = cfg
        self.module = Module(cubin, label=cfg.name)
        self.kernel = self.module.kernel(cfg.name)
        self.kernel.pdl = bool(pdl)  # compiled with griddepcontrol.wait (TILEORCH_PDL=1): the program's pdl
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
            config = _cluster_launch_config(drv, cfg, (cfg.cluster_m, 1, 1))
            self._mac = int(check(drv.cuOccupancyMaxActiveClusters(self.kernel.function, config),
                                  "cuOccupancyMaxActiveClusters"))
        return self._mac

    def prepare(self, a_ptr: int, b_ptr: int, c_ptr: int, m: int, n: int, k: int, sms: int,
                workspace: Any = None, extra: list[bytes] = (), batch: int = 1,
                more_b: tuple[int, ...] = (), grid: tuple[int, int, int] | None = None,
                sched_l: int | None = None, ldc: int = 0, c_cols: int = 0,
                operand_batches: tuple[int, int] = (), epi: tuple[int, int] | None = None,
                epi_c: int = 1, more_a: tuple[int, ...] = (), seg_k: tuple[int, ...] = (),
                sched_mn: tuple[int, int] | None = None, mid_ld: tuple[int, int, int] = (),
                batch_pitch: tuple[int, ...] = (), copies_in: tuple = (), keep: tuple = (),
                copies_out: tuple = (), row_pitch: tuple[int, ...] = ()) -> PreparedGemm:
        """Bind a problem; ``extra``: the parameter bytes a kernel with a compiled epilogue takes
        after the GEMM's own (the tile program's parameters, in order); ``batch``: L of a batched
        configuration; ``more_b``: the other B operands' pointers (``cfg.b_operands - 1``, laid out
        as B); ``grid``: the tile program's launch grid, which a ``program_grid`` configuration's
        scheduler walks (its extents are the kernel's last three parameters); ``sched_l``: the L the
        scheduler walks when it is not ``batch`` (a batched ``grid_l`` configuration: the launch grid's
        z, while the tensor maps hold ``batch`` matrices); ``ldc``: C's row stride in elements when C is
        a column slice of a wider array (a ``c_ld`` configuration; 0: N); ``c_cols``: C's columns when a
        ``program_grid`` kernel stores its tiles at columns the program computes into a C wider than B
        (the kernel's ``n`` parameter, the stores' column bound; 0: N); ``operand_batches``: (A's, B's)
        matrix counts when the kernel reads each operand at its own batch index (default: ``batch``); ``epi``:
        (E's pointer, R) of a configuration with a second dot on the accumulator (``cfg.epi_n``: B is ``[K, R]``
        or, K-major, ``[R, K]``, E ``[R, N]`` or, ``cfg.epi_major == "k"``, ``[N, R]``, all row-major and read in
        place); ``epi_c``: the N tiles of C per work tile of a kernel looping over them (``cfg.epi_loop``:
        :func:`epi_tiles_per_cta`; the scheduler walks ``ceil(N tiles / epi_c)`` column tiles); ``more_a``: the other A
        operands' pointers (``cfg.a_operands - 1``, laid out as A); ``seg_k``: each later pair's K (``cfg.k_segments``:
        the kernel's ``k<i>`` parameters, A i's and B i's tensor maps that K); ``sched_mn``: the M and N the scheduler
        walks when they are less than ``m`` and ``n`` (the tiles a user's launch grid covers,
        :mod:`tileorch.launchers.user_grid`: multiples of the kernel's tiles; the stores stay masked at ``m``, ``n``);
        ``mid_ld``: the row strides (elements) of A, B and C batched in their middle dimension (``cfg.batch_mid``;
        0: ``L cols``, a contiguous array's), :func:`operand_rows`; ``batch_pitch``: (A's, B's[, C's]) bytes between
        matrices of a strided batch (0: stacked; read in place only, :func:`batched_map`); ``copies_in``: more
        copies ``(src, src pitch, dst, dst pitch, width, rows)`` (bytes) made on the launch's stream before each
        launch (a K vector's aligned scratch copy, ``cutile.kvec_copies``), ``keep``: the buffers they write, kept as
        long as this launch is; ``copies_out``: copies made after the kernel, after the staging plan's own (a packed
        scratch C copied into C's layout, ``launch_copies.unpacking_copies``); ``row_pitch``: (A's, B's[, C's]) bytes
        between the rows of a strided batch where they are not ``cols`` apart (0: packed; read in place only; C's:
        the TMA epilogue's map, ``cutile.c_map_takes``)."""
        return PreparedGemm(self, a_ptr, b_ptr, c_ptr, m, n, k, sms, workspace, extra, batch, more_b, grid, sched_l,
                            ldc, c_cols, operand_batches, epi, epi_c, more_a, seg_k, sched_mn, mid_ld, batch_pitch,
                            copies_in, keep, copies_out, row_pitch)


class PreparedGemm:
    """Everything one launch needs, packed once (tensor maps, params record on the device)."""

    def __init__(self, kernel: GemmKernel, a_ptr, b_ptr, c_ptr, m, n, k, sms, workspace_alloc, extra=(), batch=1,
                 more_b=(), grid: tuple[int, int, int] | None = None, sched_l: int | None = None, ldc: int = 0,
                 c_cols: int = 0, operand_batches: tuple[int, int] = (), epi: tuple[int, int] | None = None,
                 epi_c: int = 1, more_a: tuple[int, ...] = (), seg_k: tuple[int, ...] = (),
                 sched_mn: tuple[int, int] | None = None, mid_ld: tuple[int, int, int] = (),
                 batch_pitch: tuple[int, int] = (), copies_in: tuple = (), keep: tuple = (),
                 copies_out: tuple = (), row_pitch: tuple[int, int] = ()):
        from tileorch.runtime.buffers import DeviceBuffer
        from tileorch.schedulers.device_params import pack_device_params

        cfg = kernel.cfg
        check_problem(m, n, k, cfg)
        if len(more_b) != cfg.b_operands - 1:
            raise GemmConfigError(f"{cfg.name} reads {cfg.b_operands} B operands; got {1 + len(more_b)}")
        if len(more_a) != getattr(cfg, "a_operands", 1) - 1:
            raise GemmConfigError(f"{cfg.name} reads {cfg.a_operands} A operands; got {1 + len(more_a)}")
        if len(seg_k) != (cfg.pairs - 1 if getattr(cfg, "k_segments", False) else 0):
            raise GemmConfigError(f"{cfg.name}: {len(seg_k)} K segment lengths (seg_k) for {cfg.pairs} pairs")
        if c_cols and c_cols != n and not cfg.program_grid:
            raise GemmConfigError(f"{cfg.name} stores C at the scheduler's tiles of N = {n} columns; got C of {c_cols} "
                                  "(only a program-grid kernel computes its own C tiles)")
        nc = c_cols or n
        if ldc and ldc != nc and not cfg.c_ld:
            raise GemmConfigError(f"{cfg.name} stores C rows N = {nc} elements apart; got a C row stride of {ldc} "
                                  "(a column slice of a wider array needs a c_ld configuration)")
        if ldc and ldc < nc:
            raise GemmConfigError(f"C's row stride {ldc} is below its {nc} columns")
        kernel.opt_in()
        self.kernel = kernel
        mac = kernel.max_active_clusters() if cfg.cluster_m > 1 else 0
        if batch != 1 and not (cfg.batched or cfg.grid_l):
            raise GemmConfigError(f"batch = {batch} needs a batched (or grid_l) configuration")
        extra = list(extra)
        sched_m, sched_n, sched_l = m, n, batch if sched_l is None else sched_l
        if sched_mn is not None:
            if cfg.program_grid or sched_mn[0] > m or sched_mn[1] > n:
                raise GemmConfigError(f"{cfg.name}: the scheduler's M x N {sched_mn} must be within the problem's "
                                      f"{m} x {n} (and not a program-grid kernel's)")
            sched_m, sched_n = sched_mn
        if cfg.program_grid:  # one work tile per program of the launch grid
            if grid is None:
                raise GemmConfigError(f"{cfg.name} walks a tile program's launch grid: prepare() needs grid=")
            sched_m, sched_n, sched_l = grid[0] * cfg.tile_m, grid[1] * cfg.tile_n, grid[2]
            extra += [struct.pack("<i", g) for g in grid]
        if epi_c < 1 or (epi_c != 1 and not cfg.epi_loop):
            raise GemmConfigError(f"{cfg.name}: epi_c = {epi_c} N tiles per work tile needs a kernel looping over N "
                                  "tiles (epi_loop) and a positive count")
        sched_n = epi_scheduler_n(cfg, sched_n, epi_c)
        self.epi_c = epi_c
        p = scheduler_params(cfg, sched_m, sched_n, k, sms, mac, sched_l)
        self.grid = p.grid
        check_cluster_grid(cfg, self.grid, sms)
        workspace_ptr, red, bar = 0, 0, 0
        self._keep: list[Any] = []
        if cfg.schedule == "streamk":
            red, bar = streamk_workspace_bytes(cfg, m, n, k, sms, mac, batch, params=p)
            if red + bar:
                ws = workspace_alloc(red + bar) if workspace_alloc else DeviceBuffer(red + bar)
                self._keep.append(ws)
                workspace_ptr = ws if isinstance(ws, int) else getattr(ws, "ptr", None) or ws.data_ptr()
                self.zero_bytes = (workspace_ptr + red, bar)
        record = pack_device_params(p, workspace_ptr, red, bar)  # passed by value (grid-constant)
        counts = tuple(operand_batches) if cfg.batched else ()
        # (a low-rank branch's B is [K, R], not laid out as B: the launcher checked TMA reads it in place)
        plan_b = () if cfg.lora_rank else tuple(more_b)
        self.staging = st = StagingPlan(cfg, a_ptr, b_ptr, c_ptr, m, n, k, batch, plan_b, ldc, c_cols, counts,
                                        tuple(more_a), tuple(seg_k), tuple(mid_ld))
        ks = tuple(seg_k) or (k,) * max(len(plan_b), len(more_a))  # (each later pair's K: its own, or K)
        strided = {name: p for name, p in zip("ABC", batch_pitch) if p} if cfg.batched else {}
        if strided and (set(strided) & {r.split(":")[0] for r in st.reasons} or cfg.epi_n or cfg.lora_rank):
            raise GemmConfigError(f"{cfg.name}: a strided batch ({', '.join(strided)}) is read in place by its tensor "
                                  f"map; staging was needed: {'; '.join(st.reasons) or 'a second dot'}")
        rows_apart = {name: p for name, p in zip("ABC", row_pitch) if p} if cfg.batched else {}
        if "C" in {*strided, *rows_apart} and cfg.epilogue != "tma":
            raise GemmConfigError(f"{cfg.name}: C's own batch / row strides are taken by the TMA epilogue's map only "
                                  f"(epilogue {cfg.epilogue!r} stores packed matrices)")
        if set(rows_apart) - set(strided) - {"C"}:
            raise GemmConfigError(f"{cfg.name}: rows not cols apart ({', '.join(rows_apart)}) are a strided batch's "
                                  "only (batch_pitch)")
        tma_a, tma_b, tma_c = tensor_maps(cfg, st.ptr["A"], st.ptr["B"], st.ptr["C"], m, n, k,
                                          batch if cfg.batched else 1, st.pitch, c_cols, counts, strided, rows_apart)
        tma_more_b = [b_tensor_map(cfg, st.ptr[f"B{i}"], n, ks[i - 1],
                                   counts[1] if counts else batch if cfg.batched else 1, st.pitch, f"B{i}")
                      for i in range(1, len(plan_b) + 1)]
        tma_more_b += [a_tensor_map(cfg, st.ptr[f"A{i}"], m, ks[i - 1],
                                    counts[0] if counts else batch if cfg.batched else 1, st.pitch, f"A{i}")
                       for i in range(1, len(more_a) + 1)]  # (after the Bs' maps)
        tma_more_b += [struct.pack("<i", x) for x in seg_k]  # (the later segments' K, after the As' maps)
        if bool(cfg.epi_n) != (epi is not None):
            raise GemmConfigError(f"{cfg.name}: {'a second dot on the accumulator needs' if cfg.epi_n else 'no'} "
                                  "epi=(E's pointer, R)")
        if cfg.epi_n and st.reasons:  # (the plan sizes B's rows by N: the launcher checked B and E are TMA-ready)
            raise GemmConfigError(f"{cfg.name}: a second dot on the accumulator reads A, B, C and E in place (16-byte "
                                  f"aligned rows of whole 16-byte units); staging was needed: {'; '.join(st.reasons)}")
        if cfg.lora_rank:  # a low-rank branch: B 1 the [K, R] block (lora_rank-row K-major boxes), then E's map
            tma_more_b = [b_tensor_map(cfg, more_b[0], epi[1], k, name="B1", tile_n=cfg.lora_rank),
                          epi_tensor_map(cfg, epi[0], epi[1], n)]
        elif cfg.epi_n:  # B is the [K, R] block the first dot reads whole, E the second dot's [R, N]
            tma_b, tma_more_b = b_tensor_map(cfg, b_ptr, epi[1], k), [epi_tensor_map(cfg, epi[0], epi[1], n)]
        # the direct epilogue's N is also C's leading dimension: a padded C is N' columns wide
        # (the extra columns are scratch, never copied out)
        # (a c_ld kernel takes N and C's row stride apart: its stores stop at N, the neighbours' columns)
        n_ld = st.pitch["C"] // ESIZE[cfg.out_dtype] if cfg.epilogue == "direct" and not cfg.c_ld else nc
        ld_arg = [struct.pack("<i", st.pitch["C"] // ESIZE[cfg.out_dtype])] if cfg.c_ld else []
        args = [tma_a, tma_b, tma_c, struct.pack("<Q", st.ptr["C"]), struct.pack("<i", m), struct.pack("<i", n_ld),
                struct.pack("<i", k), record, *tma_more_b, *([struct.pack("<i", epi_c)] if cfg.epi_loop else []),
                *ld_arg, *extra]
        self._storage = [ctypes.create_string_buffer(a, len(a)) for a in args]
        self._pointers = (ctypes.c_void_p * len(args))(*[ctypes.addressof(s) for s in self._storage])
        # what each launch needs, looked up once (a launch is then one driver call and no
        # Python re-derivation: see benchmarks/launch_overhead.py); one launch configuration per
        # stream handle
        from tileorch.runtime.driver import api

        self._drv = api()
        self._configs: dict[int, Any] = {}
        self._launch_ex = self._drv.cuLaunchKernelEx
        self._function = kernel.kernel.function
        self._params = ctypes.addressof(self._pointers)
        self._zero = self.zero_bytes if cfg.schedule == "streamk" and getattr(self, "zero_bytes", None) else None
        self.staging.copies_in.extend(copies_in)  # (the caller's copies, e.g. a K vector's aligned scratch)
        if sched_mn is not None:  # (after the caller's copies in: its scratch C holds C's values then)
            self.staging.cover_part_of_c()
        self.staging.copies_out.extend(copies_out)  # (after the plan's own: a padded C into the caller's scratch)
        self._keep.extend(keep)
        self._copies = bool(self.staging.copies_in or self.staging.copies_out)
        # programmatic dependent launch for a kernel compiled with the wait, unless this launch enqueues its own
        # memset (Stream-K's locks) or copies before the kernel: those are no grid the kernel's wait waits for
        self.pdl = bool(kernel.kernel.pdl) and self._zero is None and not self._copies
        self.pdl_reason = ("" if self.pdl or not kernel.kernel.pdl else
                           "compiled for programmatic dependent launch, launched without it: this launch enqueues "
                           + ("Stream-K's lock reset" if self._zero is not None else "staging copies")
                           + " before the kernel, which its griddepcontrol.wait would not wait for")
        self._label = f"cuLaunchKernelEx({cfg.name}, grid={self.grid}{', pdl' if self.pdl else ''})"
        # the launches' path: straight into libcuda through ctypes where it can (direct_launch.py)
        from tileorch.runtime.direct_launch import direct

        self._direct, self.path_reason = direct(self._drv, self._function, tuple(self.grid), (cfg.threads, 1, 1),
                                                cfg.smem_bytes, (cfg.cluster_m, 1, 1), self._label, pdl=self.pdl)
        self.path = "cuda-python" if self._direct is None else self._direct.path

    STREAMS_MAX = 16  # launch configurations kept (one per stream handle)

    def stream_config(self, stream: int) -> Any:
        """The ``CUlaunchConfig`` of this launch on ``stream`` (made once per stream handle)."""
        config = self._configs.get(stream)
        if config is None:
            if len(self._configs) >= self.STREAMS_MAX:
                self._configs.clear()
            config = self._configs[stream] = _cluster_launch_config(self._drv, self.kernel.cfg, self.grid, self.pdl)
            config.hStream = self._drv.CUstream(stream)
        return config

    def launch(self, stream: int = 0) -> None:
        """Enqueue one launch on ``stream`` (no synchronisation); Stream-K zeroes its locks first."""
        drv = self._drv
        if self._zero is not None:
            self._check(drv.cuMemsetD8Async(self._zero[0], 0, self._zero[1], drv.CUstream(stream)),
                        "cuMemsetD8Async(stream-K locks)")
        if self._copies:
            launch_copies.run_2d(self.staging.copies_in, stream)
        if self._direct is not None:
            self._direct.enqueue(stream, self._params)
        else:
            result = self._launch_ex(self.stream_config(stream), self._function, self._params, 0)
            if result[0]:  # a CUresult (an int): CUDA_SUCCESS is 0
                self._check(result, self._label)
        if self._copies:
            launch_copies.run_2d(self.staging.copies_out, stream)

    def launcher(self) -> Any:
        """The function ``launch(stream=0)`` doing :meth:`launch`: for a launch with no Stream-K
        locks to zero and no staging copies, a closure over the driver call, its function,
        parameters and per-stream configurations (``.bound`` is this object, which holds no
        reference to it); otherwise the method itself."""
        if self._zero is not None or self._copies:
            return self.launch
        if self._direct is not None:
            return self._direct.launcher(self, self._params)
        from tileorch.runtime.launch import stream_launcher

        return stream_launcher(self, self._launch_ex, self._function, self._params, self._label, self._configs,
                               self.stream_config, self._check, path_reason=self.path_reason)

    @staticmethod
    def _check(result, call: str) -> None:
        from tileorch.runtime.driver import check

        check(result, call)
