"""K-indexed vectors of a computed GEMM operand loaded by the producer's TMA into each pipeline stage
(``GemmConfig.kvecs``; default on, ``TILEORCH_COMPUTED_OPERAND=global_k_vectors`` keeps the consumers' own loads, as
``prefetch`` does: it places those loads one K step ahead).

A computed operand's map may read a vector loaded at the K loop's index (``a * gamma[k]``, a group's scale
row ``S[k * tk // G, j]``).  Without this, every consumer thread loads the values it needs from global
memory in every K step (a 64-bit address, a bounds select and a padding select per value).  With it:

* :func:`plan` (at configuration) picks the vectors the producer can load with TMA: a tile of one wide
  dimension, the array's last (contiguous by its static unit stride), of a 1- or 2-D array the program
  takes as a parameter, tiles that do not overlap, a box of whole 16-byte units, and zero or unspecified
  padding (TMA fills zeros past the array).  The others keep the consumers' loads, and the remark says why.
* the kernel builder gives each picked vector a slot in every stage (after the rest of shared memory), a
  TMA load in the producer's stage fill whose bytes count in the stage's transaction bytes, and the
  consumers' ``%kvec_off<v>``; :func:`fill_producer_coordinates` gives the load its box coordinates, the
  program's index of the load evaluated at the producer's K tile and work tile; the consumers' lowering
  (``operand_prologue.OperandLowering``) reads a value as one shared load at the slot, after their wait on
  the stage.
* the host builds each vector's tensor map (2-D: the array's last dimension, then its rows, or 1 for a
  1-D array; box: the vector's elements x 1) from the program's argument and passes it after the kernel
  builder's parameters (``launchers/cutile.kvec_tensor_maps``); a launch whose array TMA cannot read in place (a
  misaligned base) runs the configuration the launcher asks for with ``kvec_global=1`` (:func:`plan`'s
  ``launcher_global``: the consumers' loads, as ``global_k_vectors``; session 42).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

GLOBAL_SWITCH = "global_k_vectors"
"""The ``TILEORCH_COMPUTED_OPERAND`` word that keeps the consumers' global loads of K-indexed vectors."""

TMA_DTYPES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4}
"""Element types a vector's tensor map takes here (the host's ``encode_tensor_map`` names), and their bytes."""


@dataclass
class KVector:
    """A K-indexed vector the producer TMA-loads: its load, element type name, rank (1 or 2), box elements, and the
    index of its array's pointer among the program's parameters."""

    load: Operation
    dtype: str
    rank: int
    elements: int
    param: int

    @property
    def box_bytes(self) -> int:
        return self.elements * TMA_DTYPES[self.dtype]

    @property
    def entry(self) -> str:
        """Its ``GemmConfig.kvecs`` entry."""
        return f"{self.box_bytes}:{self.param}:{self.dtype}:{self.rank}"


def global_requested() -> bool:
    from tileorch.transforms.tileas.computed_operand_switches import computed_operand_switches

    return GLOBAL_SWITCH in computed_operand_switches()


def _strip(v: SSAValue) -> SSAValue:
    from tileorch.transforms.tileas.epilogue import LAYOUT_ONLY

    while isinstance(v.owner, Operation) and v.owner.name in LAYOUT_ONLY:
        v = v.owner.operands[0]
    return v


def _memref_of_parameters(mem: Operation, param: int, entry: Block) -> str:
    """"" when every ``?`` extent and stride of the memref ``mem`` is the array's own parameter (the entry's
    parameters after the pointer ``param``: its extents, then its strides; :func:`tileorch.launchers.cutile.
    flat_parameters`), else why not: the host builds the vector's tensor map (its bounds: TMA's zero fill) from the
    array it is given, which is the program's memref only then."""
    from tileorch.dialects.nv_tileaa.attrs import DYNAMIC

    def source(v: SSAValue) -> SSAValue:
        while isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.assume":
            v = v.owner.operands[0]
        return v

    shape, strides, args = mem.result.type.get_shape(), mem.result.type.get_strides(), list(entry.args)
    rank = len(shape)
    expected = ([param + 1 + d for d, e in enumerate(shape) if e == DYNAMIC]
                + [param + 1 + rank + d for d, s in enumerate(strides) if s == DYNAMIC])
    given = [source(v) for v in (*mem.shape, *mem.strides)]
    if len(given) != len(expected) or any(e >= len(args) or g is not args[e] for g, e in zip(given, expected)):
        return "its array's extents or strides are not the array's own parameters (the host's tensor map reads them)"
    return ""


