"""The K-major copy of an N-major B (or M-major A) for the GEMMs whose WGMMA reads both operands K-major
(tf32, fp8, int8): a cuTile transpose program compiled by tileorch (the SIMT path, once per element size and
tile class, through the launcher's caches like any program) and launched on the GEMM launch's stream just
before the GEMM, into the stream's scratch buffer for (operand, shape, dtype, device)
(:func:`tileorch.launchers.launch_copies.scratch`, role ``k_major``).

Why not torch: the launch that made the copy with ``buf.copy_(obj.transpose(-1, -2))`` could not be kept
bound (the copy needed the tensor object), so each call took the launcher's full path (argument analysis,
the compile caches, the retiling decision, packing): 1.5-2.3 ms of host time per call for a 4096^3 GEMM
whose kernel runs 0.12-0.37 ms (session 43, H100).  Here the copy is a launch of raw pointers: it is bound
with the GEMM's launch (:func:`tileorch.launchers.launch_copies.sequence`), and a repeated call enqueues the two
kernels and nothing else.

The copy kernel moves bits: its arrays are described as unsigned integers of the operand's element size
(fp8 and int8 as ``uint8``, f32 as ``uint32``), so one compiled program serves every dtype of that size.
Where tileorch cannot compile or launch it (no cuda.tile, a batch of matrices that are not one
``[L, rows, cols]`` array, an element size it has no program for) :func:`copier` returns None with the
reason, and the launcher makes the copy with torch as before (not bound: said in its warning).

Ordering: both the copy and the GEMM are enqueued on the launch's stream handle, in that order, so the
copy reads what earlier work on that stream wrote and the GEMM reads the finished copy; the buffer of one
stream is rewritten by the next launch's copy only after this launch's GEMM (same stream); a bound launch
replayed on another stream is ordered with the stream whose buffer it writes
(:func:`tileorch.launchers.launch_copies.homed`: two GEMMs bound to one stream's buffer never write it from two
streams at once).  The buffer
is allocated with torch on torch's object for that stream (:func:`tileorch.launchers.cutile.torch_stream_for`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TILES = {1: (64, 64), 2: (64, 64), 4: (32, 64)}
"""(rows, cols) of the source tile each program of the copy moves, by element size in bytes (f32: the
memory-bound zoo's transpose tiles, benchmarks/memory_bound.py ``transpose_f32``)."""
_UINT = {1: ("|u1", "uint8"), 2: ("<u2", "uint16"), 4: ("<u4", "uint32")}

_kernels: list[Any] = []  # [(copy2d, copy3d)] once made (cuda.tile imported then only)


def kernels() -> tuple[Any, Any]:
    """The cuTile copy programs: ``copy2d(x [R, C], y [C, R])`` and ``copy3d(x [L, R, C], y [L, C, R])``,
    ``y`` the transpose of ``x`` (per matrix), one ``tr x tc`` tile of ``x`` per program."""
    if not _kernels:
        from tileorch.launchers.k_major_copy_programs import k_major_copy_2d, k_major_copy_3d

        _kernels.append((k_major_copy_2d, k_major_copy_3d))
    return _kernels[0]


class DeviceView:
    """An array of raw device memory as the launcher reads one (``__cuda_array_interface__``, byte strides)."""

    __slots__ = ("__cuda_array_interface__",)

    def __init__(self, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], typestr: str):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": typestr,
                                         "strides": tuple(strides), "version": 3}


