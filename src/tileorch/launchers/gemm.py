"""``tileorch.gemm``: ``out = a @ b`` on torch CUDA tensors through tileorch's TMA + WGMMA kernel.

* ``a``: ``[M, K]`` bf16 or fp16, row-major (a non-contiguous ``a`` is copied);
* ``b``: ``[K, N]`` of the same dtype, either row-major (stored ``[K, N]``, N-major) or the
  transpose of a row-major ``[N, K]`` tensor (K-major, e.g. ``w.t()``); anything else is copied;
* ``out``: ``[M, N]`` row-major bf16/fp16 (default: a's dtype) or fp32, allocated when omitted;
* fp32 accumulation.  M, N, K need not be tile multiples (TMA zero-fills, stores are clipped);
  K and N must be multiples of 8 (16-byte TMA strides).

Anything unsupported raises ``TypeError``/``ValueError`` with the reason (an ``out`` that shares
memory with ``a`` or ``b`` included); nothing falls back silently.  Each configuration is compiled once and cached on disk (``host.compile_gemm``);
a call is resolved once per shapes/strides/dtypes/devices (:class:`_Problem`) and bound once
per pointers (tensor maps, scheduler params, the parameter buffer), so a repeated call is a
dictionary lookup and one ``cuLaunchKernelEx``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Any

from tileorch.kernels.gemm.config import DIRECT_OUT_DTYPES, GemmConfig, GemmConfigError
from tileorch.launchers import stale_settings

_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32"}
_PREPARED_MAX = 64
_kernels: dict[GemmConfig, Any] = {}


def _dtype_name(t) -> str:
    name = _DTYPES.get(str(t.dtype))
    if name is None:
        raise TypeError(f"tileorch.gemm supports bf16 and fp16 inputs, got {t.dtype}")
    return name


def wave_efficiency(m: int, n: int, tile_n: int, sms: int) -> float:
    """Busy fraction of the SMs over the waves of a data-parallel walk of 128 x tile_n tiles."""
    tiles = -(-m // 128) * -(-n // tile_n)
    waves = -(-tiles // sms)
    return tiles / (waves * sms)


def choose_schedule(m: int, n: int, k: int, cfg: GemmConfig, sms: int) -> str:
    """``streamk`` when a data-parallel walk of the 128 x 256 tiles leaves more than 15% of the
    SM-waves idle and K is long enough (>= 8192) for the fix-up to pay off, else ``persistent``
    (rule fitted to the H100 measurements of docs/gemm.md)."""
    if wave_efficiency(m, n, cfg.tile_n, sms) < 0.85 and k >= 8192:
        return "streamk"
    return "persistent"


N192_EFFICIENCY = 0.92
"""Full-wave speed of the 128 x 192 tile relative to 128 x 256 (session 30's suite run on an H100, same
process: persistent_n192 / wave efficiency over persistent / wave efficiency, median 0.93, 0.83 on the
N >= 13312 shapes; `benchmarks/results/gemm_suite_h100_2026-12-06-s30.json`)."""


ONE_TILE_WIDTHS = (128, 192, 256)
"""The tile widths :func:`one_tile_width` picks from (the builder's 128-row tiles; 64-wide tiles run as 128)."""


def one_tile_width(m: int, n: int, tile_192: bool = True) -> int:
    """For a problem that one 128 x 256 tile covers (M <= 128, N <= 256): the narrowest width of
    :data:`ONE_TILE_WIDTHS` that covers N (192 only where ``tile_192``); 0 for a larger problem.  Its one CTA
    computes the fewest columns past N, and a cluster would only add a CTA with no rows (session 41: 100 x 80 took
    128 x 256 tiles in 2x1 clusters, every width's wave efficiency 0.01)."""
    if m > 128 or n > 256:
        return 0
    return min(t for t in ONE_TILE_WIDTHS if t >= n and (t != 192 or tile_192))


def default_config(m: int, n: int, k: int, dtype: str, out_dtype: str, b_major: str, schedule: str, sms: int,
                   tile_192: bool = True) -> GemmConfig:
    """The configuration ``schedule="auto"`` picks: 128 x 256 tiles, 4 stages, 2x1 clusters, TMA
    epilogue; 128 x 128 tiles (6 stages) for short-K problems of at most two waves whose wave
    efficiency the narrower tile improves by >= 0.15; a problem smaller than one tile (at most 128 x 256, K < 8192
    or not: see Stream-K below) the narrowest of 128 / 192 / 256 that covers its N, in 1x1 clusters
    (:func:`one_tile_width`: every width scores the same one-CTA wave there); 128 x 192 tiles (4 stages) where their wave
    efficiency times :data:`N192_EFFICIENCY` beats the chosen tile's (the wave-quantised shapes, e.g.
    1344 x 6272 x 2048: 0.74 -> 0.90 of cuBLAS; ``tile_192=False``: not considered; an N-major B
    runs them in 1x1 clusters, its 192-column tile not two multicast halves of 64-column boxes);
    Stream-K on the 128 x 256 tiles (2x1 clusters) where the chosen data-parallel tile's score (its wave
    efficiency; times :data:`N192_EFFICIENCY` for 192) is below 0.85 and K >= 8192; f32 and s32 outputs
    store directly."""
    cfg = GemmConfig(dtype=dtype, out_dtype=out_dtype, b_major=b_major,
                     epilogue="direct" if out_dtype in DIRECT_OUT_DTYPES else "tma")
    cfg = replace(cfg, tile_k=128 // cfg.element_bytes)
    if schedule == "auto":
        tiles = -(-m // 128) * -(-n // 256)
        best, score = 256, wave_efficiency(m, n, 256, sms)
        if (k <= 2048 and tiles <= 2 * sms
                and wave_efficiency(m, n, 128, sms) >= wave_efficiency(m, n, 256, sms) + 0.15):
            best, score = 128, wave_efficiency(m, n, 128, sms)
        if tile_192 and N192_EFFICIENCY * wave_efficiency(m, n, 192, sms) > score:
            best, score = 192, N192_EFFICIENCY * wave_efficiency(m, n, 192, sms)
        if best != 256:
            cfg = replace(cfg, tile_n=best, stages=6 if best == 128 else 4)
        if best == 192 and b_major == "n":  # (2 multicast slices of 96 N-major columns: not whole 64-column boxes)
            cfg = replace(cfg, cluster_m=1)
        schedule = "streamk" if score < 0.85 and k >= 8192 else "persistent"
        if schedule == "streamk":
            cfg = replace(cfg, tile_n=256, stages=GemmConfig().stages, cluster_m=GemmConfig().cluster_m)
        elif one_tile_width(m, n, tile_192):
            width = one_tile_width(m, n, tile_192)
            cfg = replace(cfg, tile_n=width, stages=6 if width == 128 else 4 if width == 192 else GemmConfig().stages,
                          cluster_m=1)
    return replace(cfg, schedule=schedule).check()


def kernel_for(cfg: GemmConfig):
    from tileorch.launchers.gemm_host import GemmKernel, compile_gemm

    if cfg not in _kernels:
        from tileorch.gc_deferral import gc_deferred

        with gc_deferred():  # the compiler's imports on the first compile of a process, then the compile
            compiled = compile_gemm(cfg)
            _kernels[cfg] = GemmKernel(cfg, compiled.cubin, pdl=compiled.pdl)  # (pdl: compiled with the wait)
    return _kernels[cfg]


def check_out_disjoint(a_ptr: int, b_ptr: int, c_ptr: int, m: int, n: int, k: int, out_itemsize: int) -> None:
    """``out`` must not share memory with ``a`` or ``b``: the kernel reads A and B tile by tile
    while it writes C, so ``tileorch.gemm(a, b, out=a)`` (legal shapes when K = N) computed from
    half-overwritten inputs, silently.  Each operand is a dense block by then (``a``: M x K and
    ``b``: K x N 2-byte elements in either layout, ``out``: M x N row-major): ValueError if out's
    bytes meet either block's."""
    out = (c_ptr, c_ptr + m * n * out_itemsize)
    for name, ptr, count in (("a", a_ptr, m * k), ("b", b_ptr, k * n)):
        if ptr < out[1] and out[0] < ptr + 2 * count:
            raise ValueError(f"out overlaps {name} (bytes {out[0]:#x}..{out[1]:#x} and {ptr:#x}..{ptr + 2 * count:#x}): "
                             "the kernel reads the inputs while it writes out; pass a separate out tensor")


class _Problem:
    """What a call with these shapes, strides, dtypes and devices resolved to: the configuration,
    its loaded kernel, the problem size, and the problems bound to pointers (LRU)."""

    __slots__ = ("cfg", "kernel", "m", "n", "k", "sms", "device_index", "out_shape", "out_dtype", "bound")

    def __init__(self, cfg, kernel, m, n, k, sms, device_index, out_dtype):
        self.cfg, self.kernel, self.m, self.n, self.k, self.sms = cfg, kernel, m, n, k, sms
        self.device_index, self.out_shape, self.out_dtype = device_index, (m, n), out_dtype
        self.bound: OrderedDict = OrderedDict()

    def launcher(self, a_ptr: int, b_ptr: int, c_ptr: int, device):
        """The launch function (:meth:`PreparedGemm.launcher`, taking the stream handle) of this
        problem bound to these pointers: tensor maps and parameters encoded once per pointers."""
        key = (a_ptr, b_ptr, c_ptr)
        launch = self.bound.get(key)
        if launch is None:
            check_out_disjoint(a_ptr, b_ptr, c_ptr, self.m, self.n, self.k, 4 if self.cfg.out_dtype == "f32" else 2)
            torch = _torch()

            def alloc(nbytes: int):
                return torch.empty(nbytes, dtype=torch.uint8, device=device)

            prepared = self.kernel.prepare(a_ptr, b_ptr, c_ptr, self.m, self.n, self.k, self.sms, alloc)
            launch = self.bound[key] = prepared.launcher()
            prepared.staging.warn("tileorch.gemm")
            while len(self.bound) > _PREPARED_MAX:
                self.bound.popitem(last=False)
        return launch


_problems: OrderedDict = OrderedDict()
_PROBLEMS_MAX = 256
_device_facts: dict = {}
_TORCH: Any = None


def _torch():
    """torch, imported on the first call; without it a ``ModuleNotFoundError`` that says what
    ``tileorch.gemm`` needs it for (not Python's bare "No module named 'torch'")."""
    global _TORCH
    if _TORCH is None:
        try:
            import torch
        except ModuleNotFoundError as exc:
            if exc.name != "torch":
                raise
            raise ModuleNotFoundError(
                "tileorch.gemm multiplies torch CUDA tensors and needs torch, which is not installed: pip install "
                "torch (a CUDA build) and run it on a Hopper GPU; without a GPU, `tileorch gemm M N K --compile` "
                "builds the kernel", name="torch") from None

        _TORCH = torch
    return _TORCH


def device_facts(device) -> tuple[int, int, int]:
    """(major, minor, SM count) of a CUDA device, asked of torch once per device."""
    facts = _device_facts.get(device)
    if facts is None:
        torch = _torch()
        major, minor = torch.cuda.get_device_capability(device)
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        facts = _device_facts[device] = (major, minor, sms)
    return facts


def current_stream(device_index: int) -> int:
    """The raw handle of torch's current stream on the device (torch's private fast accessor
    when it has one, as Triton uses)."""
    return _stream_reader()(device_index)


_STREAM_READER: Any = None


def _stream_reader():
    """The function giving the raw handle of torch's current stream on a device index, looked
    up once (torch's private fast accessor when it has one)."""
    global _STREAM_READER
    if _STREAM_READER is None:
        torch = _torch()
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _STREAM_READER = raw if raw is not None else (lambda index: torch.cuda.current_stream(index).cuda_stream)
    return _STREAM_READER


def clear_caches() -> None:
    """Forget loaded kernels and bound problems (tests, benchmarks)."""
    global _STREAM_READER
    _kernels.clear()
    _problems.clear()
    _device_facts.clear()
    _STREAM_READER = None


def _forget_compiled() -> None:
    """The kernels and bound problems made under other compile settings (``stale_settings.py``)."""
    _kernels.clear()
    _problems.clear()


def _forget_problems() -> None:
    """At each settings change (``stale_settings.py``): the bound problems, so that the next call takes the full
    path, which compares the compile settings (:func:`stale_settings.note_bound`) and keeps the kernels where they
    are the same: the repeated call's lookup reads nothing more (callgrind: +110 instructions a call with a test
    of a stale flag instead)."""
    _problems.clear()


stale_settings.watch(_forget_compiled, _forget_problems)


def gemm(a, b, out=None, *, schedule: str = "auto", config: GemmConfig | None = None):
    """``out = a @ b`` (see the module docstring); returns ``out``.

    A call whose tensors have the shapes, strides, dtypes and devices of an earlier call reuses
    what that call resolved (configuration, kernel, scheduler parameters) and, for the same
    pointers, its bound parameters and tensor maps: one dictionary lookup, then the launch."""
    torch = _TORCH or _torch()
    tensor = torch.Tensor
    if isinstance(a, tensor) and isinstance(b, tensor) and (out is None or isinstance(out, tensor)):
        da = a.device
        key = (a.shape, b.shape, a.stride(), b.stride(), a.dtype, b.dtype, da, b.device, schedule, config,
               None if out is None else (out.shape, out.stride(), out.dtype, out.device))
        problem = _problems.get(key)
        if problem is not None:
            if out is None:
                out = torch.empty(problem.out_shape, dtype=problem.out_dtype, device=da)
            pointers = (a.data_ptr(), b.data_ptr(), out.data_ptr())
            launch = problem.bound.get(pointers)  # bound to these pointers: tensor maps and parameters
            if launch is None:
                launch = problem.launcher(*pointers, da)
            launch((_STREAM_READER or _stream_reader())(problem.device_index))
            return out
    else:
        key = None
    return _gemm_slow(a, b, out, schedule, config, key)


SCHEDULES = ("auto", "persistent", "streamk", "dp")
"""The ``schedule`` values ``tileorch.gemm`` takes."""


def _describe(x) -> str:
    return f"a {type(x).__name__}" if x is not None else "None"


def _check_arguments(torch, a, b, out, schedule, config) -> None:
    """Refuse what ``tileorch.gemm`` cannot take, naming the argument (``a``, ``b``, ``out``,
    ``schedule``, ``config``) and saying what it takes."""
    for name, x in (("a", a), ("b", b)):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"tileorch.gemm: {name} must be a torch tensor (a CUDA bf16 or fp16 matrix), got "
                            f"{_describe(x)}")
    if out is not None and not isinstance(out, torch.Tensor):
        raise TypeError(f"tileorch.gemm: out must be a torch tensor or None (allocated), got {_describe(out)}")
    if not isinstance(schedule, str) or schedule not in SCHEDULES:
        raise ValueError(f"tileorch.gemm: schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    if config is not None and not isinstance(config, GemmConfig):
        raise TypeError(f"tileorch.gemm: config must be a GemmConfig (tileorch.kernels.gemm.config) or None, got "
                        f"{_describe(config)}")
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"tileorch.gemm multiplies 2-D matrices, got shapes {tuple(a.shape)} (a) and "
                         f"{tuple(b.shape)} (b)")
    for name, x in (("a", a), ("b", b)):
        if not x.is_cuda:
            raise ValueError(f"tileorch.gemm: {name} is on {x.device}, not on a CUDA device: move it with .cuda()")
    if a.device != b.device:
        raise ValueError(f"tileorch.gemm: a is on {a.device} and b on {b.device}: put both on one GPU")
    for name, x in (("a", a), ("b", b)):
        if _DTYPES.get(str(x.dtype)) not in ("bf16", "f16"):
            raise TypeError(f"tileorch.gemm: {name} has dtype {x.dtype}; a and b must both be bf16 or both fp16")
    if a.dtype != b.dtype:
        raise TypeError(f"tileorch.gemm: a and b must both be bf16 or both fp16, got {a.dtype} (a) and {b.dtype} (b)")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"tileorch.gemm: inner dimensions differ: a is {tuple(a.shape)}, b is {tuple(b.shape)} "
                         f"(a's columns must equal b's rows)")
    if out is not None:
        m, n = a.shape[0], b.shape[1]
        if tuple(out.shape) != (m, n) or out.device != a.device:
            raise ValueError(f"tileorch.gemm: out must be a [{m}, {n}] tensor on {a.device}, got {tuple(out.shape)} "
                             f"on {out.device}")
        if _DTYPES.get(str(out.dtype)) is None:
            raise TypeError(f"tileorch.gemm: out has dtype {out.dtype}; it must be bf16, fp16 or float32")


def _gemm_slow(a, b, out, schedule: str, config: GemmConfig | None, key):
    """The first call for a problem: check everything, choose the configuration, load the kernel;
    remember the problem under ``key`` (the fast path's lookup) when nothing needed a copy."""
    torch = _torch()
    _check_arguments(torch, a, b, out, schedule, config)
    major, _minor, sms = device_facts(a.device)
    if major != 9:
        raise ValueError(f"tileorch.gemm needs an sm_90 (Hopper) GPU, got compute capability {major}.{_minor}")
    from tileorch.runtime.c_launch import start

    start()  # the C launcher (built once a machine) while the kernel loads or compiles
    dtype = _dtype_name(a)
    m, k = a.shape
    n = b.shape[1]
    copied = False
    a_major = "k"
    if a.stride(0) == 1 and a.stride(1) == m and m > 1 and k > 1:
        a_major = "m"  # a transposed view of a [K, M] tensor: an M-major WGMMA operand, no copy
    elif not (a.stride(1) == 1 and a.stride(0) == k):
        a = a.contiguous()
        copied = True
    if b.stride(0) == n and b.stride(1) == 1:
        b_major = "n"
    elif b.stride(0) == 1 and b.stride(1) == k:
        b_major = "k"
    else:
        b = b.contiguous()
        b_major = "n"
        copied = True
    if out is None:
        out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    elif not (out.stride(1) == 1 and out.stride(0) == n):
        raise ValueError(f"tileorch.gemm: out must be row-major contiguous (strides ({n}, 1)), got strides "
                         f"{tuple(out.stride())}")
    out_dtype = _DTYPES[str(out.dtype)]
    if m == 0 or n == 0:
        return out
    if k == 0:
        return out.zero_()
    if config is None:
        cfg = default_config(m, n, k, dtype, out_dtype, b_major, schedule, sms)
    else:
        epi = "direct" if out_dtype == "f32" else config.epilogue
        cfg = replace(config, dtype=dtype, out_dtype=out_dtype, b_major=b_major, epilogue=epi).check()
    cfg = replace(cfg, a_major=a_major)
    if cfg.schedule not in ("persistent", "streamk", "dp"):
        raise GemmConfigError(f"unknown schedule {cfg.schedule!r}")
    stale_settings.note_bound()  # (what was kept under other compile settings is forgotten)
    problem = _Problem(cfg, kernel_for(cfg), m, n, k, sms, a.device.index or 0, out.dtype)
    if key is not None and not copied:
        _problems[key] = problem
        while len(_problems) > _PROBLEMS_MAX:
            _problems.popitem(last=False)
    problem.launcher(a.data_ptr(), b.data_ptr(), out.data_ptr(), a.device)(current_stream(problem.device_index))
    return out