def _refusal(ld: Operation, entry: Block) -> tuple[KVector | None, str]:
    """(the vector, "") when the producer can TMA-load ``ld``, else (None, why not)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType

    pad = getattr(ld, "padding_value", None)
    if pad is not None and str(pad.value.data) not in ("zero", "undef"):
        return None, f"its padding is {pad.value.data} (TMA fills zeros past the array)"
    view = _strip(ld.view)
    if not isinstance(view.owner, Operation) or view.owner.name != "nv_tileaa.block_tile":
        return None, "it is not a tile of an array's view"
    from tileorch.dialects.nv_tileaa.attrs import ints

    vt = view.type
    tile, step, order = ints(vt.tile), ints(vt.step), ints(vt.order)
    mem = _strip(view.owner.memref)
    if not isinstance(mem.owner, Operation) or mem.owner.name != "nv_tileaa.make_memref":
        return None, "its array is not a memref the program makes"
    ptr = _strip(mem.owner.ptr)
    if not isinstance(ptr, BlockArgument) or ptr.owner is not entry:
        return None, "its array's base is not one of the program's parameters"
    why = _memref_of_parameters(mem.owner, list(entry.args).index(ptr), entry)
    if why:
        return None, why
    rank = len(tile)
    if rank not in (1, 2) or order != list(range(rank)) or tile != step:
        return None, "its view is not a row-major 1- or 2-D array in tiles that do not overlap"
    if any(t != 1 for t in tile[:-1]):
        return None, "its wide dimension is not the array's last"
    strides = list(mem.type.get_strides())
    if strides[-1] != 1:
        return None, "its array's last stride is not statically 1 (TMA reads contiguous boxes)"
    elt = mem.type.element
    name = ("f16" if isinstance(elt, Float16Type) else "bf16" if isinstance(elt, BFloat16Type) else
            "f32" if isinstance(elt, Float32Type) else
            f"i{elt.width.data}" if isinstance(elt, IntegerType) else str(elt))
    if name not in TMA_DTYPES:
        return None, f"its element type {name} is not one the tensor map here takes ({', '.join(TMA_DTYPES)})"
    vec = KVector(ld, name, rank, tile[-1], list(entry.args).index(ptr))
    if vec.box_bytes % 16:
        return None, f"its box ({vec.box_bytes} bytes) is not whole 16-byte units"
    if vec.elements > 256:
        return None, f"its box ({vec.elements} elements) is wider than a TMA box's 256"
    return vec, ""


def plan(moving: list[Operation], entry: Block, launcher_global: bool = False
         ) -> tuple[list[KVector], list[tuple[Operation, str]]]:
    """(the K-indexed vectors ``moving`` the producer TMA-loads, [(a vector it does not, why)]); ``launcher_global``:
    none (the lowering's ``kvec_global=1``: the launch's vector array is one TMA cannot read in place)."""
    from tileorch.transforms.tileas.computed_operand_switches import COMPUTED_OPERAND_ENV, prefetch_enabled

    if launcher_global:
        return [], [(ld, "the launcher asked for it (kvec_global=1: the launch's array of this vector is one the "
                         "producer's TMA cannot read in place)") for ld in moving]

    if global_requested() or prefetch_enabled():  # (prefetch places the consumers' global loads one K step ahead)
        word = GLOBAL_SWITCH if global_requested() else "prefetch"
        return [], [(ld, f"{COMPUTED_OPERAND_ENV}={word} asks for it") for ld in moving]
    picked, refused = [], []
    for ld in moving:
        vec, why = _refusal(ld, entry)
        if vec is None:
            refused.append((ld, why))
        else:
            picked.append(vec)
    return picked, refused


def remark(picked: list[KVector], refused: list[tuple[Operation, str]]) -> str:
    """The remark's words on where the K-indexed vectors come from."""
    parts = []
    if picked:
        sizes = ", ".join(f"{v.box_bytes} bytes" for v in picked)
        parts.append(f"{len(picked)} vector(s) indexed by the K tile TMA-loaded by the producer into each stage "
                     f"({sizes}, in the stage's transaction bytes; zero fill past the array) and read by the consumers "
                     f"from the stage's shared memory")
    for _, why in refused:
        parts.append(f"a vector indexed by the K tile loaded by the consumers from global memory, not by TMA: {why}")
    return "; ".join(parts)


