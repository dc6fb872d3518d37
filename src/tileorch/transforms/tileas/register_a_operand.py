"""A dot's A operand computed in the K loop as WGMMA's *register* A operand (``GemmConfig.a_regs``).

The GEMM tier's default for a computed A whose raw tile is stored ``[M, K]`` with a K row of 32, 64 or
128 bytes (:func:`register_a_chosen`): the producer TMA-loads the raw tile swizzled by its K row
(``GemmConfig.a_raw_swizzle``), and each consumer thread reads only its own elements of it in the
layout of the m64k16 A fragment, evaluates the program's ops on them in registers
(:class:`~tileorch.transforms.tileas.operand_prologue.OperandLowering`), packs them pairwise to the
operand type (:func:`~tileorch.transforms.tileas.pack16.pack16_exact`: values already of that type by their
bits) and hands the four registers of each K step to ``wgmma.mma_async`` with A from registers
(:class:`~tileorch.dialects.nvvm_payload.WgmmaMmaAsyncRegisterAOp`).  No A operand tile in shared
memory, no generic-proxy writes, fence or named barrier for A.  ``TILEORCH_COMPUTED_OPERAND=staged``
(or the staged A's own switch ``rows``) keeps the staged path
(:func:`~tileorch.transforms.tileas.convert_to_cutlass.stage_computed_b`).

A gathered A (``GemmConfig.a_gather``, :mod:`~tileorch.transforms.tileas.gathered_operand`) has no raw tile:
each element is the program's gather evaluated at it (a masked global load), the rest as above.

Fragment layout (PTX ISA, ``wgmma`` register A of ``.m64nNk16``): consumer thread ``t`` (0 .. 128 x
warp groups - 1, after the producer's 128) holds rows ``r = 16 (t >> 5) + ((t & 31) >> 2)`` and
``r + 8`` of the CTA's tile (warp group ``w``'s rows ``64 w ..``), columns ``c = 2 (t & 3)``,
``c + 1``, ``c + 8``, ``c + 9`` of each 16-column K step ``j``: register ``q`` holds row ``r + 8 (q & 1)``,
columns ``16 j + c + 8 (q >> 1) + {0, 1}`` (the lower column in the low half).  The raw elements of a
register are adjacent in the tile's K row: one shared load of ``2 x`` their bytes, at the swizzled
address ``lin ^ (((lin >> 7) & (span / 16 - 1)) << 4)`` (``lin`` the byte offset in the row-major
tile; eight rows of a warp's load fall in distinct 16-byte bank groups).
"""

from __future__ import annotations

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import VectorType, i8, i16, i32
from xdsl.ir import Block, Operation, SSAValue

from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects.atoms import DynamicSmemOp
from tileorch.transforms.tileas.epilogue import Coord, KernelEnv
from tileorch.transforms.tileas.pack16 import pack16_exact

RAW_OFFSET = "araw_rs_off"
"""The name of the kernel builder's value holding a stage's raw A offset in a register-A K step."""
FRAGMENT = "afrag"
"""The kernel builder's placeholders ``%afrag<j>q<q>``: register ``q`` of K step ``j``'s A fragment."""


def register_a_chosen(a_raw: str, a_major: str, tile_k: int, k_vectors: int = 0) -> bool:
    """Whether a computed A of raw element type ``a_raw`` runs as WGMMA's register A: an A stored
    ``[M, K]`` whose raw K row (``tile_k`` elements) is a swizzle span (32, 64 or 128 bytes), no
    switch asks for the staged path (``TILEORCH_COMPUTED_OPERAND`` ``staged``, or ``rows``), and A's
    map reads no vector indexed by the K tile from global memory (``k_vectors``: those the producer does not
    TMA-load into the stages, ``tileas/k_vector_tma.py``; :func:`k_vector_staged` says why;
    ``TILEORCH_COMPUTED_OPERAND=registers`` takes register A anyway)."""
    from tileorch.kernels.gemm.config import ELEMENT_BYTES
    from tileorch.transforms.tileas.computed_operand_switches import staged_requested

    return (bool(a_raw) and a_major == "k" and tile_k * ELEMENT_BYTES.get(a_raw, 1) in (32, 64, 128)
            and not staged_requested() and not k_vector_staged(k_vectors))


