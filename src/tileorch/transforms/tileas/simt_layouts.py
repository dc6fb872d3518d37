"""The layouts of the SIMT route's tiles: decided here, attached as ``#nv_tileaa.blocked``.

A kernel without a dot (softmax, layernorm, row/column sums, gathers, transposes...) stays in
``nv_tileaa`` and is lowered by ``convert-nv-tileaa-to-simt``; the layout passes decide how its
tiles lie over the threads (``tileas-assign-load-store-layouts`` calls :func:`assign_simt_layouts`,
``tileas-remove-layout-conversions`` calls :func:`remove_equal_conversions`) and the lowering
holds them so (``tileaa_to_simt/layout.py`` reads the attributes).  Model: Triton's coalescing
pass.

* **Threads** (:func:`choose_threads`): ``32 * num_worker_warps`` of the kernel_spec when the
  program chose it; else (``tileorch.num_warps_auto``) sized to the tiles: ``R`` vector runs per
  thread of the largest vector-accessed tile, 32 to 512 threads.  Short rows thus get small
  CTAs holding several rows (4 rows per warp for 8-element f32 rows...), long rows a row across
  several warps; ``R = 4`` (:data:`ROW_RUNS`) in a single-pass reduction kernel (a 1024-wide
  f16 row is one warp, its reductions warp shuffles only) and in a loop-free gather
  (``TILEORCH_GATHER_RUNS``, default 4: its loads wait on the index load before them), else 1.
* **Runs** (:func:`choose_run`): 16 bytes (:data:`VECTOR_BYTES`; ``TILEORCH_SIMT_VECTOR_BYTES`` 4 or 8 narrows it) of the narrowest element among
  the function's accesses that move a tile's last dimension along the array's contiguous one
  (a view whose order ends with the array's last dimension, stride 1 or checked at run time; a
  pointer tile of consecutive addresses along its last dimension), 1 when there is none (the
  cyclic layout).  Coalesced: consecutive threads hold consecutive runs.
* **Per tile** (``BlockedLayoutAttr.on_shape``): a tile of shape ``S`` takes the largest power
  of two run ``<=`` the function's that divides ``S[-1]`` and leaves every thread a run; lanes
  then warps laid innermost dimension first.  A function of the shape alone: every tile of one
  shape has one layout (elementwise ops, loop-carried values and branches need no exchange).

Attached: ``nv_tileaa.simt_layout`` on the function (threads, widest run), ``nv_tileaa.layout``
on each ``tiled_load``/``tiled_store``/``load``/``store``/``reduce``/``scan`` of a tile of rank
>= 1, and on each ``reshape``/``expand_dims`` its result's layout plus, where its source's
differs, ``nv_tileaa.source_layout`` (a conversion: an exchange through shared memory).
:func:`remove_equal_conversions` drops ``source_layout`` where both layouts place every element
of the row-major order in the same thread and slot (then the op renames registers).  Functions
already in ``nv_tileas`` form (the tensor-core tier) are not touched.
"""

from __future__ import annotations

from xdsl.dialects.builtin import NoneAttr, TensorType
from xdsl.ir import Operation

from tileorch import settings
from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, ints
from tileorch.dialects.nv_tileaa.blocked import FUNCTION_LAYOUT, LAYOUT, SOURCE_LAYOUT, BlockedLayoutAttr

VECTOR_BYTES = 16
"""The widest global access (``ld.global.v4.b32``)."""

VECTOR_BYTES_ENV = "TILEORCH_SIMT_VECTOR_BYTES"
"""The widest global access of the SIMT layouts in bytes, one of 4, 8, 16 (default
:data:`VECTOR_BYTES`): ``4`` lays tiles out as tileiras does its row gathers (one element per
thread per access, 128-byte warp accesses); for measuring whether the access width matters (the
issue-21 probe ``benchmarks/session20_mem_probe.sh``).  Read at each compile (a cache-key switch)."""


def vector_bytes() -> int:
    """The widest global access in bytes: ``TILEORCH_SIMT_VECTOR_BYTES`` when it is 4, 8 or 16,
    else :data:`VECTOR_BYTES`."""

    return settings.integer(VECTOR_BYTES_ENV) or VECTOR_BYTES

NUM_WARPS_AUTO = "tileorch.num_warps_auto"
"""The attribute ``convert-cudatile-to-tileaa`` sets on a kernel without a warps hint."""

MIN_THREADS, MAX_THREADS = 32, 512