def kvec_slots(body: Block, vectors, smem: SSAValue) -> dict:
    """id(a TMA-loaded K vector's load, of ``vectors``) -> (its slot's byte offset in the K step ``body``,
    ``%kvec_off<v>``; the dynamic shared memory; its :class:`KVector`): what the consumers' lowering reads."""
    offsets = {op.results[0].name_hint: op.results[0] for op in body.ops if op.results and
               (op.results[0].name_hint or "").startswith("kvec_off")}
    return {id(v.load): (offsets[f"kvec_off{i}"], smem, v) for i, v in enumerate(vectors)}


def _enclosing(op: Operation, kind) -> Operation | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, kind):
        p = p.parent_op()
    return p


def fill_producer_coordinates(fn, dk, cfg, vectors: list[KVector], args: list[SSAValue],
                              grid: list[SSAValue] | None = None) -> None:
    """Replace the placeholders ``%kvcoord<v>x`` / ``%kvcoord<v>y`` of the producer's TMA load of each K vector by
    its box coordinates: the program's index of the load times the tile (innermost first), evaluated at the
    producer's K tile and work tile."""
    from xdsl.dialects import arith

    from tileorch.dialects.cutlass.tile_scheduler import WorkTileInfoToCoordMNKLOp
    from tileorch.dialects.nv_tileaa.attrs import ints
    from tileorch.transforms.tileas.common import k_loop_blocks, move_before
    from tileorch.transforms.tileas.epilogue import KernelEnv
    from tileorch.transforms.tileas.operand_prologue import CachingEmitter, OperandLowering

    entry = dk.kernel.body.blocks.first
    k_ivs = {id(b.args[0]) for b in k_loop_blocks(dk)}
    for op in list(fn.walk()):
        hint = op.operands[0].name_hint if op.operands else None
        if not (hint and hint.startswith("kvdst") and hint[5:].isdigit()):
            continue
        vec = vectors[int(hint[5:])]
        kloop = _enclosing(op, scf.ForOp)
        tile = None
        p = kloop
        while tile is None and p is not None:
            tile = next((o for o in p.parent_block().ops if isinstance(o, WorkTileInfoToCoordMNKLOp)), None)
            p = p.parent_op()
        env = KernelEnv(args, [tile.results[0], tile.results[1], tile.results[3]], [], grid)
        block = Block()
        e = CachingEmitter(block, 128)
        low = OperandLowering(entry, None, dk.store, env, e)
        low.k_ivs, low.kt = k_ivs, kloop.body.block.args[0]
        step = ints(_strip(vec.load.view).type.step)
        idx = [low._i32(low.scalar(x)) for x in vec.load.indices]
        x = e.mul_i(idx[-1], e.const(step[-1]))
        y = e.mul_i(idx[0], e.const(step[0])) if vec.rank == 2 else e.const(0)
        coords = [o for o in op.operands if o.name_hint and o.name_hint.startswith(f"kvcoord{hint[5:]}")]
        move_before(block, op)
        for old, new in zip(coords, (x, y)):
            old.replace_all_uses_with(new)
            if isinstance(old.owner, arith.ConstantOp) and not old.uses:
                old.owner.detach()
                old.owner.erase()