def k_vector_staged(k_vectors: int) -> bool:
    """A computed A whose map reads ``k_vectors`` > 0 vectors indexed by the K tile from global memory (not
    TMA-loaded by the producer: ``TILEORCH_COMPUTED_OPERAND=global_k_vectors`` or ``prefetch``, or a vector
    ``k_vector_tma`` refuses) is staged, unless ``TILEORCH_COMPUTED_OPERAND=registers``.  Vectors the producer
    TMA-loads do not count (session 41, H100, ``benchmarks/session41_kvec.sh``, 4096^3: ``(a * gamma[k]) @ b``
    493.7 TFLOP/s as register A reading gamma from the stage against 391.9 staged; the consumer's K step 142 SASS
    instructions against 177, 6 stages against 4: ``tools/gemm_sass_counts.py``).  Measured with global loads (H200, session 25, ``benchmarks/session23_rega.sh``,
    4096^3): ``(a * gamma[k]) @ b`` 276.0 TFLOP/s as register A against 317.4 staged (0.87x), while
    register A gains where A's map reads no such vector (relu 1.24x, int8 rows times a scale 1.17x).
    In register A every consumer thread loads the vector at each of its 16 K positions of a K step
    (scalar loads, their addresses and bounds, and a scalar multiply per element: about three times the
    staged thread's 8 loads) while the step's WGMMAs run, and each K step ends waiting for all of its
    WGMMAs (``wgmma.wait_group 0``: the registers they read are rewritten next step) where the staged
    kernel keeps one group in flight (``wait_group 1``)."""
    from tileorch.transforms.tileas.computed_operand_switches import registers_requested

    return k_vectors > 0 and not registers_requested()


def staged_a_reason(cfg, k_vectors: int) -> str:
    """Why a computed A configured as ``cfg``, its map reading ``k_vectors`` vectors indexed by the K
    tile, is staged rather than WGMMA's register A (:func:`register_a_chosen` said no)."""
    from tileorch.kernels.gemm.config import ELEMENT_BYTES
    from tileorch.transforms.tileas.computed_operand_switches import COMPUTED_OPERAND_ENV, staged_requested
    if staged_requested():
        return f"{COMPUTED_OPERAND_ENV} asks for the staged path"
    if cfg.a_major != "k":
        return "A is stored [K, M]"
    if cfg.tile_k * ELEMENT_BYTES.get(cfg.a_raw, 1) not in (32, 64, 128):
        return "its raw K row is not a 32-, 64- or 128-byte swizzle span"
    return (f"A's map reads {k_vectors} vector(s) indexed by the K tile from global memory (not TMA-loaded by the "
            "producer), which register A loads per thread at each of its K positions in every K step and then waits "
            "for all of the step's WGMMAs (0.87x the staged path measured for (a * gamma[k]) @ b with global loads, "
            f"session 25; {COMPUTED_OPERAND_ENV}=registers takes register A)")


def register_a_remark(cfg) -> str:
    """The remark's words for the register-A path of ``cfg``."""
    from tileorch.transforms.tileas.computed_operand_switches import COMPUTED_OPERAND_ENV

    return (f"WGMMA's register A operand: the producer TMA-loads the raw {cfg.tile_m}x{cfg.tile_k} tile "
            f"({cfg.a_raw_bytes} bytes, {cfg.a_raw_swizzle}-byte swizzle), each consumer thread reads its "
            f"{cfg.tile_k // 2} elements of it in the m64k16 A-fragment layout ({cfg.tile_k // 16 * 4} shared loads), "
            f"evaluates the program's ops in registers and packs them as the A registers of its "
            f"{cfg.tile_k // 16} wgmma.mma_async (A from registers, B from shared memory); no A operand tile, "
            f"fence or barrier ({COMPUTED_OPERAND_ENV}=staged: the staged path)")