ROW_RUNS = 4
"""Vector runs per thread in a single-pass reduction kernel (see :func:`choose_threads`): 64
bytes in flight per thread, a 1024-element f16 row in one warp (``TILEORCH_ROW_RUNS``
overrides it: :func:`row_runs`)."""

ROW_RUNS_ENV = "TILEORCH_ROW_RUNS"


def row_runs() -> int:
    """Vector runs per thread of a single-pass reduction kernel: ``TILEORCH_ROW_RUNS`` when it is
    a positive integer, else :data:`ROW_RUNS` (as ``TILEORCH_GATHER_RUNS`` is read).

    A switch for measuring (issue 22), off by default: a kernel's code, hence its compile time,
    grows with its runs per thread (each run's loads, conversions and arithmetic are unrolled).
    Measured on the 2-core machine (session 22, ``benchmarks/compile_op_slope.py``: a warm
    compile costs ~120-150 us of CPU per op of the lowered kernel), a 1024-wide f16 row softmax
    at 4 / 2 / 1 runs: 2894 / 1622 / 993 lowered ops, 0.34 / 0.19 / 0.12 s warm compile, ptxas
    0.09 / 0.05 / 0.04 s, 1696 / 968 / 616 SASS instructions (tileiras: 608, 128 threads);
    a 256-wide f16 layernorm: 4097 / 2259 / 1347 ops, 0.50 / 0.29 / 0.17 s.  What fewer runs
    cost at run time (fewer bytes in flight per resident CTA) is what ``ROW_RUNS`` was chosen
    by; ``tests/gpu/test_memory_bound_gpu.py`` and ``benchmarks/memory_bound.py`` measure it."""

    return settings.integer(ROW_RUNS_ENV) or ROW_RUNS

_LOOPS = ("scf.for", "scf.while")
MOVES = ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store", "nv_tileaa.load", "nv_tileaa.store")
COMBINES = ("nv_tileaa.reduce", "nv_tileaa.scan")
RESHAPES = ("nv_tileaa.reshape", "nv_tileaa.expand_dims")


def _encoded(t) -> bool:
    return isinstance(t, TensorType) and not isinstance(t.encoding, NoneAttr)


def is_simt_function(fn: Operation) -> bool:
    """``fn`` is an ``nv_tileaa.func`` still in ``nv_tileaa`` form (the SIMT route): no
    ``nv_tileas`` op and no tile with a layout encoding, which ``convert-tileaa-to-tileas``
    would have made."""
    if fn.name != "nv_tileaa.func":
        return False
    for o in fn.walk():
        if o.name.startswith("nv_tileas.") or any(_encoded(r.type) for r in o.results):
            return False
        for region in o.regions:
            if any(_encoded(a.type) for b in region.blocks for a in b.args):
                return False
    return True


