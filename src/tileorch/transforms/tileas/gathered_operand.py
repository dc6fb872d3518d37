"""A dot operand read by ``ct.gather`` (a tile of pointers: MoE token rows, embedding or paged rows, an im2col):
which operand and which of its dimensions the index array picks (:func:`gathered_operand`), whether the GEMM
tier takes it as a *gathered A* (:func:`gathered_a_refusal`; the words of its located refusal otherwise,
:func:`gathered_operand_message`), and the map the consumers evaluate (:func:`gathered_a_prologue`).

The gathered-A path (session 25): Hopper's TMA has no row gather (``cp.async.bulk.tensor`` ``.tile::gather4``
is sm_100's).  The producer could copy rows with non-tensor ``cp.async.bulk`` (16-byte aligned, multiple-of-16
sizes), but WGMMA's K-major operand layouts never hold a row's 16-byte chunks next to each other (swizzled:
the chunks of a row permuted by the row; interleaved: 8-row x 16-byte core matrices, a row's chunks ``LBO``
apart), so a 64 x 64 f16 tile would take 512 copies of 16 bytes, and a bulk copy has neither a bounds check
nor a zero fill (masked rows and the K tail would need generic-proxy stores and ``fence.proxy.async``).  So
the consumers bring A themselves, as WGMMA's *register* A operand: each thread evaluates the gather (and the
program's ops between it and the dot) at its own elements of the m64k16 A fragment
(:mod:`~tileorch.transforms.tileas.register_a_operand`, whose ``OperandLowering`` lowers a pointer-tile load
per element: masked and out-of-bounds elements read as the gather's padding), packs them and issues the
WGMMAs with A from registers; the index tiles (``ct.load(Idx, ...)``) are loaded at the thread's rows once per
work tile.  The producer loads only B (``GemmConfig.a_gather``: no A in the stages or the transaction
count), the launcher takes M from C and K from B (the gathered array may have any shape).  The kernel keeps
the program's K tile (the gather reads the K index).  Cost, not measured: the A loads' latency is the
consumers' own (not hidden by the stages), one 16-bit load per element.  ``TILEORCH_GATHERED_A=simt`` keeps
the SIMT path.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from tileorch import settings

OPERAND_PATH = ("nv_tileas.convert_layout", "nv_tileaa.reshape", "nv_tileaa.fp_to_fp", "nv_tileaa.permute",
                "nv_tileas.broadcast", "nv_tileaa.broadcast", "nv_tileas.expand_dim", "nv_tileaa.expand_dims")
"""Ops between a dot operand and the load it is read from that move no data between elements."""

_EXPANDS = ("nv_tileas.expand_dim", "nv_tileaa.expand_dims")
_MEMORY = ("nv_tileaa.load", "nv_tileas.tiled_load", "nv_tileaa.tiled_load")
_DIMENSIONS = {"A": ("rows (M)", "columns (K)"), "B": ("rows (K)", "columns (N)")}


def gathered_operand(dots) -> tuple[Operation, str, tuple[int, ...]] | None:
    """(the pointer-tile load a dot operand is read from through :data:`OPERAND_PATH`, ``"A"`` or ``"B"``, the
    operand's dimensions whose index is read from memory) for the first such operand of ``dots``, or None.
    A permute on the way swaps the dimensions; an index computed from program ids and ranges alone (no
    dimension read from memory) gives ``()``.  With several dots (a chain), a gather inside a loop (a K / V tile)
    comes first: the chained kernel reads a gathered first-dot A (Q, before the loop) itself (session 44)."""
    found_all = []
    for dot in dots:
        for role, v in (("A", dot.lhs), ("B", dot.rhs)):
            found = gather_source(v)
            if found is not None:
                found_all.append((found, role))
    if len(dots) > 1:
        found_all.sort(key=lambda x: not _in_loop(x[0][0]))
    for (op, swapped), role in found_all[:1]:
        dims = _indexed_dimensions(op)
        return op, role, tuple(sorted(1 - d for d in dims)) if swapped else dims
    return None


def _in_loop(op: Operation) -> bool:
    p = op.parent_op()
    while p is not None:
        if p.name == "scf.for":
            return True
        p = p.parent_op()
    return False


def gather_source(v: SSAValue) -> tuple[Operation, bool] | None:
    """(the pointer-tile load, ``ct.gather``, that the dot operand ``v`` is read from through :data:`OPERAND_PATH`;
    whether a permute on the way swaps its dimensions), or None."""
    op, swapped = v.owner, False
    while isinstance(op, Operation) and op.name in OPERAND_PATH and op.operands:
        swapped ^= op.name == "nv_tileaa.permute"
        op = op.operands[0].owner
    return (op, swapped) if isinstance(op, Operation) and op.name == "nv_tileaa.load" else None


def _indexed_dimensions(load: Operation) -> tuple[int, ...]:
    """The dimensions of a rank-2 gather whose element offsets are read from memory: an index tile loaded
    (``ct.load`` / ``ct.gather`` of an index array) and expanded to ``[n, 1]`` indexes dimension 0, to
    ``[1, n]`` dimension 1; a loaded index of the gather's full rank indexes both.  A tile block argument (the
    consumer's read of an index tile the producer staged) counts as loaded."""
    ptr = load.operands[0].owner
    if not (isinstance(ptr, Operation) and ptr.name == "nv_tileaa.offset"):
        return ()
    found: set[int] = set()
    seen: set[int] = set()

    def loaded(rank: int, dim: int | None) -> None:
        found.update((dim,) if dim is not None else (0, 1) if rank >= 2 else ())

    def walk(v: SSAValue, dim: int | None) -> None:
        op = v.owner
        if not isinstance(op, Operation):  # a tile block argument: the consumer's read of a staged load
            if isinstance(v.type, TensorType):
                loaded(len(v.type.get_shape()), dim)
            return
        if id(op) in seen:
            return
        seen.add(id(op))
        if op.name in _MEMORY:
            loaded(len(op.results[0].type.get_shape()) if isinstance(op.results[0].type, TensorType) else 0, dim)
            return
        if op.name in _EXPANDS:
            at = op.properties.get("dim", op.attributes.get("dim"))
            dim = 1 - at.value.data if at is not None else dim
        for x in op.operands:
            walk(x, dim)

    walk(ptr.operands[1], None)
    return tuple(sorted(d for d in found if d in (0, 1)))


def gathered_operand_message(role: str, dims: tuple[int, ...], why: str) -> str:
    """The tier's refusal of a gathered dot operand: which operand and dimensions, and ``why`` its gathered-A
    path does not take it (:func:`gathered_a_refusal`)."""
    what = (" and ".join(_DIMENSIONS[role][d] for d in dims) + (" are" if dims else "")) if dims else \
        "elements are"
    return (f"this dot operand is gathered: {role}'s {what} gathered (ct.gather through an index array, e.g. an "
            f"MoE token gather, embedding or paged rows, an im2col), which the tensor-core tier does not take here: "
            f"{why} (Hopper's TMA has no row gather; the tier's gathered-A path has each consumer thread load its "
            "elements of WGMMA's register A operand from global memory)")


GATHERED_A_ENV = "TILEORCH_GATHERED_A"
"""``simt``: a dot whose A is gathered runs on the SIMT path (the tier refuses it, naming this switch); default
(unset): the tier's gathered A (:func:`gathered_a_refusal`).  Read at each compile, part of the disk-cache key."""


def gathered_a_off() -> bool:
    """``TILEORCH_GATHERED_A=simt``: the tier refuses gathered A operands."""
    return settings.value(GATHERED_A_ENV) == "simt"


def gathered_a_refusal(gathered: tuple, dots: list, operand_loads: list, tile_stores: int) -> str | None:
    """Why the GEMM tier does not take ``gathered`` (:func:`gathered_operand`'s answer) as a gathered A, or None
    when it does: the gather feeds one dot's A as a 2-D tile, the dot's B is the producer's one TMA tile load
    (``operand_loads``: the kernel's tile loads of more than one wide dimension), the product is stored as a
    tile (``tile_stores`` > 0), and :data:`GATHERED_A_ENV` does not say ``simt``."""
    from tileorch.dialects import nv_tileas_tile as ts

    load, role, _ = gathered
    shape = load.results[0].type.get_shape() if isinstance(load.results[0].type, TensorType) else []
    if gathered_a_off():
        return f"{GATHERED_A_ENV}=simt is set"
    if role != "A":
        return "a gathered B is not taken (WGMMA reads B from shared memory only; only A may be gathered)"
    if len(dots) != 1 or len(shape) != 2:
        return "a gathered A is taken for one 2-D dot"
    if len(operand_loads) != 1 or not isinstance(operand_loads[0].atom, ts.TmaLoadAtomAttr):
        return "a gathered A is taken beside a B read as a tile (ct.load), not a gathered or computed one"
    if not tile_stores:
        return ("a gathered A is taken when the product is stored as a tile (ct.store of C at its row tile); this "
                "one is written otherwise (ct.scatter by the same rows, not supported yet)")
    return None


def gathered_a_remark(cfg, pro) -> str:
    """The remark's words for the gathered-A path of ``cfg`` (``pro``: its :func:`gathered_a_prologue`)."""
    steps = cfg.tile_k // 16
    return (f"dot operand A gathered (ct.gather): WGMMA's register A operand loaded by the consumer warp groups "
            f"from global memory, each thread its {cfg.tile_k // 2} elements of the {cfg.tile_m}x{cfg.tile_k} tile "
            f"per K tile in the m64k16 A-fragment layout (one masked {cfg.dtype} load per element, out-of-bounds and "
            f"masked elements as the gather's padding), packed as the A registers of its {steps} wgmma.mma_async "
            f"(A from registers, B from shared memory); the producer loads only B ({cfg.stages} stages of "
            f"{cfg.stage_bytes} bytes), 1 CTA per cluster, the {cfg.schedule} schedule; {len(pro.vectors)} index "
            "tile(s) read at the thread's rows (Hopper's TMA has no row gather; TILEORCH_GATHERED_A=simt: the SIMT "
            "path)")


def gathered_a_prologue(kernel, dot: Operation, gather: Operation, fail):
    """The map from memory to the dot's A when A is read by the pointer-tile load ``gather`` (``ct.gather``):
    a :class:`~tileorch.transforms.tileas.operand_prologue.QPrologue` with no root tile (each consumer thread
    evaluates the gather, and the program's ops between it and the dot, at its fragment's elements:
    :mod:`~tileorch.transforms.tileas.register_a_operand`) whose vectors are the tile loads its pointers, mask
    and padding read (the token ids ``ct.load(Idx, ...)``), loaded from global memory at the element's
    coordinates (once per work tile when they do not change along K).  ``top``: the dot's A stripped of layout
    changes, unit reshapes and a transpose (``seen`` names them).  Refuses (``fail``) a load that is not weak."""
    from tileorch.transforms.tileas.common import source_load
    from tileorch.transforms.tileas.operand_prologue import QPrologue, strip_layouts

    top, seen = strip_layouts(dot.lhs)
    sem = gather.properties.get("mem_semantic", gather.attributes.get("mem_semantic"))
    if sem is not None and str(sem.value.data) != "weak":
        fail(gather, f"a gathered A read with memory order {sem.value.data} (the consumers' loads are weak)")
    vectors: list[Operation] = []
    values: dict = {}
    visited: set[int] = set()

    def walk(v: SSAValue) -> None:
        if id(v) in visited:
            return
        visited.add(id(v))
        ld = source_load(v) if isinstance(v.type, TensorType) else None
        if ld is not None:
            if ld not in vectors:
                vectors.append(ld)
            values[id(v)] = ld
            return
        if isinstance(v.owner, Operation):
            for x in v.owner.operands:
                walk(x)

    walk(top)
    return QPrologue(top, [], [], seen, False, {}, vectors, [], values)