def compute_register_a(fn: func.FuncOp, dk, cfg, args: list[SSAValue], grid: list[SSAValue] | None = None) -> None:
    """Replace the kernel builder's A-fragment placeholders in every consumer warp group's K step by the
    program's ops computing A (:attr:`DotKernel.a_prologue`) evaluated on the thread's elements of the
    stage's raw tile (module docstring).  The elements' coordinates, byte offsets and the vectors the
    ops read that do not change along K are computed once per work tile before the K loop; a vector
    indexed by the K tile is loaded at the top of the K step, before the stage wait (one step ahead
    with ``TILEORCH_COMPUTED_OPERAND=prefetch``)."""
    from tileorch.dialects.cutlass.tile_scheduler import WorkTileInfoToCoordMNKLOp
    from tileorch.transforms.tileas.computed_operand_switches import prefetch_enabled
    from tileorch.transforms.tileas.common import k_loop_blocks, move_before
    from tileorch.transforms.tileas.operand_prologue import (CachingEmitter, OperandLowering, raw_element,
                                                             reads_loop_value)
    from tileorch.transforms.tileas.k_vector_tma import kvec_slots
    from tileorch.transforms.tileas.prefetch_k_vectors import prefetch_k_vectors

    pro, load = dk.a_prologue, dk.a_load  # (a gathered A: the gather, evaluated at each element)
    res = cfg.a_raw_element_bytes
    row_bytes, mask = cfg.tile_k * res, cfg.a_raw_swizzle // 16 - 1
    steps = cfg.tile_k // cfg.mma_k
    smem = next(op.results[0] for op in fn.walk() if isinstance(op, DynamicSmemOp))
    anchors = [op for op in fn.walk() if op.results and op.results[0].name_hint == RAW_OFFSET]
    if not anchors:
        raise ValueError(f"kernel builder output has no %{RAW_OFFSET} (a register A's slot)")
    elt = load.results[0].type.element_type
    entry = dk.kernel.body.blocks.first
    k_ivs = {id(b.args[0]) for b in k_loop_blocks(dk)}
    loop_memo: dict = {}
    hoistable = {id(ld) for ld in pro.vectors if not any(reads_loop_value(x, entry, loop_memo) for x in ld.operands)}
    lead = len(pro.top.type.get_shape()) - 2
    transposed_top = "nv_tileaa.permute" in pro.seen  # the program's tile is [K, M]: its coordinates swap

    for anchor in anchors:
        raw_off = anchor.results[0]
        body = anchor.parent_block()
        kloop = body.parent_op()
        slots = _placeholders(anchor, steps)
        tile = next(o for o in kloop.parent_block().ops if isinstance(o, WorkTileInfoToCoordMNKLOp))
        env = KernelEnv(args, [tile.results[0], tile.results[1], tile.results[3]], [], grid)
        pre_block, head_block, tmp, packs = Block(), Block(), Block(), Block()
        pe, e, pk = CachingEmitter(pre_block, 128), CachingEmitter(tmp, 128), CachingEmitter(packs, 128)
        low = OperandLowering(entry, None, dk.store, env, e)
        low.roots = {id(r) for r in pro.roots}
        low.k_ivs, low.kt = k_ivs, body.args[0]
        low.vectors, low.pre, low.hoistable = pro.vector_values, pe, hoistable
        low.head = CachingEmitter(head_block, 128)
        low.kvec_slots = kvec_slots(body, dk.kvec_plan[0], smem)
        t = pe.v(arith.SubiOp(pe.v(nvvm.SPECIAL_REGISTERS["tid.x"]()), pe.const(128)))  # after the producer's
        r0 = pe.add_i(pe.v(arith.ShLIOp(pe.v(arith.ShRUIOp(t, pe.const(5))), pe.const(4))),
                      pe.v(arith.ShRUIOp(pe.v(arith.AndIOp(t, pe.const(31))), pe.const(2))))
        c0 = pe.v(arith.ShLIOp(pe.v(arith.AndIOp(t, pe.const(3))), pe.const(1)))
        rows = [r0, pe.add_i(r0, pe.const(8))]
        cols: dict[int, SSAValue] = {}

        def col(c: int) -> SSAValue:
            if c not in cols:
                cols[c] = pe.add_i(c0, pe.const(c))
            return cols[c]

        for j in range(steps):
            for q in range(4):
                row, first = rows[q & 1], 16 * j + 8 * (q >> 1)
                words = None
                if not cfg.a_gather:  # the raw tile's pair of elements in shared memory (a gathered A: none)
                    lin = pe.add_i(pe.mul_i(row, pe.const(row_bytes)), pe.mul_i(col(first), pe.const(res)))
                    phys = pe.v(arith.XOrIOp(lin, pe.v(arith.ShLIOp(pe.v(arith.AndIOp(
                        pe.v(arith.ShRUIOp(lin, pe.const(7))), pe.const(mask))), pe.const(4)))))
                    ptr = e.v(llvm.GEPOp(smem, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[e.add_i(raw_off, phys)],
                                         result_type=smem.type))
                    words = _pair_words(e, ptr, res)
                out = []
                for x in range(2):
                    pair = (row, col(first + x))
                    pair = pair[::-1] if transposed_top else pair
                    coords = (Coord(pe.const(0), None),) * lead + tuple(Coord(v, None) for v in pair)
                    if words is not None:
                        low.element = raw_element(e, words[x * res // 4], x, res, elt)
                    out.append(low.at(pro.top, coords))
                # packed after the previous K step's WGMMAs retired (they read these registers): kept there
                slots[j][q].results[0].replace_all_uses_with(pack16_exact(pk, out[0], out[1], cfg.dtype))
        head_ops = list(head_block.ops)
        move_before(pre_block, kloop)
        move_before(head_block, body.first_op)  # K-indexed vectors: before the consumer's wait
        move_before(tmp, anchor.next_op)  # loads and math: while the previous K step's WGMMAs run
        move_before(packs, slots[0][0])
        for op in (o for step in slots for o in step):
            op.detach()
            op.erase()
        if head_ops and prefetch_enabled():  # loaded one K step ahead, carried by the loop
            prefetch_k_vectors(kloop, head_ops)


def _placeholders(anchor: Operation, steps: int) -> list[list[Operation]]:
    """The ``%afrag<j>q<q>`` constants after ``anchor`` in its block, by K step and register."""
    found = {}
    op = anchor.next_op
    while op is not None:
        hint = op.results[0].name_hint if op.results else None
        if hint and hint.startswith(FRAGMENT):
            j, q = hint[len(FRAGMENT):].split("q")
            found[(int(j), int(q))] = op
        op = op.next_op
    return [[found[(j, q)] for q in range(4)] for j in range(steps)]


def _pair_words(e, ptr: SSAValue, res: int) -> list[SSAValue]:
    """The 32-bit words holding two adjacent raw elements of ``res`` bytes at ``ptr``: one i32 (16-bit
    elements), an i16 widened to i32 (8-bit elements) or two i32 (32-bit elements)."""
    if res == 2:
        return [e.v(llvm.LoadOp(ptr, i32, alignment=4))]
    if res == 1:
        return [e.v(arith.ExtUIOp(e.v(llvm.LoadOp(ptr, i16, alignment=2)), i32))]
    vec = e.v(llvm.LoadOp(ptr, VectorType(i32, [2]), alignment=8))
    return [e.v(llvm_ext.ExtractElementOp(vec, e.const(x))) for x in range(2)]