def vectorizable_access(op: Operation) -> int:
    """The vector width (elements) of a global ``tiled_load``/``tiled_store`` ``op``: 16 bytes
    over its element size when the view puts the tile's last dimension on the array's last
    dimension and that dimension's stride is 1 or dynamic; else 1."""
    from tileorch.transforms.tileaa_to_simt.emit import byte_size, global_type, supported_element

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
    return max(1, vector_bytes() // size)


ROW_CACHE_THREADS_ENV = "TILEORCH_ROW_CACHE_THREADS"


def row_cache_run(fn: Operation) -> int | None:
    """Elements per access of a kernel that keeps a bulk-filled row in shared memory, when
    ``TILEORCH_ROW_CACHE_THREADS=T`` asks for ``T`` threads: the row cache's fill (``tileaa-row-smem-cache``'s
    mark, before the layouts) loads a ``1 x ... x n`` tile along its last dimension and the bulk fill is on
    (``TILEORCH_ROW_BULK_FILL``: the row arrives by ``cp.async.bulk``, so the width of the threads' own accesses
    -- shared-memory reads, global stores -- does not set the bytes in flight), so the run narrows to
    ``n / T`` elements, at least 4 bytes (the row cache's slots hold 32-bit words) and at most the access's
    own width; None otherwise (the kernel sized as any other).  Why: a CTA holding a long row in shared memory
    shares its SM with few others (a 64 KB row: 3 CTAs), and at 128 threads those are 12 warps an SM, too few
    to hide the latency of a loop's arithmetic and shared-memory reads (H100, session 31: CE forward +
    backward 0.96 / 0.94 / 0.77 of the copy rate at 8192 / 16384 / 32000 columns, the same bytes)."""
    threads = settings.integer(ROW_CACHE_THREADS_ENV)
    if not threads:
        return None
    from tileorch.transforms.tileaa_to_simt import row_bulk_fill, row_smem_cache
    from tileorch.transforms.tileaa_to_simt.emit import byte_size, global_type

    if not (row_smem_cache.enabled() and row_bulk_fill.enabled()):
        return None
    for op in fn.walk():
        if op.name != "nv_tileaa.tiled_load" or row_smem_cache.FILL not in op.attributes:
            continue
        shape = _shape(op.results[0].type)
        axis = op.attributes.get(row_smem_cache.AXIS)
        if shape is None or axis is None or axis.value.data != len(shape) - 1 or any(d != 1 for d in shape[:-1]):
            return None
        width = vectorizable_access(op)
        least = max(1, 4 // byte_size(global_type(op.view.type.memref.element)))
        if width < least:
            return None
        return max(least, min(width, shape[-1] // threads))
    return None


def access_width(op: Operation) -> int:
    """Elements per vector access of a global tile access ``op`` (:data:`MOVES`), 1 if scalar."""
    if op.name in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store"):
        return vectorizable_access(op)
    from tileorch.transforms.tileaa_to_simt.pointers import contiguous_access_width

    return contiguous_access_width(op)


def moved_tile(op: Operation):
    """The tile type an access (:data:`MOVES`), reduction or scan moves or combines."""
    if op.name in ("nv_tileaa.tiled_load", "nv_tileaa.load"):
        return op.results[0].type
    if op.name == "nv_tileaa.tiled_store":
        return op.tile.type
    if op.name == "nv_tileaa.store":
        return op.value.type
    return op.operands[0].type


def _single_pass_reduction(fn: Operation) -> bool:
    """``fn`` reduces a tile (``nv_tileaa.reduce``) and has no loop: a row program (softmax,
    layernorm, rmsnorm, argmax) that loads its tiles once, combines, and stores."""
    has_reduce = False
    for op in fn.walk():
        if op.name in _LOOPS:
            return False
        has_reduce = has_reduce or op.name == "nv_tileaa.reduce"
    return has_reduce


def gathers(fn: Operation) -> bool:
    """``fn`` loads a tile through a pointer tile (``nv_tileaa.load`` of more than one element: a
    gather, its addresses computed from tiles, often from another load) and has no loop: each
    CTA loads, then uses; its loads depend on the index load before them (two latencies in a
    row), so a thread should hold several independent vector loads (see :func:`choose_threads`)."""
    has_gather = False
    for op in fn.walk():
        if op.name in _LOOPS:
            return False
        if op.name == "nv_tileaa.load":  # a tile of pointers (not one scalar read through a pointer)
            t = op.results[0].type
            has_gather = has_gather or (isinstance(t, TensorType) and len(t.get_shape()) >= 1
                                        and any(d > 1 for d in t.get_shape()))
    return has_gather


ONLINE_RUNS_ENV = "TILEORCH_ONLINE_SOFTMAX_RUNS"
"""Vector runs per thread in a kernel holding the per-thread online softmax form (:func:`online_softmax`);
default 1 (sized as any kernel with a loop)."""


def online_softmax(fn: Operation) -> bool:
    """``fn`` holds a loop that ``tileaa-hoist-online-softmax`` rewrote to its per-thread form: a
    reduction marked ``thread_partials.THREAD_PARTIAL`` (each thread folds its own elements; the
    threads meet once, after the loop)."""
    from tileorch.transforms.tileaa_to_simt.thread_partials import THREAD_PARTIAL  # the SIMT side's name

    return any(op.name == "nv_tileaa.reduce" and THREAD_PARTIAL in op.attributes for op in fn.walk())


def online_runs() -> int:
    """Vector runs per thread of an online softmax kernel (:func:`online_softmax`):
    ``TILEORCH_ONLINE_SOFTMAX_RUNS``, 1 by default.  Its loop crosses threads nowhere, so what a
    row costs besides its tiles (the peeled first tile's two reductions across the CTA, the
    combine's two, the epilogue) is paid by fewer threads when each holds more runs (4: a
    1024-element bf16 tile in one warp, its reductions shuffles only).  PTX emulator, the cross
    entropy's 4096- and 32000-wide rows fitted to ``fixed + per element * width``
    (``benchmarks/results/rowred_traffic_s27.json``, ``TILEORCH_ONLINE_SOFTMAX_EXP=ex2``): about
    32600 thread-instructions a row at 128 threads (46% of the 4096-wide row's), 8300 at 32."""
    return settings.integer(ONLINE_RUNS_ENV) or 1


GATHER_RUNS_ENV = "TILEORCH_GATHER_RUNS"
"""Vector runs per thread in a loop-free gather kernel (:func:`gathers`); default
:data:`ROW_RUNS`, ``1`` the former sizing (one run per thread)."""


def _gather_runs() -> int:

    return settings.integer(GATHER_RUNS_ENV) or ROW_RUNS


def choose_threads(fn: Operation) -> int:
    """Threads per CTA of ``fn``: ``32 * num_worker_warps`` of its kernel_spec when the program
    chose it (default 4 warps); else, when the kernel moves tiles with vector accesses (through a
    view, or through a tile of pointers whose addresses are consecutive along the last dimension:
    a gather or scatter of rows) and has no ``dot`` and no ``permute``, ``R`` vector runs per
    thread of its largest such tile, between
    32 and 512 threads (a power of two): a small tile gets a small CTA (more CTAs resident per
    SM, hence more bytes in flight: the SM's limit is CTAs as well as threads), a large tile
    more warps (more loads in flight per CTA, fewer slots per thread), as Triton sizes
    ``num_warps`` to the block.

    ``R`` is 1, except in a loop-free gather (:func:`gathers`: ``TILEORCH_GATHER_RUNS``, default
    4, so that a 4 x 1024 bf16 row gather is 128 threads of four 16-byte loads, as tileiras
    issues its gather: the loads wait on the index load, a latency that only more bytes in
    flight per thread hides) and in a single-pass reduction kernel (:func:`_single_pass_reduction`),
    where it is :data:`ROW_RUNS`: such a CTA is serial (load, combine across threads, use,
    store), so while it combines it has nothing in flight; holding 4 runs per thread doubles
    what the resident CTAs have in flight (an SM holds at most 32 CTAs and 64 warps: 1-warp
    CTAs of 64 bytes per thread are 64 KB per SM against 32 KB for 4-warp CTAs of 16), a
    1024-element f16 row fits one warp, so its reductions are shuffles only (no shared
    memory, no ``bar.sync``), and 4096 such rows fit one wave on 132 SMs.  torch's softmax
    uses the same one warp per row of up to 1024 elements.  Kernels with a loop keep ``R = 1``:
    their loads are issued one iteration ahead (``prefetch.py``), in flight already; one holding
    the per-thread online softmax takes ``TILEORCH_ONLINE_SOFTMAX_RUNS`` (:func:`online_runs`)."""
    spec = fn.kernel_spec()
    threads = 32 * (spec.num_worker_warps.data if spec is not None else 4)
    if NUM_WARPS_AUTO not in fn.attributes:
        return threads
    runs = (row_runs() if _single_pass_reduction(fn) else _gather_runs() if gathers(fn)
            else online_runs() if online_softmax(fn) else 1)
    narrow = row_cache_run(fn)
    best = 0
    for op in fn.walk():
        if op.name == "nv_tileaa.dot":
            return threads
        if op.name == "nv_tileaa.permute":
            # a transpose exchanges the whole tile through shared memory: 4 warps, each thread
            # several runs, measured faster than one run per thread (H200, 2026-12-02: 3.98
            # vs 3.77 TB/s on a 32x64 f32 transpose at 512 threads)
            return threads
        if op.name not in MOVES:
            continue
        w = access_width(op)  # a pointer tile's too: a gather/scatter moves its tile as a view access does
        w = w if narrow is None else min(w, narrow)
        t = moved_tile(op)
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


def choose_run(fn: Operation) -> tuple[int, str]:
    """(the widest run of ``fn``'s tiles, why): see the module docstring."""
    widths = [(access_width(op), op) for op in fn.walk() if op.name in MOVES]
    vec = max((w for w, _ in widths), default=1)
    narrow = row_cache_run(fn)
    if narrow is not None and vec > narrow:
        return narrow, (f"{ROW_CACHE_THREADS_ENV}={settings.integer(ROW_CACHE_THREADS_ENV)}: the bulk-filled row "
                        f"cache's kernel at {narrow} element(s) per access")
    if vec == 1:
        if widths and vector_bytes() != VECTOR_BYTES:
            return 1, f"{VECTOR_BYTES_ENV}={vector_bytes()}: at most {vector_bytes()} bytes per access"
        return 1, "no global access along a contiguous dimension" if widths else "no global tile access"
    _, op = max(widths, key=lambda x: x[0])
    t = moved_tile(op)
    elt = t.element_type if isinstance(t, TensorType) else t
    return vec, f"{vector_bytes()} bytes of {elt} per access"


def function_layout(fn: Operation) -> BlockedLayoutAttr:
    """The rank-1 layout ``fn``'s tiles are blocked by (threads, widest run)."""
    return BlockedLayoutAttr.flat(choose_threads(fn), choose_run(fn)[0])


def _shape(t) -> tuple[int, ...] | None:
    """The static shape of a tile type of rank >= 1, else None (no layout to attach)."""
    if not isinstance(t, TensorType) or not t.get_shape() or any(d <= 0 for d in t.get_shape()):
        return None
    return tuple(t.get_shape())


def assign_simt_layouts(fn: Operation) -> None:
    """Attach the layouts of ``fn`` (an ``nv_tileaa.func`` on the SIMT route): see the module
    docstring.  Idempotent: an attached layout is decided again from the function's."""
    base = function_layout(fn)
    fn.attributes[FUNCTION_LAYOUT] = base
    for op in fn.walk():
        if op.name in MOVES or op.name in COMBINES:
            shape = _shape(moved_tile(op))
            if shape is not None:
                op.attributes[LAYOUT] = base.on_shape(shape)
        elif op.name in RESHAPES:
            src, res = _shape(op.operands[0].type), _shape(op.results[0].type)
            op.attributes.pop(SOURCE_LAYOUT, None)
            op.attributes.pop(LAYOUT, None)
            if src is None or res is None:
                continue
            op.attributes[LAYOUT] = base.on_shape(res)
            op.attributes[SOURCE_LAYOUT] = base.on_shape(src)


def remove_equal_conversions(fn: Operation) -> int:
    """Drop ``source_layout`` from each ``reshape``/``expand_dims`` of ``fn`` whose source and
    result layouts place every element in the same thread and slot; returns how many."""
    removed = 0
    for op in fn.walk():
        if op.name not in RESHAPES:
            continue
        src, dst = op.attributes.get(SOURCE_LAYOUT), op.attributes.get(LAYOUT)
        if isinstance(src, BlockedLayoutAttr) and isinstance(dst, BlockedLayoutAttr) and src.same_placement(dst):
            del op.attributes[SOURCE_LAYOUT]
            removed += 1
    return removed


def layout_remarks(module: Operation) -> list[str]:
    """One ``remark:`` line per ``nv_tileaa.func`` of ``module`` carrying its layouts: threads,
    widest run and why, the layouts of its loads and stores (one per tile shape), and the
    conversions that remain."""
    out = []
    for fn in module.walk():
        if fn.name != "nv_tileaa.func" or not isinstance(fn.attributes.get(FUNCTION_LAYOUT), BlockedLayoutAttr):
            continue
        base = fn.attributes[FUNCTION_LAYOUT]
        _, why = choose_run(fn)
        shapes: dict[tuple, BlockedLayoutAttr] = {}
        conversions = 0
        for op in fn.walk():
            lay = op.attributes.get(LAYOUT)
            if op.name in MOVES and isinstance(lay, BlockedLayoutAttr):
                shapes.setdefault(_shape(moved_tile(op)), lay)
            conversions += SOURCE_LAYOUT in op.attributes
        tiles = "; ".join(f"{'x'.join(map(str, s))}: {lay.elems_[-1]} per run, {lay.describe(s)}"
                          for s, lay in shapes.items())
        out.append(f"remark: @{fn.sym_name.data}: SIMT layout: {base.threads} threads, blocked along the tile's last "
                   f"dimension, up to {base.elems_[-1]} contiguous elements per thread ({why})"
                   + (f"; tiles {tiles}" if tiles else "")
                   + (f"; {conversions} layout conversion(s) through shared memory" if conversions else "")
                   + (f"; {row_runs()} vector runs per thread of the row reduction ({ROW_RUNS_ENV}, default {ROW_RUNS})"
                      if row_runs() != ROW_RUNS and _single_pass_reduction(fn) else "")
                   + (f"; {online_runs()} vector runs per thread of the online softmax loop ({ONLINE_RUNS_ENV}, "
                      f"default 1)" if online_runs() != 1 and online_softmax(fn) else ""))
    return out


__all__ = ["GATHER_RUNS_ENV", "MAX_THREADS", "MIN_THREADS", "NUM_WARPS_AUTO", "ONLINE_RUNS_ENV", "ROW_RUNS",
           "ROW_RUNS_ENV", "VECTOR_BYTES", "VECTOR_BYTES_ENV", "assign_simt_layouts", "choose_run", "choose_threads",
           "function_layout", "is_simt_function", "layout_remarks", "online_runs", "online_softmax",
           "remove_equal_conversions", "row_runs", "vector_bytes", "vectorizable_access"]
