"""The chained tier's first dot reading its A tile (attention's Q) as WGMMA's *register* A operand
(``TILEORCH_ATTN_Q_REGS``).

By default every first-dot WGMMA of every key tile (``S = Q K^T``: ``d / 16`` instructions of
``m64n{tn}k16`` per warp group) reads its A from the Q tile in shared memory through a descriptor,
so each key tile reads the warp group's 64 Q rows from shared memory again (``64 d`` elements per
warp group per tile: at head dim 64 with 128-column key tiles, a third of the first dot's shared
memory reads, beside the K tile's and, for the second dot, the V tile's; the TMA writes of K and V
share the same bandwidth).  The Q tile does not change along the key loop, so each consumer thread
can read its elements of it once per program instance, right after the Q wait, in the layout of
the m64k16 A fragment (``d / 4`` 32-bit registers: 16 at head dim 64, 32 at 128) and hand them to
``wgmma.mma_async`` with A from registers
(:class:`~tileorch.dialects.nvvm_payload.WgmmaMmaAsyncRegisterAOp`) at every key tile.  Same
products, same accumulation order: the results are bit-identical to the descriptor form.

Fragment layout (PTX ISA, ``wgmma`` register A of ``.m64nNk16``): lane ``t`` (``0 .. 127`` in its
warp group) holds rows ``r = 16 (t >> 5) + ((t & 31) >> 2)`` and ``r + 8`` of the warp group's 64
rows, columns ``c = 2 (t & 3)``, ``c + 1``, ``c + 8``, ``c + 9`` of each 16-column K step ``s``:
register ``q`` holds row ``r + 8 (q & 1)``, columns ``16 s + c + 8 (q >> 1) + {0, 1}`` (the lower
column in the low half), i.e. one 32-bit shared load.  The Q tile lies in shared memory as the TMA
boxes wrote it (:class:`~tileorch.transforms.tileas.chained_dots.Operand`): ``chunks`` boxes of
``box`` columns, ``chunk_bytes`` apart, rows of ``row_bytes`` swizzled by the row span: byte
``lin`` of a box (row-major) is at ``lin ^ (((lin >> 7) & (row_bytes / 16 - 1)) << 4)``; the
warp group's rows start ``64 row_bytes`` into each box.

Applies to a chained kernel with one A tile for its first dots (not :attr:`ChainedKernel.own_a`)
whose Q is waited for at the top of each program instance (not ``TILEORCH_ATTN_NEXT_S``, which
waits for the next instance's Q inside a branch of the previous one's tail); elsewhere the record
says why not (``q_regs_off``).  Default off until a GPU measures it.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue

from tileorch import settings
from tileorch.transforms.tileaa_to_simt.emit import Emitter

Q_REGS_ENV = "TILEORCH_ATTN_Q_REGS"


def q_regs_asked() -> bool:
    """Whether the environment asks for the register-A first dot (read at each compile, part of the
    disk-cache key)."""
    return settings.value(Q_REGS_ENV) == "1"


def q_regs_refusal(own_a: bool, next_s: bool, s_ahead: bool, regs: int, budget: int) -> str | None:
    """Why the register-A first dot does not apply to a kernel (``None``: it does): ``own_a``, the
    first dots read A tiles of their own; ``next_s``, ``TILEORCH_ATTN_NEXT_S`` waits for the next
    instance's Q inside the previous instance's tail; ``s_ahead``, the S-ahead loop of one tile per
    trip (``TILEORCH_ATTN_S_AHEAD=1``) keeps two S tiles live (ptxas 13.0 spilled 4 bytes with the
    fragment at d64 128x128; the unrolled form ``=2`` did not); ``regs`` (the fragment's registers plus
    the loop's estimate) over the consumer's ``budget``."""
    if own_a:
        return "the first dots read A tiles of their own (one fragment each would be needed)"
    if next_s:
        return "TILEORCH_ATTN_NEXT_S waits for the next instance's Q inside the previous instance's tail"
    if s_ahead:
        return ("TILEORCH_ATTN_S_AHEAD=1 keeps two S tiles live beside the fragment (ptxas spills; its unrolled "
                "form =2 does not)")
    if regs > budget:
        return f"the Q fragment and the loop's registers ({regs}) exceed the consumer's {budget}"
    return None


def load_q_fragment(e: Emitter, lane: SSAValue, base: SSAValue, d: int, box: int, row_bytes: int,
                    chunk_bytes: int, address: Callable[[SSAValue], SSAValue]) -> list[list[SSAValue]]:
    """The thread's m64k16 A-fragment registers of its warp group's 64 Q rows (module docstring), by K
    step: ``d / 16`` lists of four i32.  ``lane``: the thread's index in its warp group (i32);
    ``base``: the byte offset (i32) in shared memory of the warp group's first row in the tile's
    first box (the Q slot's offset plus ``64 row_bytes`` times the warp group); ``address(offset)``:
    the shared-memory pointer at a byte offset.  Emits ``d / 4`` 32-bit shared loads (``%qf<s>r<q>``) and
    their address arithmetic at ``e``."""
    mask = row_bytes // 16 - 1
    r0 = e.v(arith.AddiOp(e.v(arith.ShLIOp(e.v(arith.ShRUIOp(lane, e.const(5))), e.const(4))),
                          e.v(arith.ShRUIOp(e.v(arith.AndIOp(lane, e.const(31))), e.const(2)))))
    c0 = e.v(arith.ShLIOp(e.v(arith.AndIOp(lane, e.const(3))), e.const(1)))
    lins = []  # byte offsets in a box before the swizzle: two rows x two column halves
    for q in range(4):
        row = e.v(arith.AddiOp(r0, e.const(8 * (q & 1))))
        col = e.v(arith.AddiOp(c0, e.const(8 * (q >> 1))))
        lins.append(e.v(arith.AddiOp(e.v(arith.MuliOp(row, e.const(row_bytes))), e.v(arith.ShLIOp(col, e.const(1))))))
    per_box = box // 16
    frag = []
    for s in range(d // 16):
        regs = []
        for q in range(4):
            lin = e.v(arith.AddiOp(lins[q], e.const(32 * (s % per_box))))
            phys = e.v(arith.XOrIOp(lin, e.v(arith.ShLIOp(e.v(arith.AndIOp(e.v(arith.ShRUIOp(lin, e.const(7))),
                                                                          e.const(mask))), e.const(4)))))
            off = e.v(arith.AddiOp(base, e.v(arith.AddiOp(phys, e.const((s // per_box) * chunk_bytes)))))
            word = e.load(address(off), i32)
            word.name_hint = f"qf{s}r{q}"
            regs.append(word)
        frag.append(regs)
    return frag


__all__ = ["Q_REGS_ENV", "load_q_fragment", "q_regs_asked", "q_regs_refusal"]
