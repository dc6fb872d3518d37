"""The register layout of the SIMT lowering's tiles: one analysis, one place.

Model: Triton's coalescing pass.  A tile is held *blocked*: with ``T`` threads and a vector
width ``v`` (elements), the row-major flat index ``f`` of an element splits into

    f = (slot // v) * v * T  +  tid * v  +  slot % v

so each thread owns runs of ``v`` contiguous elements of the tile's innermost dimension, and
consecutive threads own consecutive runs: a warp's accesses of one run each are 32 * v * size
contiguous bytes.  ``v = 1`` is the plain cyclic distribution (element ``f`` in thread
``f % T``).  The order is always row-major (the tile's last dimension fastest), so a load or
store vectorizes when the view maps the tile's last dimension to the array's contiguous
(stride-1) dimension.

The decision, :func:`choose_layout`:

* ``vec`` (the function's widest run, sizePerThread) = ``16 bytes / element size`` of the
  narrowest element type among the function's global loads and stores whose view maps the
  tile's last dimension onto the array's last dimension, and whose last stride is 1 or
  dynamic (a dynamic stride is checked at run time before a vector access), and among its
  pointer loads and stores (gathers, scatters) whose pointer tile holds consecutive addresses
  along the last dimension (``pointers.contiguous_access_width``); 1 when there is no such
  access (the cyclic layout);
* every tile shape gets ``vec_of(shape)``: the largest power of two ``<= vec`` that divides
  the shape's last dimension and leaves every thread at least one run
  (``numel >= T * v``); a function of the shape alone, so that all tiles of one shape share
  one layout (elementwise ops, loop-carried values and branches need no exchange); ops that
  change the shape (``reshape``, ``broadcast``, ``permute``, ``reduce``...) exchange through
  shared memory unless both layouts agree (:meth:`SimtLayout.same_order`).

Whether a given access *is* vectorized is decided per run at run time (the run in bounds,
its address aligned to the vector's size, the last stride 1), with scalar, masked accesses
otherwise: a ragged or misaligned tile is never read or written by a vector access.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, ints
from tileorch.transforms.tileaa_to_simt.emit import byte_size, global_type, supported_element
from tileorch.transforms.tileaa_to_simt.pointers import contiguous_access_width

VECTOR_BYTES = 16
"""The widest global access (``ld.global.v4.b32``)."""


@dataclass(frozen=True)
class SimtLayout:
    """The blocked layout of a function's tiles (see the module docstring)."""

    threads: int
    vec: int
    reason: str

    def vec_of(self, shape) -> int:
        """Contiguous elements per thread run for a tile of ``shape`` (a power of two)."""
        if not shape:
            return 1
        n = 1
        for d in shape:
            n *= d
        v = self.vec
        while v > 1 and (shape[-1] % v or n < self.threads * v):
            v //= 2
        return v

    def slots(self, shape) -> int:
        """Register slots per thread of a tile of ``shape``: whole runs."""
        n = 1
        for d in shape:
            n *= d
        v = self.vec_of(shape)
        return -(-n // (v * self.threads)) * v

    def same_order(self, a, b) -> bool:
        """Tiles of shapes ``a`` and ``b`` with equal numbers of elements hold element ``f`` of
        the row-major order in the same thread and slot."""
        return self.vec_of(a) == self.vec_of(b)

    def describe(self) -> str:
        return (f"SIMT layout: {self.threads} threads, blocked along the tile's last dimension, up to "
                f"{self.vec} contiguous elements per thread ({self.reason})")


def vectorizable_access(op: Operation) -> int:
    """The vector width (elements) of a global ``tiled_load``/``tiled_store`` ``op``: 16 bytes
    over its element size when the view puts the tile's last dimension on the array's last
    dimension and that dimension's stride is 1 or dynamic; else 1."""
    sem = op.mem_semantic
    if sem is not None and sem.value.data != "weak":  # an ordered access stays scalar
        return 1
    view = op.view.type
    mem = view.memref
    order = ints(view.order)
    rank = len(mem.get_shape())
    if rank == 0 or len(order) != rank or order[-1] != rank - 1:
        return 1
    stride = mem.get_strides()[-1]
    if stride != 1 and stride != DYNAMIC:  # a static stride other than 1
        return 1
    elt = mem.element
    if not supported_element(elt):
        return 1
    size = byte_size(global_type(elt))
    return max(1, VECTOR_BYTES // size)


NUM_WARPS_AUTO = "tileorch.num_warps_auto"
"""The attribute ``convert-cudatile-to-tileaa`` sets on a kernel without a warps hint."""

MIN_THREADS, MAX_THREADS = 32, 512

ROW_RUNS = 4
"""Vector runs per thread in a single-pass reduction kernel (see :func:`choose_threads`): 64
bytes in flight per thread, a 1024-element f16 row in one warp."""

_LOOPS = ("scf.for", "scf.while")


def _single_pass_reduction(fn: Operation) -> bool:
    """``fn`` reduces a tile (``nv_tileaa.reduce``) and has no loop: a row program (softmax,
    layernorm, rmsnorm, argmax) that loads its tiles once, combines, and stores."""
    has_reduce = False
    for op in fn.walk():
        if op.name in _LOOPS:
            return False
        has_reduce = has_reduce or op.name == "nv_tileaa.reduce"
    return has_reduce


def choose_threads(fn: Operation) -> int:
    """Threads per CTA of ``fn``: ``32 * num_worker_warps`` of its kernel_spec when the program
    chose it (default 4 warps); else, when the kernel moves tiles with vector accesses and has
    no ``dot`` and no ``permute``, ``R`` vector runs per thread of its largest such tile, between
    32 and 512 threads (a power of two): a small tile gets a small CTA (more CTAs resident per
    SM, hence more bytes in flight: the SM's limit is CTAs as well as threads), a large tile
    more warps (more loads in flight per CTA, fewer slots per thread), as Triton sizes
    ``num_warps`` to the block.

    ``R`` is 1, except in a single-pass reduction kernel (:func:`_single_pass_reduction`),
    where it is :data:`ROW_RUNS`: such a CTA is serial (load, combine across threads, use,
    store), so while it combines it has nothing in flight; holding 4 runs per thread doubles
    what the resident CTAs have in flight (an SM holds at most 32 CTAs and 64 warps: 1-warp
    CTAs of 64 bytes per thread are 64 KB per SM against 32 KB for 4-warp CTAs of 16), a
    1024-element f16 row fits one warp, so its reductions are shuffles only (no shared
    memory, no ``bar.sync``), and 4096 such rows fit one wave on 132 SMs.  torch's softmax
    uses the same one warp per row of up to 1024 elements.  Kernels with a loop keep ``R = 1``:
    their loads are issued one iteration ahead (``prefetch.py``), in flight already."""
    spec = fn.kernel_spec()
    threads = 32 * (spec.num_worker_warps.data if spec is not None else 4)
    if NUM_WARPS_AUTO not in fn.attributes:
        return threads
    runs = ROW_RUNS if _single_pass_reduction(fn) else 1
    best = 0
    for op in fn.walk():
        if op.name == "nv_tileaa.dot":
            return threads
        if op.name == "nv_tileaa.permute":
            # a transpose exchanges the whole tile through shared memory: 4 warps, each thread
            # several runs, measured faster than one run per thread (H200, 2026-12-02: 3.98
            # vs 3.77 TB/s on a 32x64 f32 transpose at 512 threads)
            return threads
        if op.name not in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store"):
            continue
        w = vectorizable_access(op)
        t = op.results[0].type if op.name in ("nv_tileaa.tiled_load", "nv_tileaa.load") else \
        op.tile.type if op.name == "nv_tileaa.tiled_store" else op.value.type
        if w <= 1 or not isinstance(t, TensorType) or any(d <= 0 for d in t.get_shape()):
            continue
        n = 1
        for d in t.get_shape():
            n *= d
        best = max(best, n // w // runs)
    if best == 0:
        return threads
    t = MIN_THREADS
    while t * 2 <= min(best, MAX_THREADS):
        t *= 2
    return t


def choose_layout(fn: Operation, threads: int) -> SimtLayout:
    """The blocked layout of ``fn``'s tiles (an ``nv_tileaa.func``; see the module docstring)."""
    widths = []
    for op in fn.walk():
        if op.name in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store"):
            widths.append((vectorizable_access(op), op))
        elif op.name in ("nv_tileaa.load", "nv_tileaa.store"):  # a gather/scatter along contiguous rows
            widths.append((contiguous_access_width(op), op))
    vec = max((w for w, _ in widths), default=1)
    if vec == 1:
        why = "no global access along a contiguous dimension" if widths else "no global tile access"
        return SimtLayout(threads, 1, why)
    _, op = max(widths, key=lambda x: x[0])
    t = op.results[0].type if op.name in ("nv_tileaa.tiled_load", "nv_tileaa.load") else \
        op.tile.type if op.name == "nv_tileaa.tiled_store" else op.value.type
    elt = t.element_type if isinstance(t, TensorType) else t
    return SimtLayout(threads, vec, f"{VECTOR_BYTES} bytes of {elt} per access")


def layout_remarks(module: Operation) -> list[str]:
    """One ``remark:`` line per ``nv_tileaa.func`` of ``module``: the layout the SIMT lowering
    will give its tiles."""
    out = []
    for fn in module.walk():
        if fn.name != "nv_tileaa.func":
            continue
        out.append(f"remark: @{fn.sym_name.data}: {choose_layout(fn, choose_threads(fn)).describe()}")
    return out


__all__ = ["NUM_WARPS_AUTO", "ROW_RUNS", "SimtLayout", "VECTOR_BYTES", "choose_layout", "choose_threads", "layout_remarks", "vectorizable_access"]