def plan(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int,
         out_ptr: int) -> tuple[Any, tuple[int, int, int], tuple] | str:
    """The copy launch of the ``[..., R, C]`` array at ``ptr`` (``strides`` in elements) into the dense
    ``[..., C, R]`` array at ``out_ptr``: (kernel, grid, arguments), or why there is none."""
    if itemsize not in TILES:
        return f"no copy program for {itemsize}-byte elements"
    lead = shape[:-2]
    # [B0, B1, .., R, C]: one [L, R, C] array when the batch dimensions (those of extent 1 aside) nest densely
    dims = [(d, st) for d, st in zip(lead, strides[:-2]) if d != 1]
    for (_, outer), (inner_d, inner) in zip(dims, dims[1:]):
        if outer != inner * inner_d:
            return "the batch dimensions are not one strided dimension"
    rows, cols = shape[-2], shape[-1]
    batch = 1
    for d in lead:
        batch *= d
    tr, tc = TILES[itemsize]
    typestr = _UINT[itemsize][0]
    copy2d, copy3d = kernels()
    grid = (-(-rows // tr), -(-cols // tc), batch)
    if grid[0] > 2**31 - 1 or grid[1] > 65535 or batch > 65535:
        return f"grid {grid} past the launch limits"
    if not lead:
        x = DeviceView(ptr, (rows, cols), (strides[-2] * itemsize, strides[-1] * itemsize), typestr)
        y = DeviceView(out_ptr, (cols, rows), (rows * itemsize, itemsize), typestr)
        return copy2d, grid, (x, y, tr, tc)
    lstride = dims[-1][1] if dims else rows * cols  # (the innermost batch dimension's stride)
    x = DeviceView(ptr, (batch, rows, cols), (lstride * itemsize, strides[-2] * itemsize, strides[-1] * itemsize),
                   typestr)
    y = DeviceView(out_ptr, (batch, cols, rows), (rows * cols * itemsize, rows * itemsize, itemsize), typestr)
    return copy3d, grid, (x, y, tr, tc)


def key_major16_plan(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
                     out_ptr: int) -> tuple[Any, tuple[int, int, int], tuple] | str:
    """The launch of tileorch's permuted copy program (``k_major_copy_programs.key_major16_copy_3d``, session 45) of
    the ``[..., R, C]`` array of 1-byte elements at ``ptr`` (``strides`` in elements) into the dense
    ``[..., C, R16]`` array at ``out_ptr`` (:func:`tileorch.launchers.launch_copies.key_major16`: an fp8 P @ V's V,
    R its keys): (kernel, grid, arguments), or why there is none (the batch as :func:`plan` takes it)."""
    found = plan(ptr, shape, strides, 1, out_ptr)
    if isinstance(found, str):
        return found
    _, grid, (x, _y, tr, tc) = found
    from tileorch.launchers.k_major_copy_programs import key_major16_copy_3d

    rows, cols = shape[-2], shape[-1]
    r16 = -(-rows // 16) * 16
    batch = grid[2]
    if len(x.__cuda_array_interface__["shape"]) == 2:  # (plan's 2-D form: one matrix)
        xs = x.__cuda_array_interface__
        x = DeviceView(ptr, (1, rows, cols), (rows * xs["strides"][0], *xs["strides"]), xs["typestr"])
    y = DeviceView(out_ptr, (batch, cols, r16), (cols * r16, r16, 1), _UINT[1][0])
    return key_major16_copy_3d, grid, (x, y, tr, tc)


def buffer(torch: Any, obj: Any, operand: str, stream: int, on: Any) -> Any:
    """The dense K-major buffer ``[..., C, R]`` for ``obj`` (``[..., R, C]``) on stream ``stream``: the stream's
    scratch of role ``k_major`` for (operand, shape, dtype, device) (:func:`~tileorch.launchers.launch_copies.scratch`),
    allocated by torch on torch's stream object ``on``; the launches bound with it keep it alive (a buffer dropped
    there stays valid for them)."""
    from tileorch.launchers.launch_copies import scratch

    shape = (*obj.shape[:-2], obj.shape[-1], obj.shape[-2])

    def alloc(nbytes: int) -> Any:
        with torch.cuda.stream(on):
            return torch.empty(shape, dtype=obj.dtype, device=obj.device)

    nbytes = int(obj.element_size())
    for d in shape:
        nbytes *= d
    return scratch("k_major", (operand, shape, str(obj.dtype), str(obj.device)), nbytes, stream, alloc)


def copier(obj: Any, buf: Any, stream: int, launch: Callable[..., None]) -> tuple[Callable[[int], None] | None, str]:
    """Launch the K-major copy of the torch tensor ``obj`` into ``buf`` on ``stream`` now (through ``launch``,
    ``tileorch.cutile.launch``: compiled and kept bound like any program) and return
    (the function that enqueues the same copy again on a stream handle, a bound launch where the launcher
    kept one; what runs, for the remark), or (None, why not) when tileorch has no copy launch for it
    (nothing launched: the caller copies with torch)."""
    found = plan(int(obj.data_ptr()), tuple(obj.shape), tuple(obj.stride()), int(obj.element_size()),
                 int(buf.data_ptr()))
    if isinstance(found, str):
        return None, found
    kernel, grid, args = found
    from tileorch.launchers import cutile_bound

    try:
        launch(stream, grid, kernel, args)
    except Exception as exc:  # noqa: BLE001 - a refusal or compile failure: the caller's torch copy
        return None, f"tileorch's copy program was not launched: {type(exc).__name__}: {exc}"
    key = cutile_bound.call_key(kernel, grid, args, "sm_90a", "auto", "auto")
    bound = cutile_bound.bound_launches.get(key) if key is not None else None
    if bound is None:  # not kept bound (e.g. a setting): each call through tileorch.cutile.launch's hot path
        def go(handle: int, kernel=kernel, grid=grid, args=args, buf=buf) -> None:
            launch(handle, grid, kernel, args)
    else:  # (``buf``: the buffer lives as long as a launch writing it does, whatever the scratch pool drops)
        def go(handle: int, bound=bound, buf=buf) -> None:
            bound(handle)
    tr, tc = args[2], args[3]
    what = (f"tileorch's copy program {kernel_label(kernel)} ({grid[0] * grid[1] * grid[2]} programs of "
            f"{tr} x {tc} elements) on the launch's stream before the GEMM")
    return go, what


def kernel_label(kernel: Any) -> str:
    return getattr(getattr(kernel, "_pyfunc", None), "__name__", None) or getattr(kernel, "__name__", "k_major_copy")
