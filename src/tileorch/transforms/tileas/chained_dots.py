"""Two chained dots on tensor cores: ``convert-nv-tileas-to-cutlass`` for kernels whose second
dot's A operand is computed from the first dot's result (FlashAttention forward, a GEMM followed
by a second GEMM on its activated result: ``for j: P = f(A0 @ B1[j]); acc = g(acc) + P @ B2[j]``).

What the tier's warp-specialized kernel must look like (:func:`analyze_chained_dots`):

* one loop (the consumer agent's ``scf.for``, ``lb = 0``, ``step = 1``) holding both dots;
* dot 1: ``S = A0 @ B1`` where A0 is a TMA tile loaded once before the loop (K-major, ``[tm, d]``),
  possibly mapped by elementwise ops with scalar operands (a :class:`QPrologue`, applied in place
  to the tile in shared memory), B1 a TMA tile of the loop (``[tn, d]`` transposed: K-major; or
  ``[d, tn]``: N-major);
* more first dots ``S_k = A0 @ B1_k`` (a SwiGLU MLP's gate and up projections) that read the same
  A0 value, with B tiles of the first's shape and layout (each its own tensor map), none reading
  another's result (:func:`chained_dot_sets`).  The kernel streams every ``B1_k`` tile into the
  same ring stage, side by side so that one WGMMA of ``n = k1 tn`` (at most 256) reads them as one
  operand (:attr:`ChainedKernel.b1_wide`), and first dot ``k``'s result is columns ``[k tn, (k +
  1) tn)`` of its accumulator (registers ``[k tn / 2, (k + 1) tn / 2)``); the joint accumulator, P
  and the second dot's accumulator must fit :data:`FIRST_DOTS_REGS` (else a located refusal: the
  SIMT path runs the program);
* first dots with different A operands (FlashAttention's backward: ``S = Q K^T`` and ``dP = dO
  V^T``): each A a ``[tm, d]`` TMA tile loaded once before the loop, laid out as A0
  (:attr:`ChainedKernel.a0s`: one tensor map each, all in the Q slot on one barrier), each first
  dot its own WGMMA chain of ``n = tn`` from its A tile and its B tile's boxes, all in one commit
  group, the results the same joint S;
* dot 2: ``acc' = P @ B2 + C`` where P (``[tm, tn]``) is any elementwise/row-reduction function of
  S (of every first dot's result), of loop-carried tiles and of kernel arguments, B2 a TMA tile of
  the loop (``[tn, dv]`` N-major, or ``[dv, tn]`` transposed: K-major); B2 may be the tile a first
  dot reads (the same load: dQ's ``K``, K-major in ``Q K^T`` and N-major in ``dS K``): its WGMMAs
  then read that tile in the B1 stage (:attr:`ChainedKernel.b2_in_b1`), loaded once;
* several second dots (a chain feeding several accumulators: FlashAttention's backward ``dV +=
  P^T dO`` and ``dK += dS^T Q``), each into an accumulator the loop carries and a tile stored after
  it, each B a first dot's tile or the one B2 tile (:attr:`ChainedKernel.seconds`): the plain loop
  (no overlap), the Ps packed chunk by chunk, one fence before every second dot's WGMMAs, within
  :data:`SEVERAL_SECONDS_REGS`;
* rows: ``tm`` 64, 128 or 256 (four consumer warp groups of :func:`consumer_regs` 112 registers: value
  tiles at most 64 wide, S, P and the carried tiles within ``112 -`` :data:`FOUR_GROUP_MARGIN`, no Q/K
  prologue); a tile of 1, 2, 4, 8, 16 or 32 rows (decoding) is padded to the WGMMA's
  64 (:data:`PADDED_ROWS`: the Q box reads 64 rows, the rows past the tile are never stored); the
  first dot's A may take its rows from two array dimensions (GQA's ``(1, G, BM, D)`` tile
  reshaped to ``(G BM, D)``: one TMA box, :attr:`Operand.group_dim`), stored back at
  ``(r // BM, r % BM)``;
* a prologue on Q or on the first dot's B (K) with row reductions along the head dim and
  per-column weights (QK-norm: :class:`QPrologue` ``rowwise``) is applied in place to the tile in
  shared memory (Q after its load, each K tile in its stage: :meth:`_Kernel.rowwise_prologue`);
* loop-carried values: tiles ``[tm, 1]`` (row vectors) or ``[tm, X]`` (X a multiple of 8);
* after the loop, one ``tiled_store`` of a ``[tm, dv]`` tile (unit dimensions allowed before the last).

The lowered kernel (:class:`_Kernel`, built op by op, + :class:`FragmentLowering`): one CTA per program
instance (the program's grid), ``tm / 64`` warp groups, each owning 64 rows; thread 0 issues the
TMA loads (A0 once; B1 and B2 into a 2-stage mbarrier ring, tile ``j + 2`` issued once every
warp group has finished reading tile ``j``); per iteration ``S = A0 B1`` is a chain of
``wgmma.mma_async m64n{tn}k16`` from shared memory; the program's own ops between the dots run in
the WGMMA accumulator's register layout (thread ``t`` of warp ``w`` holds rows ``16w + t/4`` and
``+ 8``, columns ``8g + 2(t%4) + {0, 1}``): elementwise math per element, row reductions along
the columns as the thread-local values of a row then ``shfl.xor`` 1 and 2 across the quad,
loop-carried row vectors as two registers per thread; P is packed pairwise to 16 bits into the
register A fragment of ``wgmma m64n{dv}k16`` (for each 16-column chunk ``c`` the accumulator's
``d[8c .. 8c+7]`` are exactly ``a0..a3``), B2 from shared memory; an e4m3 / e5m2 P (``p.astype`` of V's 8-bit
type) four bytes a register for ``wgmma m64n{dv}k32`` in the accumulator's own element order, V (an 8-bit WGMMA
reads B K-major only) from the launch's key-major copy with its keys permuted to match (:func:`_pack_p`,
:data:`KEY_MAJOR_COPY`).  After the loop the program's
epilogue is evaluated per accumulator element and stored with predicated global stores.

The host builds one TMA tensor map per loaded array: A0, each first dot's B, B2
(``tileorch.chained_config`` records which parameter is its base pointer and the box), and
launches the kernel on the program's grid with the tensor maps followed by the program's own
parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import (ArrayAttr, BFloat16Type, DenseArrayBase, Float8E4M3FNType, Float8E5M2Type,
                                   Float16Type, Float32Type, FloatAttr, IntegerAttr, ModuleOp, StringAttr, TensorType, UnitAttr, f32, i1, i8,
                                   i16, i32, i64)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue

from tileorch import settings
from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import llvm_ext
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.dialects import nvvm
from tileorch.dialects import nvvm_payload as nvp
from tileorch.dialects.atoms import DynamicSmemOp
from tileorch.dialects.register_budget import most_consumer_regs
from tileorch.dialects.nv_tileaa.attrs import ints
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.dialects.record_attr import encode_record
from tileorch.kernels.gemm.build import CLUSTER_PTR, GENERIC_PTR, TMAP_ATTRS, descriptor_constant
from tileorch.transforms.bound_waits import WAIT_RING, WAIT_SITE
from tileorch.transforms.tileaa_to_simt import ELEMENTWISE, lower_scalar_op
from tileorch.transforms.tileaa_to_simt.emit import GLOBAL_PTR, SHARED_PTR, Emitter, cmpi, inline_asm, memory_type
from tileorch.transforms.tileas.chained_occupancy import ctas_per_sm
from tileorch.transforms.tileas.common import enclosing_for, producer_load, source_load
from tileorch.transforms.tileas.epilogue import (BROADCASTS, EXPANDS, LAYOUT_ONLY, WRITE_WORDS, Coord,
                                                  EpilogueLowering, KernelEnv, unsupported)
from tileorch.transforms.tileas.mask_bounds import interior_masks, whole_tile_test
from tileorch.transforms.tileas.operand_prologue import PROLOGUE_SHAPE_OPS as _PROLOGUE_SHAPE_OPS
from tileorch.transforms.tileas.operand_prologue import QPrologue, operand_prologue, strip_layouts
from tileorch.transforms.tileas.pack16 import fp8_fragment_order, pack8x4, pack16, rounded_from, rounded_from_fp8
from tileorch.transforms.tileas.program_order import heavy_first_axis
from tileorch.transforms.tileas.q_registers import load_q_fragment, q_regs_asked, q_regs_refusal
from tileorch.transforms.tileas.rebase_k_loop import rebase_k_loop
from tileorch.transforms.tileas.transposed_store import store_dims, transposed_tile
from tileorch.transforms.tileas.loop_division import enabled as loop_div_enabled
from tileorch.transforms.tileas.loop_division import uniform_quotients
from tileorch.transforms.tileas.loop_tanh import enabled as loop_tanh_enabled
from tileorch.transforms.tileas.loop_tanh import uniform_tanh
from tileorch.transforms.tileas.loop_softmax_exp import enabled as softmax_exp_enabled
from tileorch.transforms.tileas.loop_softmax_exp import softmax_exp
from tileorch.transforms.tileas.loop_row_prefetch import enabled as row_prefetch_enabled
from tileorch.transforms.tileas.loop_row_prefetch import hoist as hoist_row_loads
from tileorch.transforms.tileas.loop_row_prefetch import record as record_row_load
from tileorch.transforms.tileas.row_division import RowDivision, is_ieee_division, row_div_enabled
from tileorch.transforms.tileas.row_groups import IDLE_SLICE_ATTR, ROW_GROUPS_ENV, idle_pass_by
from tileorch.transforms.tileas.row_groups import asked as row_groups_asked
from tileorch.transforms.tileas.row_groups import setting as row_groups_setting
from tileorch.transforms.tileas.row_groups import refusal as row_groups_refusal
from tileorch.transforms.tileas.row_groups import explicit as row_groups_explicit
from tileorch.transforms.tileas.row_groups import rule_shape as row_groups_rule_shape
from tileorch.transforms.tileas.row_groups import remark as row_groups_remark
from tileorch.transforms.tileas.stagger_consumers import emit_stagger, stagger_cycles

from tileorch.transforms.tileas.chained_detect import (CHAINED_ATTR, PASS, _depends_on,  # noqa: F401
                                                       _fail, chained_dot_groups, chained_dot_sets, chained_dots,
                                                       check_dots_outside_the_chain_loop, check_several_second_dots)

SMEM_LIMIT = 227 * 1024
MAX_STAGES = 4
"""K/V ring depth (as many as shared memory holds, at most this): the producer loads tile
``j + stages`` once every consumer thread has released tile ``j`` (the stage's empty barrier)."""
OVERLAP_ENV = "TILEORCH_ATTN_OVERLAP"


def k_ahead_enabled() -> bool:
    """``TILEORCH_ATTN_K_AHEAD`` (default ``1`` since session 33, when ``tileorch check`` proved its loop):
    the plain loop's K prologue one tile ahead; ``0``: in the tile's own iteration."""
    return settings.value("TILEORCH_ATTN_K_AHEAD") == "1"


K_AHEAD_MIN_STAGES = 2
"""The K-ahead loop holds tiles ``j`` and ``j + 1`` at once (tile j + 1 waited for while tile j is
read): on one stage it waits for a tile the producer cannot load (``tileorch check`` finds the
deadlock, tests/unit/test_kahead_check.py)."""


def overlap_enabled() -> bool:
    """Intra-warp-group overlap (:class:`Pipelining`): on by default, off when the environment sets
    ``TILEORCH_ATTN_OVERLAP=0`` (read at each compile, part of the disk-cache key).  On the H200
    (2026-12-02, after the second dot's descriptors were built from their 32-bit words): every
    attention GPU test passes with it, and it is 3-11% faster (d64 4k 334 -> 355 TFLOP/s, d128 16k
    557 -> 593; benchmarks/results/attention_overlap_2026-12-02d.json)."""
    return settings.value(OVERLAP_ENV) == "1"


PINGPONG_ENV = "TILEORCH_ATTN_PINGPONG"
PINGPONG_BARRIERS = (1, 2)
"""Named barriers of the consumer warp groups' turns (FA3's scheduler barrier): warp group ``w``
waits on ``1 + w`` before its first WGMMA of a tile and, after issuing its second, arrives on the
other's (``2 - w``).  Barrier 0 is the CTA barrier after the mbarrier initialisation; the kernel
uses no other named barrier."""


PINGPONG_KERNEL = "kernel"
"""``TILEORCH_ATTN_PINGPONG=kernel``: FlashAttention-3's once-per-kernel turn protocol in the
persistent kernel (:func:`pingpong_per_kernel`)."""


def pingpong_per_kernel() -> bool:
    """Whether ``TILEORCH_ATTN_PINGPONG=kernel`` asks for the ping-pong turns handed on across the
    persistent kernel's program instances (FlashAttention-3's protocol; off by default until the
    H200 measures it): warp group 1 gives warp group 0 its first turn once, before the CTA's loop
    over instances, and warp group 0 takes warp group 1's last hand-over once, after it; inside
    each instance the turns cover the loop's dot issue as with ``=1``.  Both warp groups run the
    same instances (each owns 64 rows of every tile), so the turns of the whole kernel alternate
    strictly and each barrier's arrivals balance its syncs over the kernel (the per-instance
    first arrive is what deadlocked: two hand-overs of warp group 1 in a row).  Persistence stays
    as :func:`persistent_enabled` decides; a kernel that is not persistent gets the per-instance
    protocol of ``=1``."""
    return settings.value(PINGPONG_ENV) == PINGPONG_KERNEL


def pingpong_enabled() -> bool:
    """Ping-pong of the two consumer warp groups (:data:`PINGPONG_BARRIERS`): on when the
    environment sets ``TILEORCH_ATTN_PINGPONG=1`` (read at each compile, part of the disk-cache
    key), for kernels with exactly two consumer warp groups.  In the plain loop a turn covers a
    whole iteration (measured slower: 0.63-0.77x the overlapped loop on the H200, 2026-12-02,
    benchmarks/attention_variants.py); in the overlapped loop it covers the issue of the
    iteration's two dots (FlashAttention-3's schedule)."""
    return settings.value(PINGPONG_ENV) in ("1", PINGPONG_KERNEL)

PERSISTENT_ENV = "TILEORCH_ATTN_PERSISTENT"


def persistent_enabled(uniform_trips: bool) -> bool:
    """A persistent chained kernel (:class:`_WorkTiles`)?  ``TILEORCH_ATTN_PERSISTENT`` (read at
    each compile, part of the disk-cache key): ``1`` always, ``0`` never; unset (or ``uniform``)
    when every program instance's loop has the same trip count as far as the compiler sees
    (``uniform_trips``: no heavy-first axis), or when a snake schedule applies (:func:`schedule`:
    by default for programs with a heavy-first axis, causal attention).  Measured on the H200 (2026-12-02,
    benchmarks/attention_variants.py, fp16, 128x128 tiles): non-causal 1.01-1.10x the
    one-CTA-per-instance kernel (d64 1k 299 -> 330 TFLOP/s, d128 1k 426 -> 463, d128 16k 640 -> 678);
    causal, whose instances' loops differ, 0.89-0.92x at head dim 128 with the static round-robin
    over instances (``TILEORCH_ATTN_PERSISTENT=1`` alone still compiles that order), 1.06-1.24x with
    the snake dealing at 1k/4k (2026-12-04) where the launcher keeps one CTA per SM
    (schedulers/chained_balance.py).  ``tileorch check`` proves both rings (K/V and the Q slots) of the
    persistent kernel (extract_chained.py)."""
    value = settings.value(PERSISTENT_ENV)
    return value == "1" or (value not in ("0", "1") and (uniform_trips or schedule(heavy_first=True) is not None))


SCHEDULE_ENV = "TILEORCH_ATTN_SCHEDULE"


SCHEDULES = ("snake", "snake_lpt")
SCHEDULE_OFF = "off"


def schedule(heavy_first: bool = True) -> str | None:
    """The persistent kernel's *snake* schedules (:class:`_WorkTiles`): ``TILEORCH_ATTN_SCHEDULE``
    (read at each compile, part of the disk-cache key) ``=snake`` or ``=snake_lpt`` asks for one,
    ``=off`` for none (the round-robin dealing; causal programs then keep one CTA per instance).
    Unset (or another value), programs with a heavy-first axis (``heavy_first``: causal attention)
    get ``snake`` unless ``TILEORCH_ATTN_PERSISTENT`` is set (``=1`` alone keeps the round-robin
    persistent kernel, ``=0`` one CTA per instance); programs without one none (their instances are
    alike: nothing to balance).  A snake schedule makes programs whose instances' loops differ
    persistent too (unless ``TILEORCH_ATTN_PERSISTENT=0``) and deals each CTA's rounds alternately
    forwards and backwards (round ``r`` covers instances ``[r G, r G + n_r)``; in odd rounds CTA
    ``b`` takes ``r G + n_r - 1 - b``), pairing a CTA's heavy instances with light ones.  ``snake``:
    the heavy-first axis varies fastest (reversed: heaviest first), so consecutive instances are the
    query tiles of one (batch, head) and the CTAs running at one time read the K/V of a few heads
    (L2); ``snake_lpt``: the default order (heavy axis slowest: every head's heaviest tile first,
    longest processing time first over the whole grid), which balances best (busiest CTA within 0.5%
    of the mean from 4k on, 3% at 1k/2k, against 3% (1k-8k) and 47% (16k, 128 query tiles per head
    beside 132 CTAs) for ``snake``: schedulers/chained_balance.py) but spreads the concurrently
    running CTAs over as many heads as there are CTAs (d128 causal 1k: the K/V of 132 heads, 66 MiB,
    beyond the L2).  Measured on the H200 (2026-12-04, causal fp16 128x128, TFLOP/s against the
    one-CTA-per-instance kernel): ``snake`` 1.24x / 1.15x (d64 / d128, 1k), 1.11x / 1.06x (4k), 0.70x /
    0.71x (16k); hence the default, with the launcher running one CTA per instance where the model
    says the dealing is unbalanced (launchers/cutile.py ``chained_ctas``)."""
    value = settings.value(SCHEDULE_ENV)
    if value in SCHEDULES:
        return value
    if value == SCHEDULE_OFF or not heavy_first or settings.value(PERSISTENT_ENV) in ("0", "1"):
        return None
    return "snake"


def snake_schedule_enabled() -> bool:
    """Whether a snake schedule (:func:`schedule`) applies to a program with a heavy-first axis."""
    return schedule() is not None


def schedule_by_default() -> bool:
    """Whether :func:`schedule`'s answer is the default (``TILEORCH_ATTN_SCHEDULE`` names none)."""
    return settings.value(SCHEDULE_ENV) not in (*SCHEDULES, SCHEDULE_OFF)


PEELED_MASKS_ENV = "TILEORCH_ATTN_PEELED_MASKS"


def peeled_masks_enabled() -> bool:
    """Whether the overlapped loop's peeled first tile is versioned like the loop's tiles
    (:func:`_versioned`: the copy without mask math where every interior mask holds on the whole
    tile): on when the environment sets ``TILEORCH_ATTN_PEELED_MASKS=1`` (read at each compile, part
    of the disk-cache key); default off until the H200 measures it.  Each program instance runs
    its tile 0 peeled, so at 8 key tiles per instance (seq 1k) the masked copy's compares and
    selects (~130 instructions per warp at d64) are a few percent of the instance."""
    return settings.value(PEELED_MASKS_ENV) == "1"


PLAIN_MASKS_ENV = "TILEORCH_ATTN_PLAIN_MASKS"


def plain_masks_enabled() -> bool:
    """Whether the plain (not overlapped) consumer loop versions its key tiles like the overlapped one
    (:func:`_versioned`: the copy without mask math where every interior mask holds on the whole tile):
    default on, ``TILEORCH_ATTN_PLAIN_MASKS=0`` turns it off (read at each compile, part of the disk-cache
    key).  The plain loop is what a key tile too wide for two S tiles in registers takes (``64 x 256``: S,
    P and the accumulator exceed :data:`FIRST_DOTS_REGS`); without the versions such a kernel paid the
    ragged key mask's compare and select on every tile (~200 of ~1230 SASS instructions per warp and
    256-key tile at d64, session 37)."""
    return settings.value(PLAIN_MASKS_ENV) != "0"


def plain_accumulator(ck: "ChainedKernel") -> int | None:
    """The index in ``ck.carried`` of the plain loop's one accumulator where its tiles can be versioned
    (:func:`_versioned`): one second dot, exactly one carried value is its result, and nothing of the tile
    but the second dot's C reads the carried accumulator (the conditions :func:`pipelining` checks before
    its registers); else None."""
    if len(ck.seconds) > 1:
        return None
    body = ck.loop.body.blocks.first
    accs = [k for k, y in enumerate(ck.yields) if strip_layouts(y)[0] is ck.dot2.result]
    if len(accs) != 1:
        return None
    acc_arg = body.args[1 + ck.carried[accs[0]][0]]
    reads = [ck.dot2.lhs, *[dot.acc for dot in (ck.firsts or [ck.dot1])],
             *[y for kk, y in enumerate(ck.yields) if kk != accs[0]], *[br.cond for br in ck.branches]]
    return None if any(_depends_on(v, acc_arg) for v in reads) else accs[0]


TREE_REDUCE_ENV = "TILEORCH_ATTN_TREE_REDUCE"


def tree_reduce_enabled() -> bool:
    """Whether a row reduction combines the thread's values of the row pairwise (a tree of depth
    ``log2(tn / 4)``) instead of in one chain (``tn / 4 - 1`` dependent ops: 31 at ``tn = 128``,
    the row max and the row sum of the softmax); the same number of instructions, more of them
    independent (the d64 kernel had 0.66 eligible warps per scheduler on the H200).  Exact for
    max/min; a sum is added in another order (as any reduction order is).  On when the environment
    sets ``TILEORCH_ATTN_TREE_REDUCE=1`` (read at each compile, part of the disk-cache key)."""
    return settings.value(TREE_REDUCE_ENV) == "1"


NEXT_S_ENV = "TILEORCH_ATTN_NEXT_S"


def next_s_enabled() -> bool:
    """Whether a persistent, pipelined kernel issues the next program instance's first dot (its
    ``S_0 = A0' B1'_0``) before this instance's epilogue (:func:`_lower_prefetching_instance`): the
    tensor core runs the last second dot and the next first dot back to back while the consumers
    normalise and store, instead of idling through the epilogue, the next instance's Q and tile-0
    waits and its first dot's latency.  On when the environment sets ``TILEORCH_ATTN_NEXT_S=1``
    (read at each compile, part of the disk-cache key): the last second dot completes and its stage
    is released before the next first dot is issued; ``=2`` issues the next first dot right behind
    the last second dot and releases the last stage after the epilogue (the next tile 0 is waited
    for while the last stage is held: the pipelined consumer's two stages or more make that
    deadlock-free, as for its loop).  Default off until the H200 measures it."""
    return settings.value(NEXT_S_ENV) in ("1", "2")


EARLY_Q_ENV = "TILEORCH_ATTN_EARLY_Q"


def early_q_enabled(q_slots: int | None = None) -> bool:
    """Whether a persistent kernel's pipelined consumer releases its instance's Q slot right after
    the consumer loop, before the last tile's second dot (the loop's last ``wait_group 0`` has
    retired every first dot, the only reads of Q), instead of after that dot: with one Q slot
    (d128: a second slot would cost a K/V stage) the producer, which waits for that release before
    it loads the next instance's Q and then its K/V tiles, starts them one second dot earlier.
    ``TILEORCH_ATTN_EARLY_Q=1`` always, ``=0`` never (read at each compile, part of the disk-cache
    key); unset: on for a kernel with one Q slot (``q_slots == 1``), where the H200 measured
    1.014-1.015x at d128, sequence 1k in two sessions (attention_variants_d128_2026-12-03e.json,
    attention_variants_earlyq_2026-12-03g.json; 0.99-1.01x at 4k and 16k), off with two slots
    (d64: the next Q already has its own slot, 0.99-1.01x).  Never with ``TILEORCH_ATTN_NEXT_S``
    (its tail releases Q itself)."""
    value = settings.value(EARLY_Q_ENV)
    if value in ("0", "1"):
        return value == "1"
    return q_slots == 1


EARLY_TMA_ENV = "TILEORCH_ATTN_EARLY_TMA"
EARLY_TMA_ATTR = "tileorch.early_tma"
"""Unit attribute on the entry block's ``scf.if`` in which thread 0 issues the first instance's loads."""


def early_tma_enabled() -> bool:
    """Whether the kernel's first program instance's Q tile and its first ``min(n, stages)`` K/V
    tiles are issued by thread 0 right after it initialised the mbarriers (``fence.mbarrier_init``),
    before the CTA barrier (barrier 0), instead of by the producer thread after that barrier, its
    ``setmaxnreg`` and its coordinate math (:meth:`_Kernel.early_issue`): the first loads start that
    much earlier on the kernel's critical path (session 37's K0 probe, d64 1k on an H100: the first Q
    TMA 1.5 us after the CTA's entry, its bar.sync done at 0.42).  The producer's first instance then
    skips what was issued (its Q arm and copies, the ring loop from ``min(n, stages)``).  Correct because
    every consumer and the producer wait on these barriers only after barrier 0, which thread 0
    reaches after its copies; the arms and copies are the producer's own, in the first ring round
    (no empty wait: fresh barriers).  ``TILEORCH_ATTN_EARLY_TMA=1`` (off by default until a GPU A/B
    says so; read at each compile, part of the disk-cache key)."""
    return settings.value(EARLY_TMA_ENV) == "1"


KV_AHEAD_ENV = "TILEORCH_ATTN_KV_AHEAD"


def kv_ahead_enabled() -> bool:
    """Whether a persistent kernel with one Q slot has its producer load each instance's first
    ``min(n, stages - 1)`` K/V tiles before that instance's Q (:meth:`_Kernel.producer`), instead
    of after it.  With one Q slot (d128 128x128: three stages; d256 128x64: two) the producer
    waits for the consumers' release of the current instance's Q before it loads the next Q, and
    only then issued the next instance's K/V tiles, so the next instance's first dot waited for Q
    and its first stage (K and V: three tile loads) to land after the release; loaded ahead, those
    tiles' stages are the current instance's tiles ``n - S .. n - 2``, released inside its loop
    before the Q release, and only Q is left in flight after it.  With two slots the next Q waits
    for no release (it follows the current instance's last tile at once): nothing to gain, not
    applied.  No deadlock: every tile the producer waits for the release of belongs to an
    instance whose Q and tiles it has issued (``tileorch check`` proves the order, and finds the
    deadlock of ``stages + 1`` tiles ahead).  On by default since session 26 measured it (H100,
    one process per variant: d128 1k +2.1% non-causal, +1.6% causal, 4k within noise);
    ``TILEORCH_ATTN_KV_AHEAD=0`` keeps the old order (read at each compile, part of the disk-cache
    key)."""
    return settings.value(KV_AHEAD_ENV) == "1"


def early_q_asked() -> bool:
    """Whether the environment asks for the early Q release explicitly (``TILEORCH_ATTN_EARLY_Q=1``):
    a kernel that cannot apply it then says why in a remark."""
    return settings.value(EARLY_Q_ENV) == "1"


STAGES_ENV = "TILEORCH_ATTN_STAGES"


def stages_cap() -> int:
    """The most K/V ring stages :func:`_choose_plan` may take (``MAX_STAGES`` unless the environment
    sets ``TILEORCH_ATTN_STAGES=N``, 1 <= N <= 4; read at each compile, part of the disk-cache key).
    Fewer stages free shared memory for a second Q slot of a persistent kernel (d128 128x128: three
    stages and one slot by default, two and two with ``N = 2``: the next instance's Q loads while
    this one runs, without waiting for its release).  Default off (the H200 has not measured it)."""
    value = settings.value(STAGES_ENV)
    return min(MAX_STAGES, int(value)) if value is not None else MAX_STAGES


SKIP_RESCALE_ENV = "TILEORCH_ATTN_SKIP_RESCALE"


def skip_rescale_enabled() -> bool:
    """Whether the pipelined loop's second-dot C of the form ``acc * r`` (``r`` a row vector: the
    online softmax's ``alpha = exp2(m_old - m_new)``) skips its multiplies when every ``r`` of the
    warp is exactly 1 (no row max of the warp's 16 rows grew in this key tile): one warp-uniform
    ``vote.sync.all`` and branch per tile (:func:`_rescale_factor`).  Exact (``x * 1 == x`` for
    every f32, NaN included as NaN).  Saves ``dv / 2`` FMUL per thread and tile where it holds
    (rarely in the first key tiles of an instance, mostly in the later ones of long rows).  On when
    the environment sets ``TILEORCH_ATTN_SKIP_RESCALE=1`` (read at each compile, part of the
    disk-cache key); default off until the H200 measures it."""
    return settings.value(SKIP_RESCALE_ENV) == "1"


LATE_RESCALE_ENV = "TILEORCH_ATTN_LATE_RESCALE"


def late_rescale_enabled() -> bool:
    """Whether the pipelined loop computes the second dot's C (``acc * alpha``: the previous
    tile's accumulator rescaled by the row factor of this tile's softmax) right before issuing
    the second dot, behind the next tile's first dot (FlashAttention-3's ``rescale_o`` between the
    two GEMMs), instead of after the ``wait_group 0`` that ends the iteration, where nothing else
    runs on the tensor core until the next tile's WGMMAs are issued.  The loop then carries the
    unscaled accumulator and the factor's two row registers (:func:`_late_factor`).  On by default
    (session 17's H200 A/B, same process: d64 non-causal 1k / 4k 1.01x / 1.04x, d128 1.01x / 1.00x);
    ``TILEORCH_ATTN_LATE_RESCALE=0`` turns it off (read at each compile, part of the disk-cache key).  With
    ``TILEORCH_ATTN_NEXT_S`` too (the next instance's tail scales the last tile's C before it issues
    that tile's second dot); not for a C that is not ``acc`` times a row vector."""
    return settings.value(LATE_RESCALE_ENV) == "1"


S_AHEAD_ENV = "TILEORCH_ATTN_S_AHEAD"
S_AHEAD_REGS = 232
"""Registers per consumer thread the S-ahead loop's carried and in-flight tiles may take: two first
dots' S (``sn``: the next one in flight while this one's softmax runs), P packed twice (``tn / 2``),
the accumulator (``dv / 2``) and the other carried values, within the 240 of ``setmaxnreg``
(head dim 64 with 128x128 tiles: 228; head dim 128: 260, refused)."""


def s_ahead_form(heavy_first: int | None) -> str:
    """Which S-ahead loop the pipelined consumer runs: ``"0"`` none, ``"1"`` the next key tile's first dot
    (``S_{j+1} = A0 B1_{j+1}``) right behind tile ``j - 1``'s second dot, before tile ``j``'s softmax,
    instead of before ``P_{j-1} B2`` with a ``wait_group 1`` for it (tile ``j``'s S is complete when the
    iteration starts, so the tensor core runs both dots while the consumers compute P, and no iteration
    waits for its own first dot), ``"2"`` that loop unrolled by two (:func:`s_ahead_unrolled`).  The
    loop's last iteration issues tile ``n - 1``'s first dot again (its stage is still held; the result is
    dropped) so that every iteration issues two dots.  Needs three K/V stages (tiles ``j - 1`` .. ``j + 1``
    held at once), the late rescale's or the plain C, no warp-group ping-pong, no late pack, no
    ``TILEORCH_ATTN_NEXT_S``, a first dot whose C reads no carried value, and :data:`S_AHEAD_REGS`
    (:func:`_s_ahead` checks them).  ``TILEORCH_ATTN_S_AHEAD`` (read at each compile, part of the
    disk-cache key; default ``"0"``): ``auto`` is ``"2"`` for programs without a heavy-first axis and ``"0"``
    for those with one (``heavy_first``: causal attention, whose masked diagonal loop lost with it).
    Measured on an H100 (session 27, `benchmarks/session27_attn.sh`, one process per variant, d64 128x128
    tiles, TFLOP/s against the default then): non-causal 1k 392.9 -> 404.4 (1.029x), 4k 450.8 -> 474.3
    (1.052x); causal 1k 0.907x, 4k 0.965x; ``=1`` 0.98-0.99x non-causal."""
    value = settings.value(S_AHEAD_ENV)
    if value == "auto":
        return "2" if heavy_first is None else "0"
    return value


def s_ahead_unrolled(form: str) -> bool:
    """Form ``"2"`` of :func:`s_ahead_form`: the S-ahead loop runs two tiles per trip (tiles j and j + 1,
    then one more iteration where ``n - 1`` is odd).  One iteration reads its S while the next one's
    WGMMA writes other registers, so the loop's carried S is copied out of those at its back edge
    (ptxas 13.0, d64: 64 moves per warp and tile); two iterations per trip alternate the two
    register sets instead, for one more copy of the loop body."""
    return form == "2"


LATE_PACK_ENV = "TILEORCH_ATTN_LATE_PACK"


def late_pack_enabled() -> bool:
    """Whether the pipelined loop packs tile ``j``'s P (``cvt.rn.{f16,bf16}x2.f32``, the second
    dot's register-A operand) in the next iteration, right after issuing tile ``j + 1``'s first
    dot and before its own second dot, instead of after the ``wait_group 0`` that ends iteration
    ``j``: the loop carries P in f32 (``tn / 2`` registers, twice the packed ones), and the packs no
    longer delay the next first dot.  No second dot is in flight where they run (the previous one
    retired at that ``wait_group 0``).  Only where P in f32 fits the loop's registers beside S, the packed
    P and the accumulator (:data:`FIRST_DOTS_REGS`: d64 with 128-wide key tiles, not d128, where ptxas
    13.0 spilled 64-80 bytes).  On when the environment sets ``TILEORCH_ATTN_LATE_PACK=1``
    (read at each compile, part of the disk-cache key); default off until the H200 measures it.
    Not with ``TILEORCH_ATTN_NEXT_S``."""
    return settings.value(LATE_PACK_ENV) == "1"


EXP2_FMA_ENV = "TILEORCH_ATTN_EXP2_FMA"


def exp2_fma_period(d: int | None = None, dv: int | None = None) -> int:
    """``K`` of :func:`_exp2_fma`'s share (0: off): the ``exp2`` of the accumulator-layout tile
    elements in column groups ``g`` with ``g % K == K - 1`` (one of every ``K``) is computed on the
    FMA pipe instead of the MUFU (``ex2.approx``).  Per S element the MUFU spends 1/16 of an SM
    cycle on its ``exp2`` while the tensor core spends ``2 (d + dv) / 4096`` on both dots, so a
    kernel whose dots' reduction extents sum to 128 or less (a 64-wide head: 64 ``ex2`` per thread
    and key tile, as long as both dots) is MUFU-bound: there the default is ``K = 16`` (4 of 64
    elements at 128-wide key tiles; H200, attention_variants_d64_2026-12-02h.json: 1.00-1.05x on
    all six d64 shapes, 0.96-0.98x at d128, hence off there).  ``TILEORCH_ATTN_EXP2_FMA=K``
    overrides (``0``: off; read at each compile, part of the disk-cache key)."""
    value = settings.value(EXP2_FMA_ENV)
    if value is not None:
        return int(value)
    return 16 if d is not None and dv is not None and d + dv <= 128 else 0


EXP2_POLY = (1.0000001192092896, 0.6931471824645996, 0.2402210682630539, 0.05550327152013779,
             0.009676037356257439, 0.0013400432653725147)
"""``2^f`` on ``[-0.5, 0.5]``: a degree-5 polynomial (Chebyshev fit), at most 2.6e-7 relative
error in f32 Horner evaluation (``ex2.approx.ftz.f32``: about 2^-22)."""
EXP2_ROUND = 12582912.0
"""1.5 * 2^23: ``x + C`` rounds ``x`` (|x| < 2^22) to an integer held in the sum's low mantissa bits."""


def _exp2_fma(e: Emitter, x: SSAValue) -> SSAValue:
    """``2^x`` (f32) without the MUFU: ``x`` clamped to [-127, 127] (NaN kept), ``j`` = ``x``
    rounded to an integer (by adding :data:`EXP2_ROUND`), ``2^(x - j)`` by :data:`EXP2_POLY`, and
    ``j`` added to its exponent field (``(bits(x + C) << 23) + bits(p)``: the low bits of
    ``x + C`` are ``j`` modulo 2^9); ``+inf`` from ``x >= 128`` on.  Below -126 the result is
    at most 2^-126 (``ex2.approx.ftz`` flushes those to zero: both vanish beside any normal
    value)."""
    lo = e.ptx_f32("max.NaN.f32 $0, $1, $2;", [x, e.fconst(-127.0)])
    xc = e.ptx_f32("min.NaN.f32 $0, $1, $2;", [lo, e.fconst(127.0)])
    t = e.v(arith.AddfOp(xc, e.fconst(EXP2_ROUND)))
    f = e.v(arith.SubfOp(xc, e.v(arith.SubfOp(t, e.fconst(EXP2_ROUND)))))
    p = e.fconst(EXP2_POLY[-1])
    for c in EXP2_POLY[-2::-1]:
        p = e.fma(p, f, e.fconst(c))
    bits = e.v(arith.AddiOp(e.v(arith.ShLIOp(e.v(arith.BitcastOp(t, i32)), e.const(23))),
                            e.v(arith.BitcastOp(p, i32))))
    r = e.v(arith.BitcastOp(bits, f32))
    big = e.v(arith.CmpfOp(x, e.fconst(128.0), "oge"))
    return e.v(arith.SelectOp(big, e.fconst(float("inf")), r))


Q_PROLOGUE_BARRIER = 3
"""Named barrier of consumer warp group 0 after its Q prologue (warp group ``w``: ``3 + w``, 128
threads; ping-pong uses 1 and 2)."""
K_PROLOGUE_BARRIER = 5
"""The consumers' named barrier after a first-dot B (K) prologue (:meth:`_Kernel.k_prologue`):
every consumer thread, once per tile (barriers 3 and 4 are the Q prologue's per warp group)."""
PRODUCER_REGS = 24
CONSUMER_REGS = 240
"""setmaxnreg of the producer and consumer warp groups (24 + 2 x 240 <= 3 x 168 = 504 per lane slot: what a
CTA of 384 threads starts with, :func:`tileorch.dialects.register_budget.slot_budget`)."""


FOUR_GROUP_MARGIN = 12
"""Registers of a 256-row tile's consumer (:func:`consumer_regs` of four warp groups: 112) left for
addresses, the loop's bookkeeping and the softmax's temporaries beside S, P and the carried tiles
(the value tiles at most 64 wide): calibrated with ptxas 13.0, which compiles 256x64 tiles at d64
(32 + 32 + 36 = 100) in 112 registers without spills (session 23; at 120 registers, session 17, a
margin of 20 was kept after 256x32 at d128 spilled 12 bytes)."""


def consumer_regs(consumers: int, ctas_per_sm: int = 1) -> int:
    """setmaxnreg of each of ``consumers`` warp groups beside the producer's :data:`PRODUCER_REGS`, a
    multiple of 8, at most :data:`CONSUMER_REGS`, within what the CTA starts with
    (:func:`tileorch.dialects.register_budget.slot_budget`): one or two warp groups 240; four (a 256-row tile)
    112, not the 120 of 512 / 4 (a CTA of 640 threads starts with 96 registers: 5 x 96 = 480 < 24 + 4 x
    120, and the fourth group's increase waited forever: sweep 6's attn_bm256 never finished on the
    H200 or the H100, sessions 22 and 23, while the PTX emulator, which has no register pool, passed)."""
    return most_consumer_regs(PRODUCER_REGS, consumers, CONSUMER_REGS, ctas_per_sm)
_DT = {Float16Type: "f16", BFloat16Type: "bf16"}
_FP8 = {Float8E4M3FNType: "e4m3", Float8E5M2Type: "e5m2"}
"""The 8-bit float types the first dots' WGMMA takes (``S = Q K^T`` of e4m3 / e5m2 Q and K, K = 32 per
instruction, both operands K-major in shared memory), and since session 45 the second dot's (FlashAttention-3's
fp8 ``P @ V``: P packed in registers by :func:`_pack_p`, V read through the launch's key-major copy,
:data:`KEY_MAJOR_COPY`); several second dots stay 16-bit (:func:`_dot_types`)."""
_WG = {**_DT, **_FP8}


def _check_operand_types(dt: str, d1: Operation, firsts: list, d2: Operation, dt2: str | None = None) -> None:
    """Every operand of the chained kernel's WGMMAs has its dot's type: the first dots' ``dt`` (K's
    loads; Q's, or the type a Q prologue converts it to in place), the second dot's ``dt2`` (V's
    loads; ``dt`` when not given).  The kernel multiplies the tiles as loaded (and P packed to
    ``dt2``), so an operand converted to another type by ``astype`` (K rounded to fp8, P to bf16
    beside f16 V) would be multiplied unconverted: refused, located at the conversion."""
    dt2 = dt2 or dt
    operands = [(d1.lhs, "first dot's A (Q)", dt), *((fd.rhs, "first dot's B (K)", dt) for fd in firsts),
                (d2.lhs, "second dot's A (P)", dt2), (d2.rhs, "second dot's B (V)", dt2)]
    for value, what, want in operands:
        elt = value.type.element_type
        have = _WG.get(type(elt), str(elt))
        if have != want:
            where = value.owner if isinstance(value.owner, Operation) else d1
            _fail(where, f"the {what} is {have} where the operands' tiles are loaded as {want}: a dot operand "
                         f"converted to another type (astype) is not computed by the chained kernel (convert it "
                         f"to {want}, or load it as {have})")


@dataclass
class Operand:
    """A TMA-loaded tile: the load, its 2-D shape [rows, cols] (cols contiguous), the kernel
    parameter of its base pointer, and (B operands) whether it is K-major."""

    load: Operation
    rows: int
    cols: int
    arg: int
    k_major: bool = True
    swapped: bool = False  # a view order swapping the last two dimensions (the tile is stored transposed)
    rows_dim: int = -1  # the array dimension of the tile's rows (-1: the next-to-last one)
    group_dim: int = -1
    """A second array dimension the tile's rows run along (-1: none): GQA's ``(1, G, BM, D)`` query
    tile reshaped to ``(G BM, D)`` rows, one TMA box of ``G`` x ``BM`` rows (``rows_dim`` the ``BM``
    one) that lands in shared memory as ``G BM`` consecutive rows."""
    group: int = 1  # the box's extent along ``group_dim`` (``rows`` is ``group`` x the box's rows)
    key_major_copy: bool = False
    """The tile is read from the launch's key-major copy of its array (:data:`KEY_MAJOR_COPY`: an fp8 second dot's
    V ``[.., S, D]`` as ``[.., D, S16]``, keys permuted within each 16): ``rows`` x ``cols`` are the copy's
    ``[dv, tn]``, the producer's coordinates the load's with the last two swapped."""
    first: "Operand | None" = None
    """The tile the loop reads instead where :attr:`first_when` holds: a step before the loop whose tile load read
    another array (sink keys / values of their own), run as the loop's first iteration by ``tileas-fuse-split-loops``
    (the loop's operand ``select(iv == lb, step's tile, loop's tile)``).  Laid out as this one (same box, rows,
    swizzle); the producer loads it, through its own tensor map (``<name>_first``), into this operand's place in
    the stage at that iteration, and this one's tile at the others (:meth:`_Kernel.operand_loads`)."""
    first_when: SSAValue | None = None
    gathered: SSAValue | None = None
    """The first dot's A (Q) read by ``ct.gather`` (routed or packed query rows): the ``[tm, d]`` value the dot reads,
    evaluated element by element by the consumer warp groups into the Q slot (:meth:`_Kernel.q_gather`), laid out
    as a TMA box would write it; ``load`` is the gather's pointer-tile load, no tensor map, no TMA copy."""
    """The consumer loop's scalar ``i1`` choosing :attr:`first` (computed from the loop's iv and loop-invariant
    values by ``arith`` ops: the producer evaluates it at its own tile index)."""
    row_start: SSAValue | None = None
    """A row window of the array (``tileas-row-window-gather``: rows gathered at ``start + x R + arange(R)`` under a
    row mask): the first row of the window, added to the TMA row coordinate (the tensor map is the whole
    argument's)."""
    row_limit: SSAValue | None = None
    """The window's rows (its first extent): rows ``>= row_limit - x R`` of tile ``x`` are zeroed in shared memory
    before a WGMMA reads them (:meth:`_Kernel.zero_stage_windows`, the plain loop; Q: :meth:`_Kernel.wait_q`)."""
    parts: tuple = ()
    """The loads of the tile's next row blocks (a K / V tile of several pages joined by ``ct.cat``: each page its
    own TMA box at its own coordinate; ``load`` is the first): block ``p`` is ``box_rows`` rows at row
    ``p box_rows`` of each column chunk, the producer's box ``p`` lands there (``box_rows`` a multiple of the
    swizzle atom's 8 rows, so each box starts on an atom and the swizzle, a function of the address, is the one
    tile's)."""

    @property
    def box_rows(self) -> int:
        """The TMA box's extent along ``rows_dim`` (``rows`` without the group dimension and the other parts)."""
        return self.rows // self.group // (1 + len(self.parts))

    def view_dim(self, dim: int) -> int:
        """The view (tile index) dimension of array dimension ``dim``."""
        return ints(self.load.view.type.order).index(dim)

    def transposed(self, seen: list[str]) -> bool:
        """Whether the tile the dot reads is the transpose of the stored one (one permute op or
        a swapped view order, not both)."""
        return ("nv_tileaa.permute" in seen) != self.swapped

    @property
    def esize(self) -> int:
        """Bytes of one element: 1 for an e4m3 / e5m2 tile (:data:`_FP8`), else 2."""
        return 1 if type(self.load.result.type.element_type) in _FP8 else 2

    @property
    def bytes(self) -> int:
        return self.rows * self.cols * self.esize

    @property
    def box(self) -> int:
        """Elements of one TMA box along the contiguous dimension: the widest box of 128-byte rows
        (128B swizzle), 64-byte rows (64B swizzle) or 32-byte rows (32B swizzle) that divides the
        extent (16-bit head dim 32: one 32-wide box; 128: two 64-wide ones; fp8 head dim 64: one
        64-wide box of 64-byte rows, 128: one 128-wide box)."""
        return next(w for w in (128 // self.esize, 64 // self.esize, 32 // self.esize) if self.cols % w == 0)

    @property
    def row_bytes(self) -> int:
        """Bytes of one row of a box: the swizzle span of the tile (TMA box and WGMMA descriptor)."""
        return self.esize * self.box

    @property
    def chunks(self) -> int:
        """Boxes along the contiguous dimension (stored one after the other, ``chunk_bytes`` apart)."""
        return self.cols // self.box

    @property
    def chunk_bytes(self) -> int:
        return self.rows * self.row_bytes

    @property
    def rank(self) -> int:
        return 2 if self.gathered is not None else len(self.load.indices)


@dataclass
class SecondDot:
    """A second dot of the chain (``acc' = P @ B2 + C``, P computed from the first dots' results):
    the dot, its B operand and the first dot whose B tile it is (the same load; -1: the B2 tile of
    the stage)."""

    dot: Operation
    b2: Operand
    b2_in_b1: int = -1


@dataclass
class ChainedKernel:
    """A kernel of two chained dots as :func:`chained_dots` found it."""

    kernel: aa.FuncOp
    dot1: Operation
    dot2: Operation
    loop: scf.ForOp
    a0: Operand
    b1: Operand
    b2: Operand
    store: Operation
    tm: int
    tn: int
    d: int
    dv: int
    dtype: str  # the first dots' WGMMA type (Q and K as multiplied)
    carried: list[tuple[int, int]]  # (iter-arg index, width X) of the loop's tile-carried values
    yields: list[SSAValue]  # the new value of each iter arg (through the pipeline's consumer_read)
    branches: list[scf.IfOp] = field(default_factory=list)  # scf.if on a scalar, tile results (masks)
    row_stores: list = field(default_factory=list)  # (store, [tm, 1] value): row vectors stored after the loop
    q_prologue: QPrologue | None = None  # elementwise ops between the A0 (Q) load and the first dot
    b_prologue: QPrologue | None = None
    """A prologue on the first dot's B tile (K computed in the loop from its load: QK-norm), applied
    in place to each K tile in its ring stage by the consumer threads (:func:`_rowwise_prologue`)."""
    firsts: list = field(default_factory=list)
    """The first dots (``dot1`` first), all ``A0 @ B1_k`` with the same A0 tile: one WGMMA chain of
    width ``sn`` over their B tiles side by side in the stage (:attr:`b1_wide`)."""
    b1s: list = field(default_factory=list)  # each first dot's B operand (``b1`` first)
    dtype2: str = ""
    """The second dots' WGMMA type (P packed to it, V as loaded) where it is not :attr:`dtype` (f16 scores, bf16
    ``P @ V``: each dot's operands in one 16-bit type of their own); empty: :attr:`dtype`."""

    @property
    def dtype_p(self) -> str:
        """The second dots' WGMMA type: P is packed to it (:attr:`dtype2`, else :attr:`dtype`)."""
        return self.dtype2 or self.dtype
    b2_in_b1: int = -1
    """The first dot whose B tile the second dot reads too (the same load: dQ's ``K`` is ``S = Q
    K^T``'s B, K-major, and ``dQ += dS K``'s, N-major): the second dot's WGMMAs read that tile's
    boxes in the stage (:attr:`b2_view`), the producer loads it once; -1: B2 has its own tile."""
    seconds: list = field(default_factory=list)
    """Every second dot (:class:`SecondDot`, program order; ``dot2`` the last) when several read the
    chain (FlashAttention's backward dK/dV: ``dV += P^T dO`` and ``dK += dS^T Q``), each with its
    own accumulator carried by the loop (stored after it by :attr:`tile_stores`); empty: ``dot2``
    alone."""
    tile_stores: list = field(default_factory=list)
    """The accumulator tiles' stores after the loop (several second dots: each ``[tm, dv]`` tile
    stored; else ``[store]``; none when :attr:`rows_only`)."""
    store_transposed: bool = False
    """The accumulator tile is stored transposed (``ct.transpose(o)``: a ``[dv, tm]`` tile, O stored ``[BH, D, S]``;
    ``tileas/transposed_store.py``): stored element by element at the stored tile's (col, row)."""
    rows_only: bool = False
    """The program stores row vectors only (its loop's one dot only reduced: ``tileas-row-statistics-chain``
    added a second dot nothing reads): :attr:`store` is the first row vector's store, the epilogue stores the row
    vectors and no tile."""
    a0s: list = field(default_factory=list)
    """Each first dot's own A tile (``a0`` first) when the first dots read different loop-invariant
    A tiles (FlashAttention's backward dQ: ``S = Q K^T`` and ``dP = dO V^T``): each loaded once
    before the loop into its own place of the Q slot (:attr:`Plan.a0_slot`), each first dot one
    WGMMA chain of ``n = tn`` (:meth:`_Kernel.s_chain`); empty: every first dot reads ``a0``."""
    tile_rows: int = 0
    """The program's tile rows (the dots' M; 0: ``tm``).  Below 64 (a 16- or 32-row decode tile):
    ``tm`` is 64, the WGMMA atom's M, the Q box reads 64 rows (the rows past the tile are the
    array's next rows, zero past its end) and the rows past ``tile_rows`` are never stored
    (:data:`PADDED_ROWS`)."""
    uniform_divided: set = field(default_factory=set)
    """The ids of the loop's IEEE divisions evaluated with one reciprocal per thread (``loop_division.py``)."""
    small_tanh: set = field(default_factory=set)
    """The ids of the loop's full-precision ``tanh`` ops under the warp-uniform branch (``loop_tanh.py``)."""
    softmax_exps: set = field(default_factory=set)
    """The ids of the loop's online-softmax ``exp`` ops taken as ``ex2.approx`` (``loop_softmax_exp.py``)."""
    row_loads: list = field(default_factory=list)
    """The op groups of the producer-loaded loop tiles' reads of the tile being lowered (``loop_row_prefetch.py``)."""
    row_prefetched: int = 0
    row_groups: int = 0
    """Consumer warp groups of a kernel of row groups (:mod:`~tileorch.transforms.tileas.row_groups`: each group
    a 64-row slice of an instance, the CTA's slices consecutive rows of one head; ``a0`` then of ``64 row_groups``
    rows); 0: ``tm / 64`` groups of one instance."""
    k_ahead: bool = False
    """The plain loop applied tile j+1's K prologue while tile j's first dot ran (``TILEORCH_ATTN_K_AHEAD``)."""
    k_ahead_off: str | None = None
    """Why a K prologue asked to run one tile ahead runs in its tile's own iteration (a remark)."""
    """The loads :func:`~tileorch.transforms.tileas.loop_row_prefetch.hoist` moved before the wait for S."""
    head_dim_width: tuple | None = None
    """``(d, dv, tile dv)``: the widths the dots run where narrower than the program's tiles (``head_dim_width.py``),
    and the tile's: the stored tile's columns past ``dv`` are not computed (the array's extent ends before them)."""
    launch_grid: list | None = None
    """The launch grid's extents (the persistent kernel's grid parameters) where the program's ``num_programs``
    is read by its work items' count (:func:`~tileorch.transforms.tileas.chained_work_loop.flatten_inner_work_loop`),
    else None."""

    @property
    def rows(self) -> int:
        """The program's tile rows (``tm`` unless the tile is padded to the WGMMA's 64)."""
        return self.tile_rows or self.tm

    @property
    def b2_view(self) -> Operand:
        """The second dot's B as its descriptors read it: its own tile, or (:attr:`b2_in_b1`) the
        first dot's tile within the stage's joint B1 operand (K-major B1 tiles side by side: each
        box ``k1`` tiles' rows apart, :attr:`b1_wide`)."""
        return self.b2_view_of(self.b2, self.b2_in_b1)

    def b2_view_of(self, b: Operand, in_b1: int) -> Operand:
        """:attr:`b2_view` of a second dot's B ``b`` read in first dot ``in_b1``'s tile (-1: its own)."""
        if in_b1 < 0 or self.k1 == 1 or not self.b1.k_major:
            return b
        return Operand(b.load, self.k1 * b.rows, b.cols, b.arg, b.k_major, b.swapped, b.rows_dim)

    @property
    def stage_bytes(self) -> int:
        """Bytes the producer loads into one stage (every first dot's B tile once, B2's unless shared)."""
        return len(set(self.b1_tiles)) * self.b1.bytes + (0 if self.b2_in_b1 >= 0 else self.b2.bytes)

    @property
    def b1_tiles(self) -> list[int]:
        """The B tile in the stage each first dot's chain reads: its own (``k``), or, with its own A
        tile (:attr:`own_a`), the first dot's whose B is the same load (two query heads reading one K
        tile: loaded once).  With a shared A0 every B tile is one part of the one wide WGMMA's operand."""
        b1s = self.b1s or [self.b1]
        if not self.own_a:
            return list(range(len(b1s)))
        return [next(i for i, b in enumerate(b1s) if b.load is bk.load) for bk in b1s]

    @property
    def own_a(self) -> bool:
        """Whether the first dots read different A tiles (:attr:`a0s`)."""
        return len(self.a0s) > 1

    @property
    def k_step(self) -> int:
        """The first dots' WGMMA K (32 for e4m3 / e5m2 operands, else 16): 32 bytes of each K-major row either way."""
        return 32 if self.dtype in _FP8.values() else 16

    @property
    def k_step2(self) -> int:
        """The second dots' WGMMA K (32 for an e4m3 / e5m2 ``P @ V``, else 16)."""
        return 32 if self.dtype_p in _FP8.values() else 16

    @property
    def k1(self) -> int:
        """First dots (1: attention, a two-GEMM MLP; 2: SwiGLU's gate and up projections)."""
        return max(1, len(self.firsts))

    @property
    def sn(self) -> int:
        """Columns of the first dots' joint accumulator (``k1 * tn``; first dot ``k``'s result is
        columns ``[k tn, (k + 1) tn)``: registers ``[k tn / 2, (k + 1) tn / 2)`` of the WGMMA
        accumulator fragment)."""
        return self.k1 * self.tn

    @property
    def b1_wide(self) -> Operand:
        """The first dots' B tiles in one stage as the one B operand of an ``n = sn`` WGMMA: K-major
        (``[tn, d]`` each), tile ``k``'s box ``c`` at ``(c k1 + k) chunk_bytes``, i.e. one
        ``[k1 tn, d]`` tile; N-major (``[d, tn]``), tile ``k``'s box ``c`` at ``(k chunks + c)
        chunk_bytes``, i.e. one ``[d, k1 tn]`` tile whose boxes follow each other (descriptor and
        k16 steps as one tile's)."""
        if self.k1 == 1 or not self.b1.k_major:
            return self.b1
        return Operand(self.b1.load, self.k1 * self.b1.rows, self.b1.cols, self.b1.arg, True, self.b1.swapped,
                       self.b1.rows_dim)

    def b1_chunk_offset(self, k: int, c: int) -> int:
        """Byte offset in the stage of first dot ``k``'s B tile's box ``c`` (:attr:`b1_wide`)."""
        b = self.b1
        return (c * self.k1 + k) * b.chunk_bytes if b.k_major else (k * b.chunks + c) * b.chunk_bytes

    def provide_s(self, provided: dict, regs: list[SSAValue]) -> None:
        """Each first dot's result in ``provided``: its ``tn / 2`` registers of the joint S ``regs``."""
        n = self.tn // 2
        for k, dot in enumerate(self.firsts or [self.dot1]):
            provided[dot.result] = (self.tn, list(regs[k * n:(k + 1) * n]))


def _operand(kernel: aa.FuncOp, dot: Operation, v: SSAValue, what: str, in_loop: bool,
             grouped: bool = False, fp8: bool = False, fp8_second: bool = False) -> tuple[Operand, list[str]]:
    """The TMA tile ``v`` is loaded from (a located refusal when it is not one the kernel reads).
    ``grouped`` (the first dot's A): the tile's rows may run along two array dimensions (a
    ``(1, G, BM, D)`` tile reshaped to ``(G BM, D)``: :attr:`Operand.group_dim`).  ``fp8`` (a first
    dot's operand): an e4m3 / e5m2 tile is taken (:data:`_FP8`); a second dot's fp8 B (V) is refused."""
    from tileorch.transforms.tileas.convert_to_cutlass import _base_argument, argument_view_mismatch

    src, seen = strip_layouts(v)
    if in_loop and _joined(v):
        return _joined_operand(kernel, dot, src.owner, seen, what, fp8)
    if in_loop and _selected(v):
        return _selected_operand(kernel, dot, src.owner, seen, what, fp8)
    ld = source_load(src)
    if not isinstance(ld, ts.TiledLoadOp) or not isinstance(ld.atom, ts.TmaLoadAtomAttr):
        from tileorch.transforms.tileas.gathered_operand import gather_source

        gathered = gather_source(v)
        if gathered is not None:
            _fail(gathered[0], gathered_operand_why(what))
        _refuse_joined(v, what)
        _refuse_converted(src, what)
        _fail(dot, f"{what} is not a TMA tile load{' of the loop' if in_loop else ' made before the loop'}")
    shape = list(ld.result.type.get_shape())
    vt = ld.view.type
    order, n = ints(vt.order), len(ints(vt.order))
    swapped = n >= 2 and order == list(range(n - 2)) + [n - 1, n - 2]
    # the rows: the one dimension before the last with an extent other than 1 (unit dimensions
    # anywhere else: a packed [B, S, 3, H, D] QKV tensor's (1, S tile, 1, 1, D) tiles), else the
    # next-to-last; a swapped view keeps its two dimensions last
    wide = [i for i, x in enumerate(shape[:-1]) if x != 1]
    rows_dim = wide[0] if len(wide) == 1 and not swapped and order == list(range(n)) else len(shape) - 2
    group_dim = -1
    if grouped and len(wide) == 2 and not swapped and order == list(range(n)) and shape[wide[1]] % 8 == 0:
        group_dim, rows_dim = wide  # rows g BM + i: box (.., G, BM, cols) in shared memory as G BM rows
    if len(shape) < 2 or any(x != 1 for i, x in enumerate(shape[:-1]) if i not in (rows_dim, group_dim)):
        _fail(ld, f"{what} tile {shape}: 2-D tiles (with unit dimensions elsewhere) are supported"
                  + (" (the first dot's A may also take its rows from two dimensions, (1, G, BM, D) with BM a "
                     "multiple of 8, reshaped to (G BM, D))" if grouped and len(wide) == 2 else ""))
    if (order != list(range(n)) and not swapped) or ints(vt.tile) != ints(vt.step):
        _fail(ld, f"{what}: a view with dimension order {order} (other than the last two swapped) or overlapping "
                  "tiles is not supported yet")
    elt = ld.result.type.element_type
    if type(elt) not in _DT:
        used = next((o.type.element_type for o in dot.operands[:2] if _depends_on(o, ld.result)), None)
        if used is None:  # (a B tile staged by the producer: the consumer's operand no longer reads the load)
            used = dot.operands[1 if "'s B" in what else 0].type.element_type
        if type(elt) in _FP8 and used == elt and not fp8 and not fp8_second:
            _fail(ld, f"{what} element type {elt}: an fp8 second dot reads one plain V tile ([.., S, D] through a "
                      "launch-time key-major copy); a tile joined from row blocks (ct.cat), chosen at the first step, "
                      "or read by several second dots is not supported in fp8; store V in f16 or bf16 (the first dot "
                      "S = Q K^T takes e4m3 / e5m2 Q and K)")
        if type(elt) not in _FP8 or used != elt:
            converted = (f" (converted to {used} in the kernel: the tier's WGMMA reads the tile in shared memory as "
                         "TMA writes it, in the array's type, and converts no operand tile; convert the array before "
                         "the launch)" if type(used) in _DT else "")
            _fail(ld, f"{what} element type {elt}: f16/bf16 operands are supported{converted}"
                      + (" (and e4m3 / e5m2 Q and K multiplied as loaded)" if fp8 else ""))
    rows, cols = shape[-1:-3:-1] if swapped else (shape[rows_dim], shape[-1])  # as stored in the array
    group = shape[group_dim] if group_dim >= 0 else 1
    rows *= group
    padded = grouped and group == 1 and rows in PADDED_ROWS  # the box reads the WGMMA's 64 rows (analyze_chained_dots)
    if type(elt) in _FP8:  # 32-element K steps: the contiguous extent a multiple of 32 (32-, 64-, 128-byte boxes)
        if cols % 32 or cols > 256 or (rows % 8 and not padded) or rows > 256:
            _fail(ld, f"{what} tile {rows}x{cols} of {elt}: the contiguous extent must be a multiple of 32 (an fp8 "
                      "WGMMA's K step; 32-, 64- or 128-byte swizzled TMA boxes), rows a multiple of 8, both at most "
                      "256")
    elif not (cols % 64 == 0 or cols in (16, 32)) or cols > 256 or (rows % 8 and not padded) or rows > 256:
        _fail(ld, f"{what} tile {rows}x{cols}: the contiguous extent must be 16, 32 or a multiple of 64 (32-, 64- "
                  "or 128-byte swizzled TMA boxes), rows a multiple of 8, both at most 256")
    arg = _base_argument(kernel, ld.view)
    if arg is None:
        _fail(ld, f"{what} is not loaded from a kernel argument")
    why = argument_view_mismatch(kernel, ld.view)
    window = None
    if why is not None:
        from tileorch.transforms.tileas.row_window_gather import row_window

        window = row_window(kernel, ld.view)
        if window is None or window[0] != arg or rows_dim != 0 or swapped or group_dim >= 0:
            _fail(ld, f"{what}'s view: {why}; the chained kernel reads it through a tensor map of the whole argument "
                      "(not supported yet)")
    return Operand(ld, rows, cols, arg, swapped=swapped, rows_dim=rows_dim if rows_dim != len(shape) - 2 else -1,
                   group_dim=group_dim, group=group, row_start=window and window[1],
                   row_limit=window and window[2]), seen


def _joined_operand(kernel: aa.FuncOp, dot: Operation, cat: Operation, seen: list[str], what: str,
                    fp8: bool = False) -> tuple[Operand, list[str]]:
    """A loop operand that is tiles joined by ``ct.cat`` along rows (a key tile of pages of a paged cache, each
    loaded whole at its page's index): one :class:`Operand` whose :attr:`Operand.parts` are the other tiles' loads,
    when every part is a TMA tile of one array, laid out alike (same view, rows along the same dimension, not
    transposed, ``rows`` a multiple of 8) and joined in the dot's row order; a located refusal at the ``ct.cat``
    otherwise."""
    values: list[SSAValue] = []

    def flat(op: Operation) -> None:
        if op.dim.value.data != 0 or len(op.result.type.get_shape()) != 2:
            _fail(op, f"{what} is tiles joined by ct.cat along an axis other than the tile's rows: the chained kernel "
                      "joins row blocks of one array (a key tile of several pages) only")
        for x in op.operands:
            inner, _ = strip_layouts(x, LAYOUT_ONLY)
            if isinstance(inner.owner, Operation) and inner.owner.name == "nv_tileaa.cat":
                flat(inner.owner)
            else:
                values.append(x)

    flat(cat)
    parts = []
    for x in values:
        part, pseen = _operand(kernel, dot, x, what, True, fp8=fp8)
        if "nv_tileaa.permute" in pseen or part.swapped or part.group_dim >= 0 or \
                list(x.type.get_shape()) != [part.rows, part.cols]:
            _fail(cat, f"{what} is tiles joined by ct.cat whose parts are transposed or reshaped across rows: the "
                       "chained kernel joins row blocks as the array stores them")
        parts.append(part)
    first = parts[0]
    for part in parts[1:]:
        if (part.load.view.type, part.arg, part.rows, part.cols, part.rows_dim) != \
                (first.load.view.type, first.arg, first.rows, first.cols, first.rows_dim):
            _fail(cat, f"{what} is tiles joined by ct.cat from different arrays or views: the chained kernel reads an "
                       "operand through one tensor map")
    if first.rows % 8 or first.rows * len(parts) > 256:
        _fail(cat, f"{what} is {len(parts)} tiles of {first.rows} rows joined by ct.cat: each part's rows must be a "
                   "multiple of 8 (TMA's swizzle atom) and the whole at most 256")
    return Operand(first.load, first.rows * len(parts), first.cols, first.arg, rows_dim=first.rows_dim,
                   parts=tuple(p.load for p in parts[1:])), seen


def _selected(v: SSAValue) -> bool:
    """Whether the operand ``v`` is (through layout ops, reshapes, a transpose) one of two tiles chosen by a scalar
    ``nv_tileaa.select``."""
    src, _ = strip_layouts(v)
    o = src.owner
    return isinstance(o, Operation) and o.name == "nv_tileaa.select" and o.operands[0].type == i1


def _iteration_condition(cond: SSAValue, loop: scf.ForOp) -> bool:
    """Whether the scalar ``cond`` is computed from ``loop``'s iv and values defined outside the loop by scalar ops
    without side effects or regions (the producer can evaluate it at its tile index; not a loaded value, not a value
    the loop carries)."""
    from tileorch.transforms.tileas.loop_pair_fusion import _pure

    stack, seen = [cond], set()
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if x is loop.body.blocks.first.args[0] or not loop.is_ancestor(x.owner if isinstance(x.owner, Operation)
                                                                        else x.owner.parent_op()):
            continue
        o = x.owner
        if not isinstance(o, Operation) or not _pure(o) or o.regions or \
                any(isinstance(r.type, TensorType) for r in o.results):
            return False
        stack.extend(o.operands)
    return True


def _selected_operand(kernel: aa.FuncOp, dot: Operation, sel: Operation, seen: list[str], what: str,
                      fp8: bool = False) -> tuple[Operand, list[str]]:
    """A loop operand ``select(c, x, y)`` of two TMA tiles with a scalar ``c`` of the loop's iteration (a step
    before the loop reading its own array, fused as the loop's first iteration): ``y``'s :class:`Operand` with
    ``x`` as its :attr:`Operand.first` where ``c`` holds; a located refusal at the select when the two tiles are
    not laid out alike or ``c`` is not a function of the iteration."""
    cond, x, y = sel.operands
    later, lseen = _operand(kernel, dot, y, what, True, fp8=fp8)
    first, fseen = _operand(kernel, dot, x, what, True, fp8=fp8)

    def layout(o: Operand) -> tuple:
        vt = o.load.view.type
        return (o.rows, o.cols, o.swapped, o.rows_dim, o.group_dim, o.group, o.esize, o.box, o.rank,
                ints(vt.tile), ints(vt.order), o.load.result.type)

    loop = enclosing_for(dot)
    if later.first is not None or first.first is not None or later.parts or first.parts or lseen != fseen or \
            layout(later) != layout(first):
        _fail(sel, f"{what} is one of two tiles chosen by a select: the chained kernel loads either of two tiles of "
                   "one layout (the same tile shape, element type, view order and layout ops) into one stage")
    if loop is None or not _iteration_condition(cond, loop):
        _fail(sel, f"{what} is one of two tiles chosen by a select whose condition is not a function of the loop's "
                   "iteration (its iv and values defined before the loop): the producer chooses the tile it loads")
    later.first, later.first_when = first, cond
    return later, seen + lseen


def _gathered_q(d1: Operation, firsts: list, tile_rows: int, tm: int, d: int) -> Operand | None:
    """The first dot's A (Q) read by ``ct.gather`` as an :class:`Operand` whose :attr:`Operand.gathered` the consumers
    evaluate (None when A is not gathered); a located refusal for a gathered A the kernel does not take this way."""
    from tileorch.transforms.tileas.gathered_operand import gather_source

    found = gather_source(d1.lhs)
    if found is None:
        return None
    load, swapped = found
    top, seen = strip_layouts(d1.lhs, LAYOUT_ONLY)
    elt = top.type.element_type
    why = ("a transposed gather (the Q tile's rows must be the gathered rows)" if swapped or "nv_tileaa.permute" in seen
           else f"{elt} elements (16-bit Q: f16 / bf16)" if type(elt) not in _DT
           else f"{tile_rows} tile rows (64, 128 or 256)" if tile_rows != tm
           else "several first dots" if len(firsts) > 1
           else f"a [{', '.join(map(str, top.type.get_shape()))}] tile (the dot's [{tm}, {d}])"
           if list(top.type.get_shape()) != [tm, d] else None)
    if why is not None:
        _fail(load, gathered_operand_why("the first dot's A (Q)") + f"; gathered query rows are read by the consumer "
                    f"warp groups into the Q tile, but not with {why}")
    return Operand(load, tm, d, -1, gathered=top)


def gathered_operand_why(what: str) -> str:
    """The refusal of a chained dot's operand ``what`` read by ``ct.gather``."""
    return (f"{what} is gathered (ct.gather): the chained kernels read their operand tiles through TMA tile loads "
            "(ct.load), and Hopper's TMA has no row gather; a paged cache whose pages hold a whole key tile, read by "
            "ct.load at the page's index (the page number from the block table by ct.load(...).item()), takes the "
            "tensor cores, and so do whole pages gathered slot by slot (tileas-paged-gather), pages joined by "
            "ct.cat, and gathered rows copied into a contiguous array before the launch")


def _q_prologue(kernel: aa.FuncOp, d1: Operation, operand: SSAValue | None = None,
                what: str = "the first dot's A (Q)") -> tuple[SSAValue, QPrologue | None]:
    """:func:`~tileorch.transforms.tileas.operand_prologue.operand_prologue`, refused as a chained-dots
    error (an operand read by ``ct.gather``: :func:`gathered_operand_why`, at the gather)."""
    from tileorch.transforms.tileas.gathered_operand import gather_source

    gathered = gather_source(operand if operand is not None else d1.lhs)
    if gathered is not None:
        _fail(gathered[0], gathered_operand_why(what))
    if operand is not None and (_joined(operand) or _selected(operand)):  # (_joined_operand, _selected_operand)
        return operand, None
    _refuse_joined(operand if operand is not None else d1.lhs, what)
    return operand_prologue(kernel, d1, _fail, operand, what)


def _joined(v: SSAValue) -> bool:
    """Whether the operand ``v`` is (through layout ops, reshapes, a transpose) tiles joined by ``ct.cat``."""
    src, _ = strip_layouts(v)
    return isinstance(src.owner, Operation) and src.owner.name == "nv_tileaa.cat"


def _refuse_joined(v: SSAValue, what: str) -> None:
    """A located refusal when the operand ``v`` that is loaded once (Q) is tiles joined by ``ct.cat``: the chained
    kernel joins row blocks of the loop's operands only (:func:`_joined_operand`)."""
    src, _ = strip_layouts(v)
    if _joined(v):
        _fail(src.owner, f"{what} is tiles joined by ct.cat: the chained kernel joins the row blocks of a loop "
                         "operand (a K / V tile of several pages) only; load this tile whole")


def _refuse_converted(src: SSAValue, what: str) -> None:
    """A located refusal, at the conversion, when the operand ``src`` (layout ops stripped) is a TMA tile load
    converted to another element type (``v.astype(ct.float16)`` of an fp8 or f32 V): the chained kernel's WGMMAs
    read an operand in shared memory as TMA brought it, and converting a stage to another width needs a second
    buffer the kernel does not have (docs/cuda-tile.md)."""
    op = src.owner
    if not isinstance(op, Operation) or len(op.operands) != 1 or len(op.results) != 1:
        return
    inner, _ = strip_layouts(op.operands[0])
    ld = source_load(inner)
    if not isinstance(ld, ts.TiledLoadOp) or not isinstance(ld.atom, ts.TmaLoadAtomAttr):
        return
    t_in, t_out = inner.type, op.results[0].type
    if not isinstance(t_in, TensorType) or not isinstance(t_out, TensorType) or \
            t_in.element_type == t_out.element_type:
        return
    _fail(op, f"{what} is its tile load converted from {t_in.element_type} to {t_out.element_type} "
              f"({op.name}): the chained kernel's WGMMAs read the operand in shared memory as TMA loads it, "
              f"and converting a stage to another element type is not supported; store the array in "
              f"{t_out.element_type} (or convert it in a kernel of its own)")


PADDED_ROWS = (1, 2, 4, 8, 16, 32)
"""Tile rows below a WGMMA's M = 64 that the kernel pads to 64 (:attr:`ChainedKernel.tile_rows`):
the rows of an MMA are independent (row ``i`` of ``S`` and of ``O`` reads row ``i`` of A only)
and every op the chain's rows take between the dots is per row (elementwise, row reductions), so
the rows past the tile compute don't-care values that the stores leave out.  Below 8 rows (a
single query row: plain decoding; 4 query heads per KV head) the Q box still reads 64 rows (a
multiple of TMA's 8-row swizzle atom); a one-row tile's lowering keeps a broadcast's unit row
coordinate (:attr:`EpilogueLowering.unit_coords_own`)."""


def _padded_wgmma(dot: Operation) -> bool:
    """A dot of :data:`PADDED_ROWS` rows whose N and K a WGMMA of M = 64 takes."""
    from tileorch.transforms.tileas.assign_dot_layouts import choose_sm90_atom

    m, k = dot.lhs.type.get_shape()[-2:]
    n = dot.rhs.type.get_shape()[-1]
    return m in PADDED_ROWS and choose_sm90_atom(64, n, k, ts.bit_width(dot.lhs.type.element_type)) is not None


def _check_yields_after_second_dots(seconds: list, yields: list) -> None:
    """Refuse a loop that carries a value computed from a second dot's result other than that result itself
    (``acc = ct.mma(p, v, acc) + x``; a reset ``acc = ct.where(j == 0, 0, acc)`` after the dot): the lowering
    evaluates the loop's values while the second dot's WGMMA may still run, so such math would read and write its
    accumulator registers in flight (the emulator's race report; a reset came out wrong).  Math on the accumulator
    before the dot (its C, ``acc * alpha``) is what the lowering takes."""
    for y in yields:
        base = strip_layouts(y)[0]
        for dot in seconds:
            if base is not dot.result and _depends_on(y, dot.result):
                _fail(dot, "the loop carries a value computed from this second dot's result in the same step (e.g. "
                           "acc = ct.mma(p, v, acc) + x, or a reset after the dot): the chained lowering runs the "
                           "step's math while the dot's WGMMA is in flight; apply it to the accumulator before the "
                           "next dot (its C: ct.mma(p, v, acc * alpha)) or after the loop")


def _dot_types(d1: Operation, a_ops, b1s, seconds_b, prologue) -> tuple[set, set]:
    """({the first dots' type}, {the second dots' type}): K's loads, and Q's unless a Q prologue converts it in
    place (from one 16-bit float type to the other: ``q.astype(ct.float16)`` of a bf16 Q); V's loads.  The two
    dots may differ (f16 scores, bf16 ``P @ V``: each WGMMA names its own type; e4m3 / e5m2 scores beside an f16 /
    bf16 ``P @ V``); a dot's operands may not."""
    def dt(o):
        return _WG.get(type(o.load.result.type.element_type), str(o.load.result.type.element_type))

    first, second = {dt(o) for o in b1s}, {dt(o) for o in seconds_b}
    q = {dt(o) for o in a_ops}
    if len(first) != 1 or len(second) != 1:
        _fail(d1, "all dot operands must have the same element type")
    if q != first:
        top = prologue.top.type.element_type if prologue is not None else None
        if top is None or _DT.get(type(top)) not in first or len(q) != 1 or not q <= set(_DT.values()):
            _fail(d1, f"the first dot's A (Q) is loaded as {'/'.join(sorted(q))} where its B (K) is "
                      f"{next(iter(first))}: all dot operands must have the same element type (convert Q with "
                      f"astype after its load, or store it as {next(iter(first))})")
    if first != second and not (first | second) <= set(_DT.values()) and \
            not (first <= set(_FP8.values()) and second <= set(_DT.values())) and not second <= set(_FP8.values()):
        _fail(d1, "all dot operands must have the same element type")
    return first, second


KEY_MAJOR_COPY = "key_major16"
"""The tensor-map record's ``copy`` of an fp8 second dot's B (``record["tmaps"][i]["copy"]``): the launch reads V
``[.., S, D]`` (D contiguous) through a copy ``[.., D, S16]`` (S rounded up to 16, zeros past S), keys contiguous
(an 8-bit WGMMA reads B K-major only) and permuted within each 16 keys as the register-A fragment of P holds
them (:func:`~tileorch.transforms.tileas.pack16.fp8_key_of_position`: copy column ``16 b + k`` is key
``16 b + fp8_key_of_position(k)``); made by :func:`tileorch.launchers.launch_copies.key_major16`."""


def _key_major_copy_operand(b2: Operand, d2: Operation, tn: int, dv: int, seconds: int) -> Operand:
    """The fp8 second dot's B (V, an e4m3 / e5m2 ``[tn, dv]`` tile) as the tile of its launch copy
    (:data:`KEY_MAJOR_COPY`): ``[dv, tn]`` K-major, keys in the fp8 fragment's order; a located refusal for a V
    that is not a plain N-major tile of rows along the array's next-to-last dimension."""
    elt = b2.load.result.type.element_type
    why = ("several second dots read the chain" if seconds > 1 else
           "V is read transposed (K-major: stored [.., D, S] or through a transposing view)" if b2.k_major else
           "V's tile is joined from row blocks (ct.cat) or chosen at the first step" if b2.parts or b2.first else
           "V is a row window gathered at start + positions (varlen: the copy permutes keys in groups of 16 counted "
           "from the array's first row, not the window's)" if b2.row_start is not None or b2.row_limit is not None else
           "V's rows run along two dimensions or not along the next-to-last one"
           if b2.group_dim >= 0 or b2.rows_dim >= 0 else
           f"the key tile has {tn} rows (a multiple of 32: the fp8 WGMMA's K step)" if tn % 32 else None)
    if why is not None:
        _fail(b2.load, f"the second dot's B element type {elt}: an fp8 P @ V reads V through a launch-time key-major "
                       f"copy of a [.., S, D] array ([.., D, S] keys permuted as P's register fragment holds them), "
                       f"not here: {why}; store V in f16 or bf16")
    return Operand(b2.load, dv, tn, b2.arg, True, key_major_copy=True)


def _refuse_fp8_first_dot(a0: Operand, b1: Operand, prologue: QPrologue | None, b_prologue: QPrologue | None) -> None:
    """Located refusals of what the fp8 first dot (e4m3 / e5m2 Q and K) does not take: a B tile that is not
    K-major (an fp8 WGMMA reads both shared-memory operands K-major: K stored ``[d, S]``, or read through a
    transposing view, would need an in-smem transpose), and a Q or K prologue (applied in place to the tile in
    shared memory as 16-bit values)."""
    if b1.esize != 1 and a0.esize != 1:
        return
    elt = (a0 if a0.esize == 1 else b1).load.result.type.element_type
    if not b1.k_major:
        _fail(b1.load, f"the first dot's B (K), a tile of {elt}, is read N-major ([d, tn]: K stored transposed, "
                       "or through a transposing view): an fp8 WGMMA reads both shared-memory operands K-major, and the "
                       "chained kernel has no in-smem transpose; store K as [.., S, D] and multiply by "
                       "ct.transpose(k)")
    for pro, what in ((prologue, "Q"), (b_prologue, "K")):
        if pro is not None:
            _fail(pro.top.owner, f"the first dot's {what} tile is computed from its {elt} load (a prologue): the "
                                 "chained kernel applies it in place to the tile in shared memory as 16-bit values; "
                                 "fold it into the scores (multiply S) or apply it before the launch")


def analyze_chained_dots(kernel: aa.FuncOp) -> ChainedKernel:
    sets = chained_dot_sets(kernel)
    if sets is None:
        _fail(kernel, "expected two dots, the second's A computed from the first's result")
    firsts, seconds = sets
    d1, d2 = firsts[0], seconds[-1]
    for dot in (*firsts, *seconds):
        if not isinstance(dot.atom, ts.MmaSm90AtomAttr) and not _padded_wgmma(dot):
            rows, cols = dot.result.type.get_shape()
            depth = dot.lhs.type.get_shape()[-1]
            small = (f" ({rows} tile rows: a WGMMA takes 64 or 128; 1, 2, 4, 8, 16 or 32 rows are padded to 64)"
                     if rows < 64 else
                     f" (a reduction extent of {depth}: a WGMMA reduces 16 at a time for 16-bit operands)"
                     if depth % 16 else f" ({cols} columns: a WGMMA's N is a multiple of 8)" if cols % 8 else "")
            if isinstance(dot.atom, ts.FmaAtomAttr):  # the program's terms (f64 operands, N under 8)
                from tileorch.transforms.tileas.convert_to_cutlass import no_wgmma_why

                _fail(dot, no_wgmma_why(dot))
            _fail(dot, f"the dot's MMA atom is {dot.atom}, not a WGMMA (mma.sm90) atom{small}")
        if not isinstance(dot.result.type.element_type, Float32Type):
            _fail(dot, "the accumulator must be f32")
    loop = enclosing_for(d1)
    if loop is None or not loop.is_ancestor(d2):
        _fail(d1, "both dots must be in one loop")
    own_a = [fd for fd in firsts[1:] if not _check_first_dot(d1, fd, loop)]
    # any range(start, stop, step): lower_chained_kernel rebases the loop onto range(trip) (rebase_k_loop.py)
    tm, tn = d1.result.type.get_shape()
    d = d1.lhs.type.get_shape()[-1]
    tm2, dv = d2.result.type.get_shape()
    if tm2 != tm or d2.lhs.type.get_shape()[-1] != tn:
        _fail(d2, f"the second dot {tm2}x{dv}x{d2.lhs.type.get_shape()[-1]} does not chain the first {tm}x{tn}x{d}")
    tile_rows = tm  # the program's rows; tm: the kernel's (a 16- or 32-row tile padded to the WGMMA's 64)
    if tm in PADDED_ROWS:
        tm = 64
    if tm not in (64, 128, 256):
        _fail(d1, f"tile rows {tm}: 64, 128 or 256 (one, two or four consumer warp groups) are supported")
    for n in (tn, dv):
        if n % 16 or n > 256:
            _fail(d1, f"dot extent {n}: multiples of 16 up to 256 are supported")
    gathered_q = _gathered_q(d1, firsts, tile_rows, tm, d)
    if gathered_q is not None:
        a0, seen, prologue = gathered_q, [], None
    else:
        a_root, prologue = _q_prologue(kernel, d1)
        a0, seen = _operand(kernel, d1, a_root, "the first dot's A", False, grouped=True, fp8=True)
    if prologue is not None:
        seen = prologue.seen + seen
    in_a_loop = enclosing_for(a0.load)
    if in_a_loop is not None or a0.transposed(seen) or (a0.rows, a0.cols) != (tile_rows, d):
        _fail(d1, "the first dot's A must be a [tm, K] tile loaded once before the loop (K-major)")
    if tile_rows < tm:  # the Q box reads tm rows: the array's next rows (zero past its end) pad the tile
        if a0.group_dim >= 0 and tm % a0.box_rows:
            _fail(d1, f"a ({a0.group}, {a0.box_rows}) group of query rows padded to {tm}: the box's rows must divide "
                      f"{tm}")
        if a0.group_dim >= 0:
            a0.group = tm // a0.box_rows
        a0.rows = tm
    a0s = _own_a_operands(kernel, firsts, a0, tile_rows, tm, prologue) if own_a else []
    b_root, b_prologue = _q_prologue(kernel, d1, d1.rhs, "the first dot's B (K)")
    b1, seen = _operand(kernel, d1, b_root, "the first dot's B", True, fp8=True)
    if b_prologue is not None:
        seen = b_prologue.seen + seen
        if len(firsts) > 1:
            _fail(d1, "the first dot's B is computed from its tile (a prologue) while more first dots read the same "
                      "A: not supported yet")
        if b_prologue.top.type.element_type != b1.load.result.type.element_type:
            _fail(b_prologue.top.owner, "the first dot's B (K) prologue changes the tile's element type: it is "
                                        "applied in place to the tile in shared memory")
    b1.k_major = b1.transposed(seen)
    _refuse_fp8_first_dot(a0, b1, prologue, b_prologue)
    if (b1.rows, b1.cols) != ((tn, d) if b1.k_major else (d, tn)):
        _fail(d1, f"the first dot's B tile {b1.rows}x{b1.cols} does not match the dot")
    b1s = [b1]
    for k, fd in enumerate(firsts[1:], 1):
        bk, seen = _operand(kernel, fd, fd.rhs, f"first dot {k + 1}'s B", True, fp8=True)
        bk.k_major = bk.transposed(seen)
        if (bk.rows, bk.cols, bk.k_major, bk.box) != (b1.rows, b1.cols, b1.k_major, b1.box):
            _fail(fd, f"first dot {k + 1}'s B tile {bk.rows}x{bk.cols} ({'K' if bk.k_major else 'N'}-major) is not "
                      f"laid out as the first dot's {b1.rows}x{b1.cols} ({'K' if b1.k_major else 'N'}-major): the "
                      "first dots' B tiles are read as one wider WGMMA operand")
        b1s.append(bk)
    b2, seen = _operand(kernel, d2, d2.rhs, "the second dot's B", True, fp8_second=True)
    b2.k_major = b2.transposed(seen)
    if b2.esize == 1:  # an e4m3 / e5m2 P @ V: V read from the launch's key-major copy
        b2 = _key_major_copy_operand(b2, d2, tn, dv, len(seconds))
    if (b2.rows, b2.cols) != ((dv, tn) if b2.k_major else (tn, dv)):
        _fail(d2, f"the second dot's B tile {b2.rows}x{b2.cols} does not match the dot")
    others = [_other_second(kernel, sd, d2, loop, tn, dv) for sd in seconds[:-1]]
    for b in (*b1s, b2, *others):  # the producer walks the same tiles as the consumer loop (its iv is j)
        for ld in (b.load, *b.parts, *((b.first.load,) if b.first is not None else ())):
            ploop = enclosing_for(ld)
            if ploop is None or (ploop.lb, ploop.ub, ploop.step) != (loop.lb, loop.ub, loop.step):
                _fail(ld, "a loop operand's load is not in a producer loop over the consumer loop's range")
    if (len(b1s) > 1 or others or a0s) and any(b.first is not None for b in (*b1s, b2, *others)):
        _fail(d1, "a loop operand chosen between two arrays at the loop's first iteration (a step before the loop "
                  "reading its own array) in a chain of several first or second dots: not supported yet")
    if (len(b1s) > 1 or others) and any(b.parts for b in (*b1s, b2, *others)):
        _fail(d1, "a B tile joined by ct.cat from row blocks (pages) in a chain of several first or second dots: not "
                  "supported yet")
    dts, dts2 = _dot_types(d1, (a0, *a0s), b1s, (b2, *others), prologue)
    for sd in seconds:
        _check_operand_types(next(iter(dts)), d1, firsts, sd, next(iter(dts2)))
    stores = [o for o in kernel.walk() if isinstance(o, ts.TiledStoreOp)]
    scatters = [o for o in kernel.walk() if _scattered(o) and not loop.is_ancestor(o)]
    if not stores and len(scatters) == 1 and len(seconds) == 1 and \
            list(scatters[0].value.type.get_shape()) == [tile_rows, dv]:
        stores = scatters  # O by ct.scatter (rows put back where they were gathered): each element at its address
    if not stores or any(loop.is_ancestor(x) for x in stores):
        scattered = next((o for o in kernel.walk() if _scattered(o) and not loop.is_ancestor(o)), None)
        if not stores and scattered is not None:  # (O by ct.scatter at computed rows: varlen / routed rows put back)
            n = len(scatters)
            _fail(scattered, f"the output is written by {n} ct.scatter op{'s' if n > 1 else ''} (an element address "
                             "per value): the chained kernel writes its output by tile stores (ct.store; a row vector "
                             "by ct.scatter at consecutive indices) or by one ct.scatter of the [tm, dv] accumulator "
                             "tile of a chain with one second dot, each element at its address — not supported yet "
                             "otherwise; store O in the rows' gathered order with ct.store (and put the rows back in "
                             "a kernel of its own)")
        _fail(kernel, "expected the tile stores after the loop")
    def squeezed(x) -> list[int]:  # the stored tile's shape without its unit dimensions before the last
        shp = list(_stored(x).type.get_shape())
        lead = [e for e in shp[:-1] if e != 1]
        if len(lead) == 2 and a0.group_dim >= 0:  # (1, G, BM, dv): the rows g BM + i (_store_group)
            lead = [lead[0] * lead[1]]
        lead = lead or [1] * (len(shp) > 1)  # a one-row tile (decoding one query): its unit row dimension
        return lead + shp[-1:]

    tiles = [x for x in stores if squeezed(x) == [tile_rows, dv]]
    flipped = [x for x in stores if not _scattered(x) and transposed_tile(x, tile_rows, dv)]  # O^T stored
    store_transposed = len(seconds) <= 1 and bool(flipped) and (not tiles or tiles[0] is flipped[0])
    if store_transposed:
        tiles = flipped[:1]
    st = tiles[0] if tiles else stores[0]
    tile_stores = tiles if len(seconds) > 1 and tiles else [st]  # several accumulators: each tile stored
    from tileorch.transforms.tileas.row_statistics_chain import ATTR as UNREAD_SECOND

    rows_only = not tiles and UNREAD_SECOND in kernel.attributes  # (the second dot's result unread: row vectors)
    if rows_only:
        tile_stores = []
    row_stores = [(x, _row_vector(x, tile_rows)) for x in stores if all(x is not t for t in tile_stores)]
    for o in kernel.walk():  # the lowering evaluates values: effects other than the stores are lost
        if any(w in o.name for w in ("atomic", "print", "assert", "store")) and o not in stores:
            what = WRITE_WORDS.get(o.name, f"'{o.name}'")
            _fail(o, f"{what} in a chained-dots kernel is not supported yet: its lowering writes the output tiles and "
                     "row vectors the kernel stores, nothing else")
    shape = list(_stored(st).type.get_shape())
    if squeezed(st) != ([dv, tile_rows] if store_transposed else [tile_rows, dv]) and not rows_only:
        _fail(st, f"the stored tile {shape} is not the [{tile_rows}, {dv}] accumulator tile")
    if row_stores and _store_group(st) is not None:
        _fail(row_stores[0][0], "a row vector stored beside an accumulator tile whose rows run along two dimensions "
                                "is not supported yet")
    # loop-carried values and their new values (through the consumer_read region)
    body = loop.body.blocks.first
    carried, yields = [], []
    for i, (arg, y) in enumerate(zip(body.args[1:], body.last_op.operands)):
        if not isinstance(arg.type, TensorType):
            if "pipeline" in str(arg.type):
                continue
            _fail(loop, f"loop-carried {arg.type} values are not supported yet")
        shp = list(arg.type.get_shape())
        width = _fragment_width(arg, tile_rows)
        if width is None:
            _fail(loop, f"loop-carried tile {shp}: [tm, 1] / [tm] row vectors and [tm, X] tiles (X % 8 == 0) are "
                        "supported")
        if isinstance(y.owner, Operation) and y.owner.name.endswith("consumer_read"):
            y = y.owner.regions[0].blocks.first.last_op.operands[y.index]
        carried.append((i, width))
        yields.append(y)
    _check_yields_after_second_dots(seconds, yields)
    branches = []
    for br in loop.walk():
        if not isinstance(br, scf.IfOp) or br is loop:
            continue
        if not br.results or br.cond.type != i1 or any(_fragment_width(r, tile_rows) is None for r in br.results):
            _fail(br, "a branch in the loop must yield [tm, X] tiles (X a multiple of 8, or 1) on a scalar condition")
        if any(isinstance(o, ts.DotOp | ts.TiledLoadOp) for o in br.walk()):
            _fail(br, "a branch in the loop must not hold a dot or a load")
        if any(isinstance(p, scf.IfOp) for p in _parents(br, loop)):
            _fail(br, "nested branches in the loop are not supported yet")
        branches.append(br)
    ck = ChainedKernel(kernel, d1, d2, loop, a0, b1, b2, st, tm, tn, d, dv, dts.pop(), carried, yields, branches,
                       row_stores)
    dt2 = dts2.pop()
    ck.dtype2 = dt2 if dt2 != ck.dtype else ""
    if prologue is not None and type(prologue.top.type.element_type) not in _DT:
        _fail(prologue.top.owner, "the first dot's A (Q) prologue changes the Q tile's element type to "
                                  f"{prologue.top.type.element_type}: it is applied in place to the tile in shared "
                                  "memory, from one 16-bit float type to another (f16, bf16) only")
    ck.q_prologue = prologue
    ck.b_prologue = b_prologue
    ck.tile_rows = tile_rows if tile_rows != tm else 0
    ck.firsts, ck.b1s, ck.a0s = list(firsts), b1s, a0s
    # the second dot's B is a first dot's tile (one load): read in the stage, not loaded twice
    ck.b2_in_b1 = next((k for k, b in enumerate(b1s) if b.load is b2.load and not b2.key_major_copy), -1)
    ck.tile_stores = tile_stores
    ck.rows_only = rows_only
    ck.store_transposed = store_transposed
    if len(seconds) > 1:
        _several_seconds(ck, [*others, b2], seconds)
    if ck.k1 > 1 and len(seconds) == 1:  # several second dots: _several_seconds's budget
        _first_dots_fit(ck)
    _check_windows(ck, [*others] if len(seconds) > 1 else [])
    return ck


def _check_windows(ck: ChainedKernel, others: list) -> None:
    """Row windows (:attr:`Operand.row_limit`, ``tileas-row-window-gather``) where the kernel zeroes their rows past the
    end: Q (not split into row groups, not a padded tile), the one K tile of the stage and its V tile; a located
    refusal at the window's load elsewhere (a joined or chosen tile, several first dots' tiles, several second dots'
    B tiles, a gathered Q beside them)."""
    what = {id(ck.a0): "the first dot's A (Q)", id(ck.b1): "the first dot's B (K)", id(ck.b2): "the second dot's B (V)"}
    for op in (ck.a0, ck.b1, ck.b2, *ck.a0s, *ck.b1s, *others):
        if op.row_limit is None:
            continue
        why = ("its tile is joined from parts or chosen by a select" if op.parts or op.first is not None else
               "the kernel has several first dots' tiles" if ck.k1 > 1 or len(ck.b1s) > 1 or ck.own_a else
               "the kernel has several second dots' B tiles" if others else
               "the Q tile is split into row groups" if op is ck.a0 and ck.row_groups else
               f"the {ck.tile_rows}-row Q tile is padded to the WGMMA's 64 rows" if op is ck.a0 and ck.tile_rows else
               "it is not Q, K or V of one chain" if id(op) not in what else None)
        if why is not None:
            _fail(op.load, f"{what.get(id(op), 'this operand')} is a row window of its array (rows gathered at start + "
                           f"positions under a row mask, tileas-row-window-gather) where {why}: the chained kernel "
                           "zeroes the rows past a window's end only in the Q tile and the stage's one K and V tiles "
                           "(not supported yet)")


def _other_second(kernel: aa.FuncOp, sd: Operation, d2: Operation, loop: scf.ForOp, tn: int, dv: int) -> Operand:
    """A second dot besides the last (``d2``): in the loop, a ``[tm, dv]`` result over ``tn`` (as
    ``d2``'s), its B a TMA tile of the loop; its B operand (a located refusal otherwise)."""
    if not loop.is_ancestor(sd):
        _fail(sd, "every second dot must be in the loop of the first dots")
    if list(sd.result.type.get_shape()) != list(d2.result.type.get_shape()) or sd.lhs.type.get_shape()[-1] != tn:
        _fail(sd, f"second dots of different shapes ({list(sd.result.type.get_shape())} and "
                  f"{list(d2.result.type.get_shape())}): the chain's second dots must compute [tm, {dv}] tiles over "
                  f"its {tn} columns")
    b, seen = _operand(kernel, sd, sd.rhs, "this second dot's B", True)
    b.k_major = b.transposed(seen)
    if (b.rows, b.cols) != ((dv, tn) if b.k_major else (tn, dv)):
        _fail(sd, f"the second dot's B tile {b.rows}x{b.cols} does not match the dot")
    return b


def _several_seconds(ck: ChainedKernel, b2s: list[Operand], seconds: list[Operation]) -> None:
    """:attr:`ChainedKernel.seconds` of a chain feeding several accumulators: each second dot's B is
    a first dot's tile (the same load) or the one B2 tile of the stage (every such dot reads the
    same load); each accumulator is a value the loop carries (the epilogue stores any function of
    them: each as its own tile, or one tile combining them); their registers, the first dots' S
    and the packed Ps fit :data:`SEVERAL_SECONDS_REGS`.  ``ck.b2`` becomes
    the stage's B2 tile when a second dot reads one."""
    out = []
    for sd, b in zip(seconds, b2s):
        out.append(SecondDot(sd, b, next((k for k, b1 in enumerate(ck.b1s) if b1.load is b.load), -1)))
    own = [x for x in out if x.b2_in_b1 < 0]
    if any(x.b2.load is not own[0].b2.load or x.b2.k_major != own[0].b2.k_major for x in own[1:]):
        _fail(own[1].dot, "second dots reading different B tiles of their own: the stage holds one B2 tile beside the "
                          "first dots' (a second dot's B may also be a first dot's B tile)")
    if own:
        ck.b2, ck.b2_in_b1 = own[0].b2, -1
    carried = {id(strip_layouts(y)[0].owner) for y in ck.yields}
    for x in out:
        if id(x.dot) not in carried:
            _fail(x.dot, "a second dot of a chain feeding several accumulators must accumulate into a value the loop "
                         "carries (its result the next iteration's C)")
    regs = ck.sn // 2 + len(out) * (ck.tn // 4 + ck.dv // 2) + sum(
        2 if w == 1 else w // 2 for _, w in ck.carried) - len(out) * ck.dv // 2
    if regs > SEVERAL_SECONDS_REGS:
        _fail(out[-1].dot, f"{len(out)} accumulators of [{ck.tm}, {ck.dv}] fed by one chain: S ({ck.sn // 2} registers per "
                           f"thread), {len(out)} packed Ps ({ck.tn // 4} each) and the accumulators ({ck.dv // 2} each) "
                           f"need {regs} registers of the consumer's {SEVERAL_SECONDS_REGS}: use a narrower head dim or "
                           "key tile, or one accumulator per kernel")
    ck.seconds = out


SEVERAL_SECONDS_REGS = 224
"""Registers per consumer thread a chain feeding several accumulators may take (S, each packed P,
each accumulator, the other carried values; the plain loop, no overlap) of ``setmaxnreg``'s 240:
FlashAttention's backward dK/dV at head dim 128 (224: S 64, two packed Ps 16 each, dK and dV 64
each) assembles with ptxas 13.0 sm_90a without spills (its Ps packed chunk by chunk,
:func:`_several_second_dots`)."""


FIRST_DOTS_REGS = 200
"""Registers per consumer thread the first dots' joint accumulator (``sn / 2``), P packed twice
(``tn / 2``, the pipelined loop's in-flight and next P), the second dot's accumulator (``dv / 2``)
and the other carried values may take (:func:`pipelining`'s budget of the 240 of ``setmaxnreg``)."""


def _check_first_dot(d1: Operation, fd: Operation, loop: scf.ForOp) -> bool:
    """A first dot besides ``d1``: in the same loop, the same ``[tm, tn]`` result and K extent.
    Whether it reads the same A operand (the value ``d1`` reads, layout ops aside, or the same tile
    load: the A0 tile is loaded once and read by every first dot's WGMMAs); a different A is the
    first dot's own tile (:func:`_own_a_operands` checks it)."""
    if not loop.is_ancestor(fd):
        _fail(fd, "every first dot must be in the loop of the second dot")
    shapes = [(list(d.result.type.get_shape()), d.lhs.type.get_shape()[-1]) for d in (d1, fd)]
    if shapes[0] != shapes[1]:
        _fail(fd, f"first dots of different shapes ({shapes[0][0]} x K {shapes[0][1]} and {shapes[1][0]} x K "
                  f"{shapes[1][1]}): the first dots must compute [tm, tn] tiles over the same K")
    (a1, seen1), (ak, seenk) = strip_layouts(d1.lhs), strip_layouts(fd.lhs)
    same_load = source_load(a1) is not None and source_load(a1) is source_load(ak)
    if _depends_on(fd.acc, d1.result):
        _fail(fd, "a first dot accumulates onto another first dot's result")
    return (ak is a1 or same_load) and seen1.count("nv_tileaa.permute") == seenk.count("nv_tileaa.permute")


def _own_a_operands(kernel: aa.FuncOp, firsts: list, a0: Operand, tile_rows: int, tm: int,
                    prologue: QPrologue | None) -> list[Operand]:
    """Each first dot's A tile when they differ (:attr:`ChainedKernel.a0s`, ``a0`` first): every one a
    ``[tm, K]`` TMA tile loaded once before the loop (K-major), laid out as ``a0`` (the same box), no
    prologue, no padded or grouped rows; else a located refusal at the first dot whose A is not."""
    if prologue is not None or tile_rows != tm or a0.group_dim >= 0:
        why = ("the first dot's A has a prologue" if prologue is not None else
               f"{tile_rows} tile rows padded to the WGMMA's {tm}" if tile_rows != tm else "grouped query rows")
        _fail(firsts[1], f"first dots with different A operands and {why}: not supported (the first dots' own A "
                         "tiles are plain [tm, K] tiles loaded once)")
    out = [a0]
    for k, fd in enumerate(firsts[1:], 1):
        what = f"first dot {k + 1}'s own A"
        ak, seen = _operand(kernel, fd, fd.lhs, what, False, fp8=True)
        if enclosing_for(ak.load) is not None or ak.transposed(seen) or (ak.rows, ak.cols, ak.box) != (
                a0.rows, a0.cols, a0.box):
            _fail(fd, f"first dots with different A operands: {what} must be a [{tm}, {a0.cols}] tile loaded once "
                      "before the loop (K-major), as the first dot's (each first dot's A tile is loaded once into "
                      "the Q slot)")
        out.append(ak)
    return out


def _first_dots_fit(ck: ChainedKernel) -> None:
    """Several first dots: their joint accumulator is one WGMMA of ``n = sn`` (at most 256), and it
    fits the consumer's registers beside P and the second dot's accumulator (:data:`FIRST_DOTS_REGS`)."""
    ro = sum(2 if w == 1 else w // 2 for _, w in ck.carried) - ck.dv // 2
    regs = ck.sn // 2 + ck.tn // 2 + ck.dv // 2 + max(ro, 0)
    if ck.sn > 256 or regs > FIRST_DOTS_REGS:
        _fail(ck.firsts[1], f"{ck.k1} first dots of [{ck.tm}, {ck.tn}] tiles: their accumulators ({ck.sn // 2} "
                            f"registers per thread, {ck.sn} columns) beside P ({ck.tn // 2}) and the {ck.tm}x{ck.dv} "
                            f"accumulator ({ck.dv // 2}) need {regs} registers of the consumer's {FIRST_DOTS_REGS} "
                            f"(and at most 256 columns): use smaller hidden tiles (tn) or output tiles (dv)")


_EXPAND_DIMS = ("nv_tileaa.expand_dims", "nv_tileas.expand_dim")


def _row_vector(st: Operation, tm: int) -> SSAValue:
    """The ``[tm, 1]`` per-row value a second store after the loop writes (a log-sum-exp ``[1, tm]``
    or ``[tm]`` row vector beside the accumulator tile, read through reshapes and unit-dimension
    ``expand_dims``: a 1-D ``[tm]`` row state stored as ``[1, tm]``): one value per accumulator row."""
    shape = list(st.tile.type.get_shape())
    v, _ = strip_layouts(st.tile)
    while isinstance(v.owner, Operation) and v.owner.name in _EXPAND_DIMS:  # [tm] -> [1, tm]: unit dims
        v, _ = strip_layouts(v.owner.operands[0])
    if sorted(shape) != [1] * (len(shape) - 1) + [tm] or _fragment_width(v, tm) != 1:
        _fail(st, f"a second store of a {shape} tile: besides the [{tm}, X] accumulator tile only a row vector of "
                  f"the rows' values ([{tm}, 1] reshaped to [1, {tm}] or [{tm}]) is supported")
    return v


def _parents(op: Operation, stop: Operation):
    p = op.parent_op()
    while p is not None and p is not stop:
        yield p
        p = p.parent_op()


def _chain_guards(loop: Operation, kernel: Operation) -> list[tuple[scf.IfOp, bool]]:
    """The program's branches around the chain, innermost first, each with the side the chain is on
    (True: the ``then`` side): a program instance runs the chain, its epilogue and its stores only where
    every condition holds that way (``if qt * BM < nq:`` around a varlen sequence's chain).  A branch
    that yields values around the chain is refused (the chain's results would leave it)."""
    out = []
    child = loop
    for p in _parents(loop, kernel):
        if isinstance(p, scf.IfOp):
            if p.results:
                _fail(p, "a branch that yields values around the chain: the chain runs only inside a branch that "
                         "yields nothing (compute the values after it, or store them inside it)")
            out.append((p, child.parent_region() is p.true_region))
        child = p
    return out


# --------------------------------------------------------------------------- shared-memory plan


@dataclass
class Plan:
    """Shared memory and threads of the warp-specialized kernel: ``tm / 64`` consumer warp groups
    then one producer warp group; the Q tile, ``stages`` K and V tiles, then the barriers (Q's,
    ``stages`` full, ``stages`` empty)."""

    ck: ChainedKernel
    stages: int = 2
    persistent: bool = False
    """A persistent kernel (:func:`persistent_enabled`): each CTA runs several program instances in
    turn, with a Q-empty barrier per Q slot after the stage barriers."""
    q_slots: int = 1
    """Q tiles in shared memory (2 in a persistent kernel where they fit: the next instance's Q
    loads while this one's is read)."""
    ctas_per_sm: int = 1
    """Resident CTAs per SM the kernel is built for (:mod:`~tileorch.transforms.tileas.chained_occupancy`)."""

    @property
    def consumers(self) -> int:
        """Consumer warp groups (64 rows each)."""
        return self.ck.row_groups or self.ck.tm // 64

    @property
    def consumer_threads(self) -> int:
        return 128 * self.consumers

    @property
    def threads(self) -> int:
        return self.consumer_threads + 128

    @property
    def b1_stride(self) -> int:
        """Bytes between two stages of the first dot's B tile (rounded up to the 1024-byte swizzle
        atom, so that every box starts on its swizzle pattern)."""
        return _align(self.ck.k1 * self.ck.b1.bytes)

    @property
    def b2_stride(self) -> int:
        """Bytes between two stages' B2 tiles (a B2 read in the first dot's tile: B1's stride)."""
        return self.b1_stride if self.ck.b2_in_b1 >= 0 else _align(self.ck.b2.bytes)

    @property
    def a0_slot(self) -> int:
        """Bytes of one Q slot: the A0 tile, or every first dot's own A tile one after the other
        (:attr:`ChainedKernel.a0s`, each aligned to the 1024-byte swizzle atom)."""
        return max(1, len(self.ck.a0s)) * _align(self.ck.a0.bytes)

    def offsets(self) -> dict[str, int]:
        ck = self.ck
        q, slots = 0, self.q_slots
        b1 = slots * self.a0_slot
        b2 = b1 + self.stages * self.b1_stride
        bars = b2 + (0 if ck.b2_in_b1 >= 0 else self.stages * self.b2_stride)
        if ck.b2_in_b1 >= 0:  # B2 is the first dot's tile: its boxes in the B1 stage
            b2 = b1 + ck.b1_chunk_offset(ck.b2_in_b1, 0)
        full = bars + 8 * slots
        empty = full + 8 * self.stages
        q_empty = empty + 8 * self.stages
        return {"a0": q, "a0_slot": self.a0_slot, "b1": b1, "b2": b2, "bars": bars, "full": full,
                "empty": empty, "q_empty": q_empty, "total": q_empty + (8 * slots if self.persistent else 0)}

    @property
    def smem(self) -> int:
        return self.offsets()["total"]


def _align(n: int, to: int = 1024) -> int:
    return -(-n // to) * to


def _k_steps(op: Operand, ksteps: int) -> tuple[int, list[int]]:
    """(descriptor constant, byte offset of each K step) of a K-major operand tile ``[MN rows,
    K cols]`` stored as ``op.chunks`` boxes of ``op.box`` columns (box c at ``c * chunk_bytes``):
    8-row groups ``8 * row_bytes`` apart (SBO), one K step = 32 bytes along a row inside a box (k16 of
    16-bit elements, k32 of e4m3 / e5m2)."""
    per_box = op.row_bytes // 32
    return (descriptor_constant(16, 8 * op.row_bytes, op.row_bytes),
            [(s // per_box) * op.chunk_bytes + (s % per_box) * 32 for s in range(ksteps)])


def _b_steps(op: Operand, ksteps: int) -> tuple[int, list[int]]:
    """(descriptor constant, byte offset of each k16 step) of a B operand tile."""
    if op.k_major:  # [N rows, K cols]
        return _k_steps(op, ksteps)
    # [K rows, N cols]: k16 = 16 rows; N boxes (LBO) chunk_bytes apart, 8-row K groups (SBO) 8 rows apart
    return (descriptor_constant(op.chunk_bytes, 8 * op.row_bytes, op.row_bytes),
            [s * 16 * op.row_bytes for s in range(ksteps)])


# --------------------------------------------------------------------------- the kernel, built


@dataclass
class Pipelining:
    """Intra-warp-group overlap of the consumer loop: iteration ``j`` issues ``S_j = A0 B1_j``, then
    ``acc_{j-1} = P_{j-1} B2_{j-1} + C_{j-1}``, and computes ``P_j`` (and the other loop-carried
    values) while the second dot runs; ``C_j = g(acc_{j-1}, ..)`` after it.  ``acc``: the index in
    ``ck.carried`` of the accumulator the second dot yields.  Registers carried by the loop: P packed
    (``tn / 4``), C (``dv / 2``), then the other carried values."""

    acc: int
    rp: int
    rc: int
    ro: int

    @property
    def types(self) -> list[Attribute]:
        return [i32] * self.rp + [f32] * (self.rc + self.ro)


def _if(e: Emitter, cond: SSAValue, then: Callable[[Emitter], None]) -> None:
    """``scf.if cond { then }`` (no results, no else region)."""
    blk = Block()
    then(e.nested(blk))
    blk.add_op(scf.YieldOp())
    e.add(scf.IfOp(cond, [], Region(blk), Region()))


def _for(e: Emitter, lb: SSAValue, ub: SSAValue, step: SSAValue, inits: list[SSAValue], types: list[Attribute],
         body: Callable[[Emitter, SSAValue, list[SSAValue]], list[SSAValue]]) -> list[SSAValue]:
    """``scf.for`` over i32 from ``lb`` to ``ub`` carrying ``inits`` as ``types``; ``body(e, iv,
    carried)`` fills the loop body and returns what it yields."""
    blk = Block(arg_types=[i32, *types])
    out = body(e.nested(blk), blk.args[0], list(blk.args[1:]))
    blk.add_op(scf.YieldOp(*out))
    return list(e.add(scf.ForOp(lb, ub, step, list(inits), Region(blk))).results)


def _hint(v: SSAValue, name: str) -> SSAValue:
    """``v``, printed as ``%name``."""
    v.name_hint = name
    return v


def _default_name(v: SSAValue, name: str) -> SSAValue:
    """``v``, printed as ``%name`` unless it has a name already (a program value the kernel uses
    as is, such as a parameter or a loop's iv)."""
    if v.name_hint is None:
        v.name_hint = name
    return v


def _a0_names(ck: ChainedKernel) -> list[str]:
    """The A tiles' tensor maps: ``a0``, then each other first dot's own A (``a0_1``, ..) when they
    differ (:attr:`ChainedKernel.a0s`)."""
    return ["a0", *[f"a0_{k}" for k in range(1, len(ck.a0s))]]


def _b1_names(ck: ChainedKernel) -> list[str]:
    """Each first dot's B tensor map: ``b1``, ``b1_1``, .."""
    return ["b1", *[f"b1_{k}" for k in range(1, ck.k1)]]


def _tmap_names(ck: ChainedKernel) -> list[str]:
    """The kernel's tensor-map parameters, in order: the A tiles (:func:`_a0_names`; none for gathered query rows,
    :attr:`Operand.gathered`), each first dot's B (:func:`_b1_names`), the second dot's B, then ``<name>_first``
    for each of them with a first-iteration tile of its own (:attr:`Operand.first`)."""
    names = [*(_a0_names(ck) if ck.a0.gathered is None else []), *_b1_names(ck),
             *(["b2"] if ck.b2_in_b1 < 0 else [])]
    ops = _main_tmap_operands(ck)
    return names + [f"{x}_first" for x, o in zip(names, ops) if o.first is not None]


def _main_tmap_operands(ck: ChainedKernel) -> list[Operand]:
    return [*((ck.a0s or [ck.a0]) if ck.a0.gathered is None else []), *(ck.b1s or [ck.b1]),
            *([ck.b2] if ck.b2_in_b1 < 0 else [])]


def _tmap_operands(ck: ChainedKernel) -> list[Operand]:
    """The operands of :func:`_tmap_names`, in the same order."""
    ops = _main_tmap_operands(ck)
    return ops + [o.first for o in ops if o.first is not None]


class _Kernel:
    """The chained-dots kernel under construction (the structure :mod:`this module's docstring
    <tileorch.transforms.tileas.chained_dots>` describes), built op by op with an :class:`Emitter`
    whose block is the current insertion point (``e``).  The program's own ops are evaluated by
    :class:`_Site` s into blocks of their own, then moved to the insertion point
    (:meth:`splice`) where the kernel needs them; the methods here build everything else: the
    shared-memory barriers, the producer warp group, the consumer's stage bookkeeping and the
    first dot's WGMMA chain.  The function's parameters are the three tensor maps followed by the
    program's own (``args``).  Values are named as the printed kernel shows them (``%qbar``,
    ``%nx_bar``, ``%fbar``, ...)."""

    def __init__(self, ck: ChainedKernel, plan: Plan, name: str):
        self.rescale_applied: set[str] = set()  # "late" / "skip": TILEORCH_ATTN_{LATE,SKIP}_RESCALE took effect
        from tileorch.transforms.tileas.convert_to_cutlass import _append_parameters

        self.ck, self.plan, self.off = ck, plan, plan.offsets()
        names = _tmap_names(ck)
        block = Block(arg_types=[GENERIC_PTR] * len(names))
        for arg, x in zip(block.args, names):
            arg.name_hint = f"tmap_{x}"
        self.tmap = dict(zip(names, block.args))
        self.fn = func.FuncOp(name, ([GENERIC_PTR] * len(names), []), Region(block),
                              arg_attrs=ArrayAttr([TMAP_ATTRS] * len(names)))
        self.fn.attributes["nvvm.kernel"] = UnitAttr()
        self.fn.attributes["nvvm.maxntid"] = DenseArrayBase.from_list(i32, [plan.threads, 1, 1])
        self.fn.attributes["nvvm.minctasm"] = IntegerAttr(plan.ctas_per_sm, i32)
        self.args = _append_parameters(self.fn, ck.kernel)
        self.e = Emitter(block, 128)
        # the persistent kernel's current work tile (None: one program instance per CTA): the ring
        # index of its first K/V tile, its Q barrier and phase, its Q slot's A descriptor
        self.ring: SSAValue | None = None
        self.q_wait: tuple[SSAValue, SSAValue] | None = None
        self.da_cur: SSAValue | None = None
        self.q_off: SSAValue | None = None  # the byte offset of its Q slot (None: 0)
        # emitted by the pipelined consumer right after its loop, before the last tile's second dot
        # (every first dot, the only Q reads, retired there): the early Q release (early_q_enabled)
        self.after_loop: Callable[[], None] | None = None
        self.kv_ahead = False  # the producer's first K/V tiles of each instance before its Q (kv_ahead_enabled)
        self.early = False  # thread 0 issued the first instance's Q and first K/V tiles (early_tma_enabled)
        self.pp_per_kernel = False  # TILEORCH_ATTN_PINGPONG=kernel: the first turn / last hand-over once per kernel
        self.s_ahead = False  # the next tile's first dot before this tile's softmax (s_ahead_form)
        self.s_ahead_form = "0"  # s_ahead_form's answer for this kernel
        self.stagger_it: SSAValue | None = None  # the persistent instance's count, where TILEORCH_ATTN_STAGGER applies
        self.q_regs = False  # TILEORCH_ATTN_Q_REGS: the first dot's A from registers (q_registers.py)
        self.q_frag: list[list[SSAValue]] | None = None  # the current instance's Q fragment, by K step
        self.after_q_frag: Callable[[], None] | None = None  # the persistent kernel's Q release after the fragment

    # -- insertion point ----------------------------------------------------------------------
    @contextmanager
    def into(self, block: Block) -> Iterator[Emitter]:
        """Make ``block`` the insertion point for the duration of the ``with``."""
        outer = self.e
        self.e = outer.nested(block)
        try:
            yield self.e
        finally:
            self.e = outer

    def splice(self, tmp: Block, value: SSAValue | None = None, name: str | None = None) -> SSAValue | None:
        """Move the ops of ``tmp`` (a site's evaluation of program values) to the insertion point;
        ``value`` (computed there) is named ``name`` unless it has a name already."""
        for op in list(tmp.ops):
            op.detach()
            self.e.add(op)
        return _default_name(value, name) if value is not None else None

    def v(self, op: Operation, name: str) -> SSAValue:
        """Append ``op``; its result, named ``name``."""
        return _hint(self.e.v(op), name)

    # -- small pieces -------------------------------------------------------------------------
    def small(self, value: int) -> SSAValue:
        """The entry block's i32 constant ``value`` (0, 1, 2, 7, 8 or 128)."""
        return self.c[value]

    def gep(self, offset: SSAValue, name: str) -> SSAValue:
        """Byte ``offset`` (i32) into the dynamic shared memory."""
        return _hint(self.e.gep(self.smem, offset, i8, SHARED_PTR), name)

    def stage_barrier(self, pre: str, bar: str, stage: SSAValue, base: int) -> tuple[SSAValue, SSAValue]:
        """(``%{pre}_off0``, the byte offset of the stage's barrier in the array; ``%{bar}``, the
        barrier) of stage ``stage`` (i32) in the array of 8-byte mbarriers at shared-memory offset
        ``base``."""
        off0 = self.v(arith.MuliOp(stage, self.small(8)), f"{pre}_off0")
        return off0, self.gep(self.v(arith.AddiOp(off0, self.ci[base]), f"{pre}_off"), bar)

    def try_wait(self, bar: SSAValue, phase: SSAValue, what: str, ring: int | None = None) -> None:
        """Block until the phase of parity ``phase`` of the mbarrier ``bar`` completes.  The wait
        is named ``what`` (and, for a barrier of a ring built by :meth:`stage_barrier`, marked
        with the ring's base offset ``ring``) for ``bound-barrier-waits``: a debug-timeout build
        reports the kernel, the barrier, its stage and the phase when the wait expires, and the
        program's source position of the chain's key loop (the wait's location)."""
        wait = nvvm.MBarrierTryWaitParityOp(bar, phase, self.ticks)
        copy_location(self.ck.loop, [wait])
        wait.attributes[WAIT_SITE] = StringAttr(f"chained-dots kernel @{self.fn.sym_name.data}: {what}")
        if ring is not None:
            wait.attributes[WAIT_RING] = IntegerAttr(ring, i32)
        self.e.add(wait)

    def wait_q(self) -> None:
        """Wait for the current program instance's Q tile (A0); with a Q prologue, apply it."""
        self.try_wait(*(self.q_wait or (self.qbar, self.small(0))), "Q tile full barrier")
        if self.ck.a0.gathered is not None:
            self.q_gather()
        if self.ck.a0.row_limit is not None:  # a row window of Q: the warp group's rows past its end zeroed
            op, e = self.ck.a0, self.e
            rel = self.window_rows(op, lambda site: site.low.scalar(op.load.indices[op.view_dim(0)]), "qz")
            rel = self.v(arith.SubiOp(rel, self.v(arith.MuliOp(self.wg, e.const(64)), "qz_r0")), "qz_rel")
            tile = self.v(arith.AddiOp(self.v(arith.MuliOp(self.wg, e.const(64 * op.row_bytes)), "qz_rows"),
                                       e.const(self.off["a0"])), "qz_b0")
            if self.q_off is not None:
                tile = self.v(arith.AddiOp(tile, self.q_off), "qz_b")
            self.zero_window(op, tile, rel, 0, 64, "qz")
            self.window_barrier("qz")
        if self.stagger_it is not None:  # TILEORCH_ATTN_STAGGER: the groups' first instance out of step
            emit_stagger(self.e, self.wg, self.stagger_it, stagger_cycles())
        pro = self.ck.q_prologue
        if pro is not None and pro.rowwise:  # the warp group's 64 rows, two threads per row
            lane = self.v(arith.RemUIOp(self.tid, self.small(128)), "qr_t")
            tile = self.e.const(self.off["a0"]) if self.q_off is None else \
                self.v(arith.AddiOp(self.q_off, self.e.const(self.off["a0"])), "qr_tile")
            self.rowwise_prologue(pro, self.ck.a0, tile, self.v(arith.MuliOp(self.wg, self.e.const(64)), "qr_r0"),
                                  lane, 128, 64, "qr")
            e = self.e
            e.add(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))
            e.add(nvvm.BarrierOp(self.v(arith.AddiOp(self.wg, e.const(Q_PROLOGUE_BARRIER)), "qp_bar"), self.small(128)))
        elif pro is not None:
            self.q_prologue()
        if self.q_regs:  # TILEORCH_ATTN_Q_REGS: the warp group's Q rows read once into the A fragment
            self.q_frag = self.load_q_fragment()
            if self.after_q_frag is not None:  # the persistent kernel's Q slot released right here
                self.after_q_frag()

    def q_gather(self) -> None:
        """Gathered query rows (:attr:`Operand.gathered`): the warp group's 64 rows of the Q tile read from global
        memory by its threads, element by element as the program's gather says (its index loads, bounds test and
        padding: ``FragmentLowering``), and written to the Q slot as the TMA box would have (``chunks`` boxes of
        ``box`` columns, rows of ``row_bytes`` swizzled: byte ``lin`` of a box at ``lin ^ (((lin >> 7) & (row_bytes /
        16 - 1)) << 4)``), one 32-bit word (two elements) per thread and step, consecutive threads on consecutive
        words.  First ``wgmma.wait_group 0`` (the warp group's earlier WGMMAs, the only readers of its rows, are
        done), after the writes ``fence.proxy.async.shared::cta`` and the warp group's named barrier
        :data:`Q_PROLOGUE_BARRIER` ``+ wg`` before its first WGMMA reads them."""
        ck, e, op = self.ck, self.e, self.ck.a0
        e.add(nvvm.WgmmaWaitGroupSyncOp(0))
        site = self.site_of()
        low = site.low
        lane = self.v(arith.RemUIOp(self.tid, self.small(128)), "qg_t")
        wg_bytes = self.v(arith.MuliOp(self.wg, e.const(64 * op.row_bytes)), "qg_rows")
        word = self.v(arith.MuliOp(lane, e.const(4)), "qg_t4")
        base = self.v(arith.AddiOp(wg_bytes, e.const(self.off["a0"])), "qg_b0")
        if self.q_off is not None:
            base = self.v(arith.AddiOp(base, self.q_off), "qg_b")
        mask = op.row_bytes // 16 - 1
        for w in range(64 * op.row_bytes // 512):  # 128 threads x 4 bytes per step (the same rows in every box)
            phys = self.v(arith.AddiOp(wg_bytes, self.v(arith.AddiOp(word, e.const(512 * w)), "qg_w")), "qg_ph")
            lin = self.v(arith.XOrIOp(phys, e.v(arith.ShLIOp(e.v(arith.AndIOp(
                e.v(arith.ShRUIOp(phys, e.const(7))), e.const(mask))), e.const(4)))), "qg_lin")
            row = self.v(arith.DivUIOp(lin, e.const(op.row_bytes)), "qg_r")
            col0 = self.v(arith.ShRUIOp(self.v(arith.RemUIOp(lin, e.const(op.row_bytes)), "qg_cb"), e.const(1)),
                          "qg_c0")
            for c in range(op.chunks):
                col = self.v(arith.AddiOp(col0, e.const(c * op.box)), "qg_c")
                out = []
                for k in range(2):
                    ck_col = col if k == 0 else self.v(arith.AddiOp(col, e.const(1)), "qg_c1")
                    out.append(low.at(op.gathered, (Coord(row, 0), Coord(ck_col, None))))
                    self.splice(site.tmp)
                ptr = self.gep(self.v(arith.AddiOp(base, self.v(arith.AddiOp(word, e.const(c * op.chunk_bytes
                                                                                         + 512 * w)), "qg_o")),
                                      "qg_a"), "qg_p")
                e.store(pack16(e, out[0], out[1], ck.dtype), ptr)
        e.add(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))
        bar = self.v(arith.AddiOp(self.wg, e.const(Q_PROLOGUE_BARRIER)), "qg_bar")
        e.add(nvvm.BarrierOp(bar, self.small(128)))

    def window_rows(self, op: Operand, x_of: Callable[["_Site"], SSAValue], tag: str) -> SSAValue:
        """The first row of ``op``'s tile (a row window's, :attr:`Operand.row_limit`) that lies past the window's
        end: ``limit - x R``, ``x`` the tile's row index (``x_of`` of a consumer site), signed (<= 0: every row)."""
        site = self.site_of()
        x = site.low._i32(x_of(site))
        lim = getattr(self, "window_limits", {}).get(id(op))
        if lim is None:
            lim = site.low._i32(site.low.scalar(op.row_limit))
        rel = site.e.v(arith.SubiOp(lim, site.e.mul_i(x, site.e.const(op.box_rows))))
        return self.splice(site.tmp, rel, f"{tag}_lim")

    def hoist_window_limits(self) -> None:
        """The K / V row windows' ends (:attr:`Operand.row_limit`, scalars of the instance: the sequence's bounds read
        from global memory) evaluated once before the consumer loop (:meth:`window_rows` reads them there)."""
        self.window_limits = {}
        for op, tag in ((self.ck.b1, "b1"), (self.ck.b2, "b2")):
            if op.row_limit is not None and id(op) not in self.window_limits:
                site = self.site_of()
                lim = site.low._i32(site.low.scalar(op.row_limit))
                self.window_limits[id(op)] = self.splice(site.tmp, lim, f"{tag}_wlim")

    def zero_window(self, op: Operand, tile: SSAValue, rel: SSAValue, row0: int, nrows: int, tag: str) -> None:
        """Zero rows ``r >= rel`` (signed; rows ``row0 .. row0 + nrows - 1`` of ``op``'s tile at shared byte offset
        ``tile``, as TMA wrote it: ``chunks`` boxes of ``rows`` rows of ``row_bytes``, the 128-byte swizzle
        permuting 16-byte units inside a row only) when ``rel < row0 + nrows`` — the rows past a row window's end,
        the next sequence's (or zero fill), which the program reads as 0.  The warp group's 128 threads, one 32-bit
        word each per step, then ``fence.proxy.async.shared::cta``; the caller's :meth:`window_barrier` (the warp
        group's named barrier) before its WGMMAs read the tile.  Each warp group zeroes every such row
        itself (a K / V stage is read by all of them): a write it orders before its own read, the other groups'
        writes of the same zeros."""
        e = self.e
        cond = self.v(cmpi(rel, e.const(row0 + nrows), "slt"), f"{tag}_part")

        def then(t: Emitter) -> None:
            with self.into(t.block):
                e = self.e
                lane = self.v(arith.RemUIOp(self.tid, self.small(128)), f"{tag}_t")
                word = self.v(arith.MuliOp(lane, e.const(4)), f"{tag}_t4")
                zero = e.const(0)
                for w in range(nrows * op.row_bytes // 512):
                    at = self.v(arith.AddiOp(word, e.const(row0 * op.row_bytes + 512 * w)), f"{tag}_w")
                    row = self.v(arith.DivUIOp(at, e.const(op.row_bytes)), f"{tag}_r")
                    past = self.v(cmpi(row, rel, "sge"), f"{tag}_past")
                    for c in range(op.chunks):
                        ptr = self.gep(self.v(arith.AddiOp(tile, self.v(arith.AddiOp(at, e.const(c * op.chunk_bytes)),
                                                                         f"{tag}_o")), f"{tag}_a"), f"{tag}_p")
                        _if(e, past, lambda s, ptr=ptr: s.store(zero, ptr))
                e.add(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))

        _if(e, cond, then)

    def window_barrier(self, tag: str) -> None:
        """The warp group's named barrier :data:`Q_PROLOGUE_BARRIER` ``+ wg`` after :meth:`zero_window` (every time:
        ``tileorch check`` reads a named barrier's guard only as a function of the warp group and the trip count,
        and the zeroing's guard reads the window's end)."""
        e = self.e
        e.add(nvvm.BarrierOp(self.v(arith.AddiOp(self.wg, e.const(Q_PROLOGUE_BARRIER)), f"{tag}_bar"),
                             self.small(128)))

    def zero_stage_windows(self, j: SSAValue, st_l: SSAValue, tag: str) -> None:
        """After the consumer's wait for tile ``j``'s full barrier (stage ``st_l``, i64): the K and V tiles of row
        windows (:attr:`Operand.row_limit`) have their rows past the window's end zeroed (:meth:`zero_window`)."""
        ck = self.ck
        todo = [(op, base, stride) for op, base, stride in ((ck.b1, "b1", self.plan.b1_stride),
                                                            (ck.b2, "b2", self.plan.b2_stride))
                if op.row_limit is not None]
        if not todo:
            return
        st = self.v(arith.TruncIOp(st_l, i32), f"{tag}_st")
        for op, base, stride in todo:
            def x_of(site, op=op):
                loop = enclosing_for(op.load)
                if loop is not None:
                    site.low.scalars[loop.body.blocks.first.args[0]] = j
                return site.low.scalar(op.load.indices[op.view_dim(0)])
            rel = self.window_rows(op, x_of, f"{tag}{base}")
            tile = self.v(arith.AddiOp(self.v(arith.MuliOp(st, self.e.const(stride)), f"{tag}{base}_so"),
                                       self.e.const(self.off[base])), f"{tag}{base}_tile")
            self.zero_window(op, tile, rel, 0, op.rows, f"{tag}{base}z")
        self.window_barrier(tag)

    def load_q_fragment(self) -> list[list[SSAValue]]:
        """The thread's A-fragment registers of the current instance's Q tile (its slot: ``q_off``),
        by K step (:func:`~tileorch.transforms.tileas.q_registers.load_q_fragment`)."""
        op, e = self.ck.a0, self.e
        lane = self.v(arith.RemUIOp(self.tid, self.small(128)), "qf_t")
        base = self.v(arith.MuliOp(self.wg, e.const(64 * op.row_bytes)), "qf_rows")
        if self.q_off is not None:
            base = self.v(arith.AddiOp(base, self.q_off), "qf_b")
        return load_q_fragment(e, lane, base, self.ck.d, op.box, op.row_bytes, op.chunk_bytes,
                               lambda off: self.gep(off, "qf_p"))

    def k_prologue(self, st_l: SSAValue) -> None:
        """The first dot's B prologue (:attr:`ChainedKernel.b_prologue`) on the K tile of stage
        ``st_l`` (i64) just waited for, in place: every consumer thread takes a share of its rows
        (:meth:`rowwise_prologue`), then ``fence.proxy.async`` and the consumers' named barrier
        :data:`K_PROLOGUE_BARRIER` before any WGMMA reads the stage."""
        ck, e = self.ck, self.e
        threads = self.plan.consumer_threads
        t = self.tid  # the consumer threads come first (the producer warp group is the last)
        st = self.v(arith.TruncIOp(st_l, i32), "kr_st")
        tile = self.v(arith.AddiOp(self.v(arith.MuliOp(st, e.const(self.plan.b1_stride)), "kr_so"),
                                   e.const(self.off["b1"])), "kr_tile")
        self.rowwise_prologue(ck.b_prologue, ck.b1, tile, self.small(0), t, threads, ck.b1.rows, "kr")
        e.add(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))
        e.add(nvvm.BarrierOp(e.const(K_PROLOGUE_BARRIER), e.const(threads)))

    def rowwise_prologue(self, pro: QPrologue, op: Operand, tile: SSAValue, row0: SSAValue, t: SSAValue,
                         threads: int, nrows: int, tag: str) -> None:
        """``pro`` (with row reductions or per-column vectors) applied in place to rows ``row0 ..
        row0 + nrows - 1`` of the swizzled tile ``op`` at shared byte offset ``tile`` by ``threads``
        threads (``t``: this thread's index among them): ``P = threads / nrows`` consecutive threads
        per row, thread ``p`` of a row taking its 16-byte units ``p, p + P, ..`` (physical address
        ``lin ^ (((lin >> 7) & m) << 4)``, the TMA swizzle), their elements as f32; each row
        reduction over the thread's elements then ``shfl.xor`` over the row's threads; each element
        evaluated (:class:`_RowEval`), rounded pairwise to the tile's type and written back."""
        e = self.e
        per = threads // nrows
        upc = op.box // 8  # 16-byte units per row of a box
        units = op.cols // 8
        row = self.v(arith.AddiOp(row0, self.v(arith.DivUIOp(t, e.const(per)), f"{tag}_rl")), f"{tag}_row")
        part = self.v(arith.RemUIOp(t, e.const(per)), f"{tag}_part")
        elt = op.load.result.type.element_type
        mask = op.row_bytes // 16 - 1
        addrs, raw = [], []
        for i in range(units // per):
            c, w0 = divmod(per * i, upc)
            lin = e.add_i(e.add_i(tile, e.const(c * op.chunk_bytes)),
                          e.add_i(e.mul_i(row, e.const(op.row_bytes)), e.mul_i(e.add_i(part, e.const(w0)), e.const(16))))
            sw = e.v(arith.ShLIOp(e.v(arith.AndIOp(e.v(arith.ShRUIOp(lin, e.const(7))), e.const(mask))), e.const(4)))
            phys = e.v(arith.XOrIOp(lin, sw))
            for q in range(4):
                ptr = self.gep(e.add_i(phys, e.const(4 * q)), f"{tag}_p")
                addrs.append(ptr)
                word = e.load(ptr, i32)
                for bits in (e.v(arith.TruncIOp(word, i16)), e.v(arith.TruncIOp(e.v(arith.ShRUIOp(word, e.const(16))), i16))):
                    raw.append(e.to_f32(e.bf16_bits_to_f32(bits) if isinstance(elt, BFloat16Type)
                                        else e.v(arith.BitcastOp(bits, elt))))
        cols = []
        for i in range(units // per):
            for x in range(8):  # column (part + per i) 8 + x
                cols.append(e.add_i(e.mul_i(part, e.const(8)), e.const(8 * per * i + x)))
        low = _QLowering(self.ck.kernel.body.blocks.first, None, self.ck.store, KernelEnv(self.args, [], []), e)
        ev = _RowEval(e, low, pro, raw, cols, row, per)
        out = [ev.value(pro.top, k) for k in range(len(raw))]
        for n, ptr in enumerate(addrs):
            e.store(pack16(e, out[2 * n], out[2 * n + 1], self.ck.dtype), ptr)

    def q_prologue(self) -> None:
        """The program's Q prologue (:class:`QPrologue`) applied in place to the warp group's 64 rows
        of the Q tile just waited for: each box holds them as ``64 x row_bytes`` contiguous bytes
        (the swizzle permutes 16-byte units within 8-row atoms), read by the warp group's threads
        as 32-bit words (two elements, consecutive threads on consecutive words), each element
        computed as the program's ops say and rounded to Q's type as its casts do
        (``cvt.rn.{f16,bf16}x2.f32``: :func:`~tileorch.transforms.tileas.pack16.pack16`), written back; then every writer's
        ``fence.proxy.async.shared::cta`` (generic-proxy writes before the WGMMAs' async-proxy
        reads) and the warp group's named barrier :data:`Q_PROLOGUE_BARRIER` ``+ wg`` (128
        threads) before its first WGMMA reads the rows."""
        ck, e, op = self.ck, self.e, self.ck.a0
        pro = ck.q_prologue
        low = _QLowering(ck.kernel.body.blocks.first, None, ck.store, KernelEnv(self.args, [], []), e)
        low.q_roots = {id(r) for r in pro.roots}
        z = Coord(e.const(0), None)
        coords = (z,) * len(pro.top.type.get_shape())
        elt = op.load.result.type.element_type
        lane = self.v(arith.RemUIOp(self.tid, self.small(128)), "qp_t")
        rows = self.v(arith.MuliOp(self.wg, e.const(64 * op.row_bytes)), "qp_rows")
        base = self.v(arith.AddiOp(rows, self.v(arith.MuliOp(lane, e.const(4)), "qp_t4")), "qp_b0")
        if self.q_off is not None:
            base = self.v(arith.AddiOp(base, self.q_off), "qp_b")
        for c in range(op.chunks):
            for w in range(64 * op.row_bytes // 512):  # 128 threads x 4 bytes per step
                ptr = self.gep(self.v(arith.AddiOp(base, e.const(c * op.chunk_bytes + 512 * w)), "qp_o"), "qp_p")
                word = e.load(ptr, i32)
                halves = [e.v(arith.TruncIOp(word, i16)),
                          e.v(arith.TruncIOp(e.v(arith.ShRUIOp(word, e.const(16))), i16))]
                out = []
                for bits in halves:
                    low.q_element = (e.bf16_bits_to_f32(bits) if isinstance(elt, BFloat16Type)
                                     else e.v(arith.BitcastOp(bits, elt)))
                    low.memo.clear()
                    out.append(low.at(pro.top, coords))
                e.store(pack16(e, out[0], out[1], ck.dtype), ptr)
        e.add(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))
        bar = self.v(arith.AddiOp(self.wg, e.const(Q_PROLOGUE_BARRIER)), "qp_bar")
        e.add(nvvm.BarrierOp(bar, self.small(128)))

    def first_stage(self) -> tuple[SSAValue, SSAValue]:
        """Wait for the loop's tile 0 in the K/V ring; (its stage as i64, its first-dot B
        descriptor)."""
        if self.ring is None:
            self.try_wait(self.bars["full"][0], self.small(0), "K/V ring full barrier of stage 0")
            return None, self.db1_1
        st, ph = self.stage_index(self.small(0), "f0")
        self.try_wait(self.stage_barrier("f0b", "f0bar", st, self.off["full"])[1], ph, "K/V ring full barrier",
                      self.off["full"])
        st_l = self.v(arith.ExtUIOp(st, i64), "f0st_l")
        return st_l, self.stage_address(st_l, self.b1_stage, self.db1_1, "f0_so", "f0db1")

    def ring_index(self, j: SSAValue, pre: str) -> SSAValue:
        """Tile ``j`` of the current program instance's loop in the K/V ring's count: ``j`` itself,
        or in a persistent kernel ``j`` plus the tiles of the CTA's earlier instances."""
        return j if self.ring is None else self.v(arith.AddiOp(j, self.ring), f"{pre}r")

    def stage_index(self, j: SSAValue, pre: str, ringed: bool = False) -> tuple[SSAValue, SSAValue]:
        """(``%{pre}st`` = stage ``r % stages``, ``%{pre}ph`` = phase parity ``(r / stages) & 1``) of
        tile ``j`` (``r``: its :meth:`ring_index`; ``j`` itself when ``ringed``)."""
        j = j if ringed else self.ring_index(j, pre)
        st = self.v(arith.RemUIOp(j, self.nstages), f"{pre}st")
        ph0 = self.v(arith.DivUIOp(j, self.nstages), f"{pre}ph0")
        return st, self.v(arith.AndIOp(ph0, self.small(1)), f"{pre}ph")

    def tile_stage(self, j: SSAValue, regs: list[SSAValue], reg_name: str):
        """The start of consumer iteration ``j`` (its carried ``regs`` named ``%{reg_name}<i>``):
        (stage, phase, stage as i64, the full barrier's byte offset, the full barrier) of tile
        ``j``."""
        _hint(j, "j")
        for r, x in enumerate(regs):
            _hint(x, f"{reg_name}{r}")
        st, ph = self.stage_index(j, "")
        st_l = self.v(arith.ExtUIOp(st, i64), "st_l")
        fb_off0, fbar = self.stage_barrier("fb", "fbar", st, self.off["full"])
        return st, ph, st_l, fb_off0, fbar

    # -- the entry block ----------------------------------------------------------------------
    def entry(self, barrier: bool = True) -> None:
        """Shared memory, the constants, the barriers and their initialisation by thread 0, then
        the CTA barrier (barrier 0; ``barrier`` False: the caller adds it, after :meth:`early_issue`)."""
        ck, plan, off, e = self.ck, self.plan, self.off, self.e
        self.smem = self.v(DynamicSmemOp(), "smem")
        self.c = {v: _hint(e.const(v), f"c{v}") for v in (0, 1, 2, 7, 8, 128)}
        self.ticks = _hint(e.const(1000000), "ticks")
        consts = sorted({0, 1, 2, 8, 64, 128, *[o.box * c for o in (ck.a0, ck.b1, ck.b2) for c in range(o.chunks)],
                         *[c * o.chunk_bytes for o in (ck.a0, ck.b1, ck.b2) for c in range(o.chunks)],
                         plan.b1_stride, plan.b2_stride,
                         *[off[k] + 8 * i for k in ("full", "empty") for i in range(plan.stages)],
                         *range(plan.stages), plan.consumer_threads, off["full"], off["empty"],
                         off["bars"], off["bars"] + 8, off["b1"], off["b2"], ck.b1.bytes, ck.b2.bytes, ck.a0.bytes,
                         ck.b1.bytes + ck.b2.bytes, ck.stage_bytes})
        consts = sorted({*consts, *[c * o.chunk_bytes + p * o.box_rows * o.row_bytes for o in (ck.b1, ck.b2)
                                    for c in range(o.chunks) for p in range(1, 1 + len(o.parts))]})  # row blocks
        if ck.k1 > 1:  # the first dots' B tiles side by side in the stage (ChainedKernel.b1_wide)
            consts = sorted({*consts, ck.k1 * ck.b1.bytes + ck.b2.bytes,
                             *[ck.b1_chunk_offset(k, c) for k in range(ck.k1) for c in range(ck.b1.chunks)]})
        self.ci = {c: _hint(e.const(c), f"c{c}_i") for c in consts}
        self.tid = self.v(nvvm.SPECIAL_REGISTERS["tid.x"](), "tid")
        t0 = self.v(cmpi(self.tid, self.small(0), "eq"), "t0")
        self.wg = self.v(arith.DivUIOp(self.tid, self.small(128)), "wg")
        self.qbar = self.gep(self.ci[off["bars"]], "qbar")
        self.nstages = _hint(e.const(plan.stages), "nstages")
        self.bars = {name: [self.gep(self.ci[off[name] + 8 * i], f"{name[0]}bar{i}") for i in range(plan.stages)]
                     for name in ("full", "empty")}

        if plan.persistent:  # each Q slot's full barrier (one arrival: the producer's arm) and empty barrier
            self.q_bars = [self.qbar] + [self.gep(e.const(off["bars"] + 8 * i), f"qbar{i}")
                                         for i in range(1, plan.q_slots)]
            self.q_empties = [self.gep(e.const(off["q_empty"] + 8 * i), f"qebar{i}") for i in range(plan.q_slots)]

        def init(t: Emitter) -> None:
            t.add(nvvm.MBarrierInitOp(self.qbar, self.small(1)))
            if plan.persistent:
                for bar in self.q_bars[1:]:
                    t.add(nvvm.MBarrierInitOp(bar, self.small(1)))
                for bar in self.q_empties:
                    t.add(nvvm.MBarrierInitOp(bar, self.ci[plan.consumer_threads]))
            for i in range(plan.stages):
                t.add(nvvm.MBarrierInitOp(self.bars["full"][i], self.small(1)))
                t.add(nvvm.MBarrierInitOp(self.bars["empty"][i], self.ci[plan.consumer_threads]))
            t.add(nvvm.FenceMbarrierInitOp())
            for x in _tmap_names(ck):
                t.add(nvp.PrefetchOp(self.tmap[x]))

        _if(e, t0, init)
        self.t0 = t0
        if barrier:
            e.add(nvvm.BarrierOp())

    def early_issue(self, cond: SSAValue, first: Callable[[], tuple[SSAValue, SSAValue, SSAValue]],
                    coords_of) -> None:
        """``TILEORCH_ATTN_EARLY_TMA`` (:func:`early_tma_enabled`): under ``cond`` (thread 0, and in a
        persistent kernel a CTA with a first instance), before the CTA barrier, the first program
        instance's Q tile and its first ``min(n, stages)`` K/V tiles, armed and issued exactly as the
        producer would (:meth:`load_q`, :meth:`fill`: ring index 0 .. , no empty wait in the first
        round).  ``first()`` (evaluated in the branch, after the instance's coordinates are set):
        (its Q full barrier, its Q slot's byte offset, its tile count ``n``).  The branch carries
        :data:`EARLY_TMA_ATTR` (what ``tileorch check`` reads).  The barrier is the caller's to add
        after it; the producer's first instance skips these loads (:meth:`producer`)."""
        blk = Block()
        with self.into(blk):
            # the initialised mbarriers made visible to the async proxy before this thread's own TMAs complete
            # on them (no CTA barrier between: fence.mbarrier_init orders them for other threads only)
            self.e.add(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))
            q_bar, q_dst, n = first()
            self.load_q(q_bar, q_dst, coords_of)
            self.fill(self.v(arith.MinUIOp(n, self.nstages), "early_n"), coords_of, wait=False)
        blk.add_op(scf.YieldOp())
        op = self.e.add(scf.IfOp(cond, [], Region(blk), Region()))
        op.attributes[EARLY_TMA_ATTR] = UnitAttr()
        self.early = True

    # -- the producer warp group --------------------------------------------------------------
    def tma_loads(self, tag: str, x: str, op: Operand, coords: list[SSAValue], dst_off: SSAValue,
                  bar: SSAValue, chunk_offset: Callable[[int], int] | None = None,
                  part_coords: Callable[[Operation, str], list[SSAValue]] | None = None) -> None:
        """TMA loads of one tile of operand ``x`` (``op.box``-column boxes) at array coordinates
        ``coords`` (outermost first) into shared memory at byte ``dst_off``, completing on ``bar``
        (values named ``%{tag}_...``); box ``c`` at ``dst_off + chunk_offset(c)`` (by default
        ``c * op.chunk_bytes``).  A tile of row blocks (:attr:`Operand.parts`): block ``p``'s boxes at
        ``part_coords(load, tag)``, ``p box_rows`` rows into each chunk."""
        e, n = self.e, op.rank
        chunk_offset = chunk_offset or (lambda c: c * op.chunk_bytes)
        if op.key_major_copy:  # the copy [.., D, S16] of the array [.., S, D]: the last two coordinates swapped
            coords = [*coords[:-2], coords[-1], coords[-2]]
        blocks = [(coords, tag, 0)]
        for p, ld in enumerate(op.parts, 1):
            blocks.append((part_coords(ld, f"{tag}pt{p}"), f"{tag}pt{p}", p * op.box_rows * op.row_bytes))
        for cs, t, at in blocks:
            for c in range(op.chunks):
                box = []
                for dim in reversed(range(n)):  # innermost first
                    coord = cs[dim]
                    if dim == n - 1 and c:
                        coord = self.v(arith.AddiOp(coord, self.ci[op.box * c]), f"{t}_x{c}")
                    box.append(coord)
                dst = self.gep(self.v(arith.AddiOp(dst_off, self.ci[chunk_offset(c) + at]), f"{t}_o{c}"),
                               f"{t}_p{c}")
                dst = self.v(llvm_ext.AddrSpaceCastOp(dst, CLUSTER_PTR), f"{t}_q{c}")
                e.add(nvp.CpAsyncBulkTensorGlobalToSharedClusterOp(dst, self.tmap[x], box, bar))

    def operand_loads(self, tag: str, x: str, op: Operand, coords: list[SSAValue], dst_off: SSAValue, bar: SSAValue,
                      j: SSAValue, coords_of, **kw) -> None:
        """:meth:`tma_loads` of tile ``j`` of operand ``x``; one with a first-iteration tile of its own
        (:attr:`Operand.first`): ``scf.if`` its condition at ``j`` (:attr:`first_when`) loads that tile through
        tensor map ``<x>_first`` at its own coordinates into the same place, else this one's."""
        if op.first is None:
            self.tma_loads(tag, x, op, coords, dst_off, bar, **kw)
            return
        when = self.first_when(op, j, tag)
        first, later = Block(), Block()
        with self.into(first):
            self.tma_loads(f"{tag}f", f"{x}_first", op.first, coords_of(x, op.first, j, f"{tag}f", op.first.load),
                           dst_off, bar)
        with self.into(later):
            self.tma_loads(tag, x, op, coords, dst_off, bar, **kw)
        first.add_op(scf.YieldOp())
        later.add_op(scf.YieldOp())
        self.e.add(scf.IfOp(when, [], Region(first), Region(later)))

    def stage_loads(self, j: SSAValue, coords_of) -> None:
        """Arm stage ``j % stages``'s full barrier and issue the B1/B2 loads of tile ``j``
        (``coords_of(operand name, operand, j, tag)``: the program's tile coordinates)."""
        ck, plan, off, e = self.ck, self.plan, self.off, self.e
        st = self.v(arith.RemUIOp(self.ring_index(j, "nx"), self.nstages), "nx_s")
        bo = self.v(arith.MuliOp(st, self.small(8)), "nx_bo")
        bar = self.gep(self.v(arith.AddiOp(bo, self.ci[off["full"]]), "nx_bo2"), "nx_bar")
        e.add(nvvm.MBarrierArriveExpectTxOp(bar, self.ci[ck.stage_bytes]))
        k1 = self.v(arith.MuliOp(st, self.ci[plan.b1_stride]), "nx_k1")
        k_off = self.v(arith.AddiOp(k1, self.ci[off["b1"]]), "nx_k")
        if ck.b2_in_b1 < 0:
            v1 = self.v(arith.MuliOp(st, self.ci[plan.b2_stride]), "nx_v1")
            v_off = self.v(arith.AddiOp(v1, self.ci[off["b2"]]), "nx_v")
        b1 = coords_of("b1", ck.b1, j, "b1nx")
        if ck.b2_in_b1 < 0:
            b2 = coords_of("b2", ck.b2, j, "b2nx")
        def parts(x: str, op: Operand):
            return lambda ld, tag: coords_of(x, op, j, tag, ld)

        if ck.k1 == 1:
            self.operand_loads("b1nx", "b1", ck.b1, b1, k_off, bar, j, coords_of, part_coords=parts("b1", ck.b1))
        else:  # each first dot's B tile at its boxes' places in the joint operand (ChainedKernel.b1_wide)
            for k, (x, bk) in enumerate(zip(_b1_names(ck), ck.b1s)):
                if ck.b1_tiles[k] != k:  # the same tile as an earlier first dot's: read there
                    continue
                bc = b1 if k == 0 else coords_of("b1", bk, j, f"b1nx{k}")
                self.tma_loads(f"b1nx{k}" if k else "b1nx", x, bk, bc, k_off, bar,
                               lambda c, k=k: ck.b1_chunk_offset(k, c))
        if ck.b2_in_b1 < 0:  # else B2 is read in a first dot's tile
            self.operand_loads("b2nx", "b2", ck.b2, b2, v_off, bar, j, coords_of, part_coords=parts("b2", ck.b2))

    def producer(self, n_tiles: SSAValue | None, coords_of, work=None, n_tiles_of=None) -> Block:
        """The producer warp group's block: its thread 0 loads A0 once and tile ``j`` into stage
        ``j % stages`` once every consumer thread has released the stage's previous tile (its
        empty barrier), then waits for the release of the last round of every stage (tile
        ``t - S`` for ``t = n .. n + S - 1``; a stage never filled passes at once) before leaving.
        ``coords_of(operand name, operand, j, tag)``: the array coordinates of the operand's tile
        loaded in the producer loop's iteration ``j``.  With ``work`` (a persistent kernel's
        :class:`_WorkTiles`) the same for each of the CTA's program instances in turn, A0 into the
        instance's Q slot once the consumers have released the slot's previous Q, the K/V tiles
        counted on along one ring."""
        blk = Block()
        with self.into(blk) as e:
            e.add(nvvm.SetMaxRegisterOp(nvvm.SetMaxRegisterAction.DECREASE, PRODUCER_REGS))
            tp = self.v(cmpi(self.tid, self.ci[self.plan.consumer_threads], "eq"), "tp")

            def thread0(t: Emitter) -> None:
                with self.into(t.block):
                    if work is None:
                        if self.early:  # thread 0 issued Q and the first tiles (early_issue)
                            self.fill(n_tiles, coords_of, self.v(arith.MinUIOp(n_tiles, self.nstages), "early_n"))
                        else:
                            self.load_q(self.qbar, self.small(0), coords_of)
                            self.fill(n_tiles, coords_of)
                        self.drain(n_tiles)
                        return

                    def instance(it: SSAValue) -> SSAValue:
                        n = n_tiles_of()
                        lo = later = None  # the first instance's tiles thread 0 issued (early_issue)
                        if self.early:
                            later = self.v(cmpi(it, self.small(0), "ne"), "early_later")
                            lo = self.v(arith.SelectOp(later, self.small(0),
                                                       self.v(arith.MinUIOp(n, self.nstages), "early_n")), "early_lo")
                        ahead = lo
                        if self.kv_ahead:  # the instance's first tiles before its Q (kv_ahead_enabled)
                            most = _hint(self.e.const(self.plan.stages - 1), "kv_ahead_n")
                            ahead = self.v(arith.MinUIOp(n, most), "kv_ahead")
                            self.fill(ahead, coords_of, lo)
                            if lo is not None:  # the first instance: from min(n, stages) >= min(n, stages - 1)
                                ahead = self.v(arith.MaxUIOp(lo, ahead), "kv_rest")
                        slot, use = work.q_slot(it)

                        def q_load(q: Emitter) -> None:
                            with self.into(q.block):
                                reuse = self.v(cmpi(use, self.small(0), "ugt"), "q_reuse")

                                def wait_free(w: Emitter) -> None:
                                    with self.into(w.block):
                                        prev = self.v(arith.SubiOp(use, self.small(1)), "q_prev")
                                        self.try_wait(work.q_empty(slot),
                                                      self.v(arith.AndIOp(prev, self.small(1)), "q_eph"),
                                                      "Q slot empty barrier (producer)")

                                _if(self.e, reuse, wait_free)
                                self.load_q(work.q_bar(slot), work.q_offset(slot), coords_of)

                        if later is None:
                            q_load(self.e)
                        else:  # the first instance's Q was issued by thread 0
                            _if(self.e, later, q_load)
                        self.fill(n, coords_of, ahead)
                        return n

                    runs, total = work.loop(instance)
                    self.drain(total)
                    work.drain_q(runs)

            _if(e, tp, thread0)
        blk.add_op(scf.YieldOp())
        return blk

    def load_q(self, bar: SSAValue, dst: SSAValue, coords_of) -> None:
        """Arm ``bar`` for A0's bytes and load A0 (the program instance's Q) to byte ``dst``; first
        dots with their own A tiles (:attr:`ChainedKernel.a0s`): each of them, ``_align(bytes)``
        apart, on the same barrier."""
        ck = self.ck
        if ck.a0.gathered is not None:  # the consumers read the rows themselves (q_gather): an empty phase
            self.e.add(nvvm.MBarrierArriveExpectTxOp(bar, self.ci[0]))
            return
        if not ck.own_a:
            self.e.add(nvvm.MBarrierArriveExpectTxOp(bar, self.ci[ck.a0.bytes]))
            a0 = coords_of("a0", ck.a0, self.small(0), "a0q")
            self.tma_loads("a0q", "a0", ck.a0, a0, dst, bar)
            return
        self.e.add(nvvm.MBarrierArriveExpectTxOp(bar, self.e.const(len(ck.a0s) * ck.a0.bytes)))
        for k, (x, ak) in enumerate(zip(_a0_names(ck), ck.a0s)):
            tag = "a0q" if k == 0 else f"a0q{k}"
            at = dst if k == 0 else self.v(arith.AddiOp(dst, self.e.const(k * _align(ck.a0.bytes))), f"{tag}_dst")
            self.tma_loads(tag, x, ak, coords_of(x, ak, self.small(0), tag), at, bar)

    def fill(self, n_tiles: SSAValue, coords_of, first: SSAValue | None = None, wait: bool = True) -> None:
        """The producer loop over the instance's K/V tiles ``first .. n_tiles - 1`` (``first``: 0 if
        None; each into its ring stage once the stage's previous tile is released; ``wait`` False:
        tiles of the ring's first round only, whose stages are fresh, without the release test)."""
        off = self.off

        def fill(le: Emitter, pj: SSAValue, _) -> list[SSAValue]:
            _hint(pj, "pj")
            with self.into(le.block):
                r = self.ring_index(pj, "pj")
                pst, pph = self.stage_index(r, "p", ringed=True)

                def wait_empty(w: Emitter) -> None:
                    with self.into(w.block):
                        phase = self.v(arith.XOrIOp(pph, self.small(1)), "pe_ph")
                        self.try_wait(self.stage_barrier("pe", "pebar", pst, off["empty"])[1], phase,
                                      "K/V ring empty barrier (producer)", off["empty"])

                if wait:
                    _if(self.e, self.v(cmpi(r, self.nstages, "uge"), "refill"), wait_empty)
                self.stage_loads(pj, coords_of)
            return []

        _for(self.e, self.small(0) if first is None else first, n_tiles, self.small(1), [], [], fill)

    def drain(self, count: SSAValue) -> None:
        """Wait for the release of the last round of every stage after ``count`` ring tiles."""
        off = self.off
        tail_end = self.v(arith.AddiOp(count, self.nstages), "tail_end")

        def drain(le: Emitter, tj: SSAValue, _) -> list[SSAValue]:
            _hint(tj, "tj")
            with self.into(le.block):
                tst = self.v(arith.RemUIOp(tj, self.nstages), "tst")
                tph0 = self.v(arith.DivUIOp(tj, self.nstages), "tph0")
                tph1 = self.v(arith.AndIOp(tph0, self.small(1)), "tph1")
                tph = self.v(arith.XOrIOp(tph1, self.small(1)), "tph")
                self.try_wait(self.stage_barrier("te", "tebar", tst, off["empty"])[1], tph,
                              "K/V ring empty barrier (producer tail)", off["empty"])
            return []

        _for(self.e, count, tail_end, self.small(1), [], [], drain)

    # -- the consumer warp groups -------------------------------------------------------------
    def start_consumer(self) -> None:
        """Make the consumer warp groups' block the insertion point and start it: ``setmaxnreg``
        up, and the WGMMA descriptors' base values (the operands' swizzle, atoms aligned; address
        bits of the dynamic shared memory's base).  :meth:`finish` closes it."""
        self.consumer = Block()
        self.e = self.e.nested(self.consumer)
        ck, plan, off, e = self.ck, self.plan, self.off, self.e
        e.add(nvvm.SetMaxRegisterOp(nvvm.SetMaxRegisterAction.INCREASE, consumer_regs(self.plan.consumers, self.plan.ctas_per_sm)))
        smem_i = self.v(llvm.PtrToIntOp(self.smem, i64), "smem_i")
        amask = _hint(e.const(262143, i64), "amask")
        c4_l = _hint(e.const(4, i64), "c4_l")
        smem_m = self.v(arith.AndIOp(smem_i, amask), "smem_m")
        sbase = self.v(arith.ShRUIOp(smem_m, c4_l), "sbase")
        wg_l = self.v(arith.ExtUIOp(self.wg, i64), "wg_l")
        wg_rows = _hint(e.const(64 * ck.a0.row_bytes // 16, i64), "wg_rows")
        wg_off = self.v(arith.MuliOp(wg_l, wg_rows), "wg_off")
        a_bits = _hint(e.const(_k_steps(ck.a0, ck.d // ck.k_step)[0], i64), "a_bits")
        da0 = self.v(arith.OrIOp(sbase, a_bits), "da0")
        self.da_wg = self.v(arith.AddiOp(da0, wg_off), "da_wg")
        b1_bits = _hint(e.const(_b_steps(ck.b1_wide, ck.d // ck.k_step)[0], i64), "b1_bits")
        b1_base = _hint(e.const(off["b1"] // 16, i64), "b1_base")
        b2_base = _hint(e.const(off["b2"] // 16, i64), "b2_base")
        self.b1_stage = _hint(e.const(plan.b1_stride // 16, i64), "b1_stage")
        self.b2_stage = _hint(e.const(plan.b2_stride // 16, i64), "b2_stage")
        db1_0 = self.v(arith.OrIOp(sbase, b1_bits), "db1_0")
        self.db1_1 = self.v(arith.AddiOp(db1_0, b1_base), "db1_1")
        self.sbase2 = self.v(arith.AddiOp(sbase, b2_base), "sbase2")
        self.sbase = sbase

    def stage_address(self, stage_l: SSAValue, stride: SSAValue, base: SSAValue, so: str, name: str) -> SSAValue:
        """``%{name} = base + %{so}`` with ``%{so} = stage * stride`` (i64, 16-byte descriptor units)."""
        return self.v(arith.AddiOp(base, self.v(arith.MuliOp(stage_l, stride), so)), name)

    def s_chain(self, pre: str, init: SSAValue | tuple, db1: SSAValue) -> SSAValue | tuple:
        """The first dot's ``K / k_step`` WGMMAs (:attr:`ChainedKernel.k_step`) (``%{pre}{s}``) from accumulator input ``init`` (a struct
        of ``sn / 2`` f32), B1's stage at descriptor ``db1``; S (the last one's result).  First dots
        with their own A tiles (:attr:`ChainedKernel.a0s`): ``init`` and the result are tuples of one
        ``tn / 2`` struct per first dot, each its own chain of ``n = tn`` WGMMAs from its A tile in
        the Q slot and its B tile's boxes in the stage (:meth:`ChainedKernel.b1_chunk_offset`), all
        in the caller's one commit group."""
        ck, e = self.ck, self.e
        ksteps = ck.d // ck.k_step
        _, a_offs = _k_steps(ck.a0, ksteps)
        _, b1_offs = _b_steps(ck.b1_wide, ksteps)
        dtype = nvp.WGMMAType(ck.dtype)
        layout_b = nvp.MMALayout.COL if ck.b1.k_major else nvp.MMALayout.ROW
        if ck.own_a:
            out = []
            for k, acc in enumerate(init):
                a_k, b_k = k * _align(ck.a0.bytes), ck.b1_chunk_offset(ck.b1_tiles[k], 0)
                for s in range(ksteps):
                    ac = _hint(e.const((a_k + a_offs[s]) // 16, i64), f"{pre}{k}a{s}c")
                    bc = _hint(e.const((b_k + b1_offs[s]) // 16, i64), f"{pre}{k}b{s}c")
                    da = self.v(arith.AddiOp(self.da_cur or self.da_wg, ac), f"{pre}{k}a{s}")
                    db = self.v(arith.AddiOp(db1, bc), f"{pre}{k}b{s}")
                    acc = self.v(nvp.WgmmaMmaAsyncOp(acc, da, db, ck.tn, dtype, layout_b), f"{pre}{k}_{s}")
                out.append(acc)
            return tuple(out)
        acc = init
        if self.q_frag is not None:  # TILEORCH_ATTN_Q_REGS: A from the instance's fragment registers
            for s in range(ksteps):
                bc = _hint(e.const(b1_offs[s] // 16, i64), f"{pre}b{s}c")
                db = self.v(arith.AddiOp(db1, bc), f"{pre}b{s}")
                acc = self.v(nvp.WgmmaMmaAsyncRegisterAOp(self.q_frag[s], db, acc, ck.sn, dtype, layout_b),
                             f"{pre}{s}")
            return acc
        for s in range(ksteps):
            ac = _hint(e.const(a_offs[s] // 16, i64), f"{pre}a{s}c")
            bc = _hint(e.const(b1_offs[s] // 16, i64), f"{pre}b{s}c")
            da = self.v(arith.AddiOp(self.da_cur or self.da_wg, ac), f"{pre}a{s}")
            db = self.v(arith.AddiOp(db1, bc), f"{pre}b{s}")
            acc = self.v(nvp.WgmmaMmaAsyncOp(acc, da, db, ck.sn, dtype, layout_b), f"{pre}{s}")
        return acc

    def pingpong_before(self, n_tiles: SSAValue, lower: int = 0) -> tuple[SSAValue, SSAValue, SSAValue]:
        """Before the consumer loop (from ``lower`` to ``n_tiles``): warp group ``w`` takes its turn
        on named barrier ``1 + w`` and hands it on to ``2 - w`` (:data:`PINGPONG_BARRIERS`); warp
        group 1 gives the first turn to warp group 0.  (this warp group's barrier, the other's,
        whether the loop runs)."""
        mine, other = PINGPONG_BARRIERS
        threads = self.ci[self.plan.consumer_threads]
        bar = self.v(arith.AddiOp(self.wg, self.small(mine)), "pp_bar")
        nxt = self.v(arith.SubiOp(self.small(other), self.wg), "pp_next")
        has = self.v(cmpi(n_tiles, self.small(lower), "sgt"), "pp_has")
        if self.pp_per_kernel:  # warp group 1 gave the first turn before the work loop (pingpong_kernel_first)
            return bar, nxt, has
        wg1 = self.v(cmpi(self.wg, self.small(1), "eq"), "pp_wg1")
        first = self.v(arith.AndIOp(wg1, has), "pp_first")
        _if(self.e, first, lambda t: t.add(nvvm.BarrierArriveOp(self.small(mine), threads)))
        return bar, nxt, has

    def pingpong_kernel_first(self) -> None:
        """FlashAttention-3's once-per-kernel first turn (``TILEORCH_ATTN_PINGPONG=kernel``), before
        the consumers' loop over the CTA's instances: warp group 1 arrives on warp group 0's barrier
        once, unconditionally; the instances' loops then only sync and hand over."""
        mine = PINGPONG_BARRIERS[0]
        threads = self.ci[self.plan.consumer_threads]
        wg1 = self.v(cmpi(self.wg, self.small(1), "eq"), "pp_wg1")
        _if(self.e, wg1, lambda t: t.add(nvvm.BarrierArriveOp(self.small(mine), threads)))

    def pingpong_kernel_last(self) -> None:
        """After the consumers' loop over instances (``TILEORCH_ATTN_PINGPONG=kernel``): warp group
        0 takes warp group 1's last hand-over once, unconditionally.  Over the kernel barrier 1 is
        synced ``T + 1`` times by warp group 0 and arrived ``T + 1`` times by warp group 1, barrier 2
        ``T`` times each (``T``: the turns of all the CTA's instances, the same for both groups)."""
        mine = PINGPONG_BARRIERS[0]
        threads = self.ci[self.plan.consumer_threads]
        wg0 = self.v(cmpi(self.wg, self.small(0), "eq"), "pp_wg0")
        _if(self.e, wg0, lambda t: t.add(nvvm.BarrierOp(self.small(mine), threads)))

    def pingpong_after(self, has: SSAValue) -> None:
        """After the consumer loop: warp group 0 takes warp group 1's hand-over after its last tile
        (each barrier's arrivals balance its syncs: barrier 1 is synced ``n + 1`` times by warp
        group 0 and arrived ``n + 1`` times by warp group 1, barrier 2 ``n`` times each)."""
        if self.pp_per_kernel:  # warp group 0 takes the last hand-over after the work loop (pingpong_kernel_last)
            return
        mine = PINGPONG_BARRIERS[0]
        threads = self.ci[self.plan.consumer_threads]
        wg0 = self.v(cmpi(self.wg, self.small(0), "eq"), "pp_wg0")
        last = self.v(arith.AndIOp(wg0, has), "pp_last")
        _if(self.e, last, lambda t: t.add(nvvm.BarrierOp(self.small(mine), threads)))

    def finish(self, producer: Block) -> func.FuncOp:
        """Close the consumer block; in the entry block, the warp-group switch (the producer's
        block or the consumers') and the return.  The finished function."""
        self.consumer.add_op(scf.YieldOp())
        self.e = self.e.nested(self.fn.body.blocks.first)
        is_prod = self.v(cmpi(self.tid, self.ci[self.plan.consumer_threads], "uge"), "is_prod")
        self.e.add(scf.IfOp(is_prod, [], Region(producer), Region(self.consumer)))
        self.e.add(func.ReturnOp())
        return self.fn


class _WorkTiles:
    """The program instances of a persistent chained kernel: the program's grid ``(gx, gy, gz)``
    comes as the kernel's last three parameters, the launch has at most one CTA per SM, and CTA
    ``b`` of ``G`` runs instances ``b, b + G, b + 2G, ..`` (linear index ``w``).  ``w`` is the
    program ids with the heavy-first axis (:func:`~tileorch.transforms.tileas.program_order.heavy_first_axis`)
    slowest and reversed, so the longest loops are dealt first.  Each agent runs the instances in
    the same order (:meth:`loop`), counting its K/V tiles along one ring (``kb.ring``) and using Q
    slot ``it % q_slots`` for its ``it``-th instance."""

    def __init__(self, kb: _Kernel, grid: list[SSAValue], heavy: int | None, tile_coord: list[SSAValue],
                 snake: str | None = None):
        self.kb, self.grid, self.heavy, self.tile_coord, self.snake = kb, grid, heavy, tile_coord, snake
        e = kb.e
        self.group = self.part = self.valid = self.on_slice = None
        if kb.ck.row_groups:  # row groups (row_groups.py): the work units of G slices of 64 rows along axis x
            g = kb.ck.row_groups
            self.program_x = grid[0]
            slices = kb.v(arith.ShLIOp(grid[0], kb.small(1)), "rg_slices")  # 2 X slices of 64 rows a head
            units = kb.v(arith.DivUIOp(kb.v(arith.AddiOp(slices, e.const(g - 1)), "rg_up"), e.const(g)), "rg_units")
            self.full_units = kb.v(arith.DivUIOp(slices, e.const(g)), "rg_full")  # units of G slices a head
            self.grid = grid = [units, grid[1], grid[2]]
        self.total = kb.v(arith.MuliOp(kb.v(arith.MuliOp(grid[0], grid[1]), "pg_xy"), grid[2]), "pg_total")
        self.start = kb.v(nvvm.SPECIAL_REGISTERS["ctaid.x"](), "pg_first")
        self.step = kb.v(nvvm.SPECIAL_REGISTERS["nctaid.x"](), "pg_step")
        self.c0 = _hint(e.const(0), "pg_c0")

    def coords(self, w: SSAValue) -> list[SSAValue]:
        """The program ids (x, y, z) of linear instance ``w``."""
        kb = self.kb
        if kb.ck.row_groups:
            return self.unit_coords(w)
        order = [a for a in range(3) if a != self.heavy] + ([self.heavy] if self.heavy is not None else [])
        if self.snake == "snake" and self.heavy is not None:  # the heavy axis fastest: one head's query tiles in a row
            order = [self.heavy] + order[:-1]
        out: list[SSAValue | None] = [None] * 3
        rest = w
        for k, a in enumerate(order):
            if k == len(order) - 1:
                out[a] = rest
            else:
                out[a] = kb.v(arith.RemUIOp(rest, self.grid[a]), f"pid{'xyz'[a]}")
                rest = kb.v(arith.DivUIOp(rest, self.grid[a]), f"pg_rest{k}")
        if self.heavy is not None:
            last = kb.v(arith.SubiOp(self.grid[self.heavy], kb.small(1)), "pg_last")
            out[self.heavy] = kb.v(arith.SubiOp(last, out[self.heavy]), f"pid{'xyz'[self.heavy]}")
        return out

    def loop(self, instance: Callable[[SSAValue], SSAValue], extra: list[SSAValue] = (),
             extra_types: list[Attribute] = ()) -> list[SSAValue]:
        """``for w in range(ctaid.x, total, nctaid.x)`` at the insertion point: the program ids of
        ``w`` in ``tile_coord``, ``kb.ring`` the ring index of the instance's first K/V tile, then
        ``instance(it)`` (``it``: the CTA's instance count so far) builds the instance and returns
        its number of K/V tiles.  (instances run, ring tiles used) after the loop.  With ``extra``
        (values carried from instance to instance, as ``extra_types``), ``instance`` finds them in
        ``self.extra`` and the loop's index ``w`` in ``self.w`` (the instance: :meth:`dealt`), and
        returns (tiles, the next instance's extra); the loop's results then end with the last
        instance's."""
        kb = self.kb

        def body(le: Emitter, w: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            it, ring = carried[:2]
            _hint(w, "pg_w")
            with kb.into(le.block):
                self.w = w  # the loop's index (the instance is dealt(w, it))
                self.tile_coord[:] = self.coords(self.dealt(w, it))
                if kb.ck.row_groups:
                    self.slice_of_unit()
                kb.ring = _hint(ring, "ring")
                self.extra = carried[2:]
                n = instance(_hint(it, "pg_it"))
                n, more = n if extra else (n, [])
                kb.ring = None
                return [kb.v(arith.AddiOp(it, kb.small(1)), "pg_next"), kb.v(arith.AddiOp(ring, n), "ring_next"),
                        *more]

        return _for(kb.e, self.start, self.total, self.step, [self.c0, self.c0, *extra], [i32, i32, *extra_types],
                    body)

    def unit_coords(self, w: SSAValue) -> list[SSAValue]:
        """Row groups: (unit ``u``, y, z) of linear work unit ``w``, every head's full units (``G`` slices) dealt
        before the heads' last, partial units (fewer slices, less work): ``w < F Y Z`` is unit ``w % F`` of
        ``w / F``, else the partial unit ``F`` of ``w - F Y Z`` (``F`` full units a head; round-robin over the
        CTAs, the light units fill the rounds' tails instead of landing on the same CTAs every round)."""
        kb = self.kb
        full = self.full_units
        yz = kb.v(arith.MuliOp(self.grid[1], self.grid[2]), "rg_yz")
        nfull = kb.v(arith.MuliOp(full, yz), "rg_nfull")
        in_full = kb.v(cmpi(w, nfull, "ult"), "rg_in_full")
        f1 = kb.v(arith.MaxUIOp(full, kb.small(1)), "rg_f1")
        u = kb.v(arith.SelectOp(in_full, kb.v(arith.RemUIOp(w, f1), "rg_uf"), full), "rg_u")
        rest = kb.v(arith.SelectOp(in_full, kb.v(arith.DivUIOp(w, f1), "rg_rf"),
                                   kb.v(arith.SubiOp(w, nfull), "rg_rp")), "rg_rest")
        y = kb.v(arith.RemUIOp(rest, self.grid[1]), "pidy")
        z = kb.v(arith.DivUIOp(rest, self.grid[1]), "pidz")
        return [u, y, z]

    def slice_of_unit(self) -> None:
        """Row groups: ``tile_coord[0]`` (the work unit ``u``) made the program id ``x`` of the agent's slice ``s =
        G u + group`` (the producer: the unit's first, ``group`` None), ``s // 2``; :attr:`part` its half ``s % 2``
        (rows ``64 part`` of the instance), :attr:`valid` whether the instance exists (``x < X``); then
        :attr:`on_slice` (the consumer's rows)."""
        kb = self.kb
        first = kb.v(arith.MuliOp(self.tile_coord[0], kb.e.const(kb.ck.row_groups)), "rg_first")
        s = first if self.group is None else kb.v(arith.AddiOp(first, self.group), "rg_slice")
        self.tile_coord[0] = kb.v(arith.ShRUIOp(s, kb.small(1)), "rg_pidx")
        self.part = kb.v(arith.AndIOp(s, kb.small(1)), "rg_part")
        self.valid = kb.v(cmpi(self.tile_coord[0], self.program_x, "ult"), "rg_valid")
        if self.on_slice is not None:
            self.on_slice(self.part)

    def dealt(self, w: SSAValue, it: SSAValue) -> SSAValue:
        """The instance the CTA runs at loop index ``w`` (``b + it G``), its round ``it``: ``w`` itself,
        or under a snake schedule :meth:`snaked`."""
        return self.snaked(w, it) if self.snake else w

    def snaked(self, w: SSAValue, it: SSAValue) -> SSAValue:
        """The instance the CTA runs in its round ``it`` under the snake schedule
        (:func:`snake_schedule_enabled`): ``w`` (= ``b + it G``) in even rounds, ``it G + n - 1 - b``
        in odd ones, ``n = min(G, total - it G)`` the round's instances (a bijection of each round's
        instances ``[it G, it G + n)``: CTA ``b`` runs in round ``it`` exactly when ``b < n``)."""
        kb = self.kb
        base = kb.v(arith.SubiOp(w, self.start), "pg_round")  # it * G
        left = kb.v(arith.SubiOp(self.total, base), "pg_left")
        n = kb.v(arith.MinUIOp(left, self.step), "pg_n")
        back = kb.v(arith.SubiOp(kb.v(arith.AddiOp(base, n), "pg_end"), kb.small(1)), "pg_end1")
        rev = kb.v(arith.SubiOp(back, self.start), "pg_rev")
        odd = kb.v(arith.TruncIOp(kb.v(arith.AndIOp(it, kb.small(1)), "pg_odd0"), i1), "pg_odd")
        return kb.v(arith.SelectOp(odd, rev, w), "pg_ws")

    def drain_q(self, runs: SSAValue) -> None:
        """The producer's wait, before it leaves, for the release of each Q slot's last use after
        ``runs`` instances (uses ``runs .. runs + slots - 1`` in the slots' count; a slot never
        used passes at once): no consumer arrive is still in flight when the producer exits."""
        kb = self.kb
        slots = kb.plan.q_slots
        end = kb.v(arith.AddiOp(runs, kb.e.const(slots)), "q_tail_end")

        def wait(le: Emitter, t: SSAValue, _) -> list[SSAValue]:
            with kb.into(le.block):
                slot, use = self.q_slot(t)
                phase = kb.v(arith.XOrIOp(kb.v(arith.AndIOp(use, kb.small(1)), "q_tph1"), kb.small(1)), "q_tph")
                kb.try_wait(self.q_empty(slot), phase, "Q slot empty barrier (producer tail)")
            return []

        _for(kb.e, runs, end, kb.small(1), [], [], wait)

    def q_slot(self, it: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(Q slot, how many times the slot was used before) of the CTA's ``it``-th instance."""
        kb = self.kb
        if kb.plan.q_slots == 1:
            return self.c0, it
        return kb.v(arith.AndIOp(it, kb.small(1)), "q_slot"), kb.v(arith.ShRUIOp(it, kb.small(1)), "q_use")

    def _slot_bar(self, base: int, slot: SSAValue, name: str) -> SSAValue:
        kb = self.kb
        off = kb.v(arith.AddiOp(kb.v(arith.MuliOp(slot, kb.small(8)), f"{name}_o"), kb.e.const(base)), f"{name}_off")
        return kb.gep(off, name)

    def q_bar(self, slot: SSAValue) -> SSAValue:
        return self._slot_bar(self.kb.off["bars"], slot, "qsbar")

    def q_empty(self, slot: SSAValue) -> SSAValue:
        return self._slot_bar(self.kb.off["q_empty"], slot, "qsebar")

    def q_offset(self, slot: SSAValue) -> SSAValue:
        """The byte offset of Q slot ``slot`` in shared memory."""
        kb = self.kb
        return kb.v(arith.MuliOp(slot, kb.e.const(kb.off["a0_slot"])), "q_dst")

    def q_descriptor(self, slot: SSAValue) -> SSAValue:
        """The consumer warp group's A0 descriptor base for Q slot ``slot``."""
        kb = self.kb
        slot_l = kb.v(arith.ExtUIOp(slot, i64), "q_slot_l")
        units = _hint(kb.e.const(kb.off["a0_slot"] // 16, i64), "q_slot_units")
        return kb.v(arith.AddiOp(kb.da_wg, kb.v(arith.MuliOp(slot_l, units), "q_so")), "da_q")


# --------------------------------------------------------------------------- register-layout math


@dataclass
class FragmentLowering(EpilogueLowering):
    """:class:`EpilogueLowering` over the WGMMA accumulator layout with known fragments
    (``provided``: tile value -> (width, registers)), row reductions and loop values."""

    provided: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)  # the thread's two row coordinates (tile-local)
    cols: dict = field(default_factory=dict)  # (g, j) -> column coordinate value
    row_of: dict = field(default_factory=dict)  # id(row value) -> h
    col_of: dict = field(default_factory=dict)  # id(col value) -> (g, j)
    zero: SSAValue | None = None  # the site's one constant-0 coordinate (broadcast dimensions)
    loop_iv: SSAValue | None = None  # the program loop's induction variable (its value in ``scalars``)
    assumed_true: set = field(default_factory=set)  # id() of comparisons known to hold on every element
    exp2_fma: int = 0  # exp2_fma_period(): one column group in K takes its exp2 on the FMA pipe
    row_div: RowDivision | None = None  # IEEE divisions by one reciprocal per divisor value (row_division)
    uniform_divs: set | None = None  # the loop's divisions by one register per thread taken (loop_division)
    small_tanh: set | None = None  # the loop's full tanh ops under the warp-uniform branch taken (loop_tanh)
    softmax_exps: set | None = None  # the loop's online-softmax exp ops taken as ex2.approx (loop_softmax_exp)
    row_loads: list | None = None  # groups of ops of the producer-loaded tiles' reads (loop_row_prefetch)

    def at(self, v: SSAValue, coords: tuple[Coord, ...]) -> SSAValue:
        return super().at(v, tuple(self._canon(c) for c in coords))

    def stored_value(self) -> tuple[SSAValue, object]:
        """:meth:`EpilogueLowering.stored_value`; for a group store (:func:`_store_group`: the rows
        ``g BM + i`` of a ``[G BM, dv]`` tile reshaped to ``(.., G, BM, dv)``) the tile before the
        reshape, read at the accumulator's (row, col)."""
        v, out = super().stored_value()
        o = v.owner
        group = _store_group(self.store)
        if group is None or not isinstance(o, Operation) or o.name != "nv_tileaa.reshape":
            return v, out
        src, dst = (list(x.type.get_shape()) for x in (o.operands[0], o.results[0]))
        if [x for x in src if x != 1] != [dst[group[0]] * dst[group[1]], dst[-1]]:
            raise unsupported(o, f"reshape {src} -> {dst} (a group store's tile is a [G BM, dv] tile reshaped)")
        v = o.operands[0]
        while isinstance(v.owner, Operation) and v.owner.name in LAYOUT_ONLY:
            v = v.owner.operands[0]
        o = v.owner
        if (isinstance(o, Operation) and o.name == "nv_tileaa.fp_to_fp"
                and isinstance(o.operands[0].type.element_type, Float32Type)
                and isinstance(out, Float16Type | BFloat16Type)):
            v = o.operands[0]
        return v, out

    def _canon(self, c: Coord) -> Coord:
        o = c.value.owner
        if (c.acc_dim is None and self.zero is not None and isinstance(o, arith.ConstantOp)
                and isinstance(o.value, IntegerAttr) and o.value.value.data == 0 and c.value.type == i32):
            return Coord(self.zero, None)
        return c

    def _at(self, v: SSAValue, coords: tuple[Coord, ...]) -> SSAValue:
        if id(v.owner) in self.assumed_true:  # a mask that holds on the whole tile in this copy of the loop body
            return self.e.const(1, i1)
        hit = self.provided.get(v)
        if hit is not None:
            width, regs = hit
            h = self.row_of.get(id(coords[0].value)) if coords else None
            rank1 = len(coords) == 1 and width == 1  # a [tm] row vector (ct.max(s, axis=1) without keepdims)
            if (len(coords) != 2 and not rank1) or h is None:
                raise unsupported(self.store, "reads a register tile at coordinates other than its own")
            if width == 1:
                return regs[h]
            gj = self.col_of.get(id(coords[1].value))
            if gj is None or gj[0] >= width // 8:
                raise unsupported(self.store, "reads a register tile at columns other than its own (a transpose "
                                              "or slice of it)")
            return regs[4 * gj[0] + 2 * h + gj[1]]
        if isinstance(v.type, TensorType) and isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.reduce":
            return self._reduce(v.owner, coords)
        if self.softmax_exps is not None:
            x = softmax_exp(self, v, coords)
            if x is not None:
                return x
        if self.exp2_fma and isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.exp2" and len(coords) == 2 \
                and isinstance(v.type.element_type, Float32Type):
            gj = self.col_of.get(id(coords[1].value))
            if gj is not None and self.row_of.get(id(coords[0].value)) is not None \
                    and gj[0] % self.exp2_fma == self.exp2_fma - 1:
                return _exp2_fma(self.e, self.e.to_f32(self.at(v.owner.operands[0], coords)))
        if self.row_div is not None and isinstance(v.owner, Operation) and is_ieee_division(v.owner):
            a, b = (self.e.to_f32(self.at(x, coords)) for x in v.owner.operands)
            return self.row_div.divide(a, b)
        if self.uniform_divs is not None and self.row_div is None:
            q = uniform_quotients(self, v, coords)
            if q is not None:
                return q
        if self.small_tanh is not None and self.row_div is None:
            t = uniform_tanh(self, v, coords)
            if t is not None:
                return t
        if isinstance(v, BlockArgument) and isinstance(v.type, TensorType):
            ld = producer_load(v)
            if ld is not None and self.loop_iv in self.scalars:
                # a tile the producer loads in the loop besides the dots' operands (a bias row): each
                # thread reads its own elements from global memory, the producer's iv being the loop's
                ploop = enclosing_for(ld)
                if ploop is not None:
                    self.scalars[ploop.body.blocks.first.args[0]] = self.scalars[self.loop_iv]
                return record_row_load(self.row_loads, self.e.block, lambda: self._load(ld, coords))
            raise unsupported(self.store, "reads a tile carried into a region that is not the loop's")
        return super()._at(v, coords)

    def _scalar(self, v: SSAValue):
        op = v.owner
        if isinstance(op, Operation) and op.name in ("nv_tileaa.get_dim_size", "nv_tileaa.get_dim_stride"):
            from tileorch.transforms.tileaa_to_simt.convert import View

            e = self.e
            src = self.scalar(op.operands[0])
            i = op.index.value.data
            mem = src.memref if isinstance(src, View) else src
            if op.name.endswith("stride"):
                r = mem.strides[src.order[i] if isinstance(src, View) else i]
            elif isinstance(src, View):  # tiles along the dimension, rounded up
                step = src.step[i]
                r = e.v(arith.DivSIOp(e.add_i(mem.shape[src.order[i]], e.const(step - 1)), e.const(step)))
            else:
                r = mem.shape[i]
            return self._cast(e, r, op.results[0].type)
        return super()._scalar(v)

    def _reduce(self, op: Operation, coords: tuple[Coord, ...]) -> SSAValue:
        e = self.e
        src = op.operands[0]
        shape = list(src.type.get_shape())
        dim = op.dim.value.data if hasattr(op.dim, "value") else int(op.dim)
        if len(op.operands) != 1 or len(shape) != 2 or dim != 1 or len(coords) != 1:
            raise unsupported(op, "reduces other than one tile along its columns (rows of the accumulator layout)")
        h = self.row_of.get(id(coords[0].value))
        if h is None or shape[1] % 8:
            raise unsupported(op, "reduces a tile whose rows are not the accumulator's")
        body = [o for o in op.regions[0].blocks.first.ops if not o.name.endswith("yield")]
        if len(body) != 1:
            raise unsupported(op, "reduces with a body of more than one op")
        comb = body[0]
        rtype = op.results[0].type.element_type

        def combine(a: SSAValue, b: SSAValue) -> SSAValue:
            return lower_scalar_op(e, comb, [a, b], rtype)

        def value(g: int, j: int) -> SSAValue:
            return self.at(src, (coords[0], Coord(self.cols[(g, j)], 1)))

        if tree_reduce_enabled():  # pairwise: log2 depth instead of a chain as long as the row
            xs = [value(g, j) for g in range(shape[1] // 8) for j in range(2)]
            while len(xs) > 1:
                xs = [combine(xs[i], xs[i + 1]) if i + 1 < len(xs) else xs[i] for i in range(0, len(xs), 2)]
            acc = xs[0]
        else:
            acc = None
            for g in range(shape[1] // 8):
                for j in range(2):
                    x = value(g, j)
                    acc = x if acc is None else combine(acc, x)
        for mask in (1, 2):  # the quad's four threads hold the row's other columns
            if isinstance(acc.type, Float32Type):
                other = e.v(llvm.InlineAsmOp(f"shfl.sync.bfly.b32 $0, $1, {mask}, 31, -1;", "=f,f", [acc], [f32]))
            elif acc.type == i32:
                other = e.v(llvm.InlineAsmOp(f"shfl.sync.bfly.b32 $0, $1, {mask}, 31, -1;", "=r,r", [acc], [i32]))
            else:
                raise unsupported(op, f"reduces {acc.type} values")
            acc = combine(acc, other)
        return acc


@dataclass
class _RowEval:
    """A rowwise prologue's values at one thread's elements (:meth:`_Kernel.rowwise_prologue`):
    ``raw[k]`` the tile's element ``k`` (f32) at column ``cols[k]`` of row ``row``; per-element
    values memoized by (value, k), per-row ones once, per-column ones by k; a row reduction combines
    the thread's elements, then the row's ``per`` threads (``shfl.sync.bfly`` 1, 2, ..)."""

    def __init__(self, e: Emitter, low: FragmentLowering, pro: QPrologue, raw: list, cols: list, row: SSAValue,
                 per: int):
        self.e, self.low, self.pro, self.raw, self.cols, self.row, self.per = e, low, pro, raw, cols, row, per
        self.roots = {id(r) for r in pro.roots}
        self.memo: dict = {}

    def value(self, v: SSAValue, k: int) -> SSAValue:
        kind = self.pro.kinds.get(id(v), "q" if id(v) in self.roots else None)
        if not isinstance(v.type, TensorType):
            return self.low.scalar(v)
        key = (id(v), k if kind in ("q", "col", None) else 0)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._value(v, k, kind)
        return hit

    def _value(self, v: SSAValue, k: int, kind: str | None) -> SSAValue:
        e = self.e
        if id(v) in self.roots:
            return self.raw[k]
        op = v.owner
        name = op.name
        if name in ("nv_tileaa.tiled_load", "nv_tileas.tiled_load"):  # a per-column vector (the analysis said)
            return self._column(op, k)
        if name in (*_PROLOGUE_SHAPE_OPS, *BROADCASTS, *EXPANDS):
            return self.value(op.operands[0], k)
        if name == "arith.constant":
            return self.low._splat_constant(op)
        if name == "nv_tileaa.splat":
            return self.low.scalar(op.operands[0])
        if name == "nv_tileaa.fp_to_fp":
            from tileorch.transforms.tileaa_to_simt import convert_float

            return convert_float(e, self.value(op.operands[0], k), op.results[0].type.element_type)
        if name == "nv_tileaa.reduce":
            body = op.regions[0].blocks.first
            comb = next(o for o in body.ops if o is not body.last_op)
            acc = e.to_f32(self.value(op.operands[0], 0))
            for x in range(1, len(self.raw)):
                acc = lower_scalar_op(e, comb, [acc, e.to_f32(self.value(op.operands[0], x))], f32)
            m = 1
            while m < self.per:
                other = e.v(llvm.InlineAsmOp(f"shfl.sync.bfly.b32 $0, $1, {m}, 31, -1;", "=f,f", [acc], [f32]))
                acc = lower_scalar_op(e, comb, [acc, other], f32)
                m *= 2
            return acc
        if name.startswith("arith.") or name in ELEMENTWISE:
            args = [self.value(x, k) if isinstance(x.type, TensorType) else self.low.scalar(x) for x in op.operands]
            rt = op.results[0].type
            return lower_scalar_op(e, op, args, rt.element_type if isinstance(rt, TensorType) else rt)
        raise unsupported(op, f"op '{name}' in a rowwise prologue")

    def _column(self, ld: Operation, k: int) -> SSAValue:
        """Element ``cols[k]`` of a per-column vector loaded before the loop (zero out of bounds)."""
        e = self.e
        shape = list(ld.result.type.get_shape())
        zero = Coord(e.const(0), None)
        coords = tuple(Coord(self.cols[k], 1) if x != 1 else zero for x in shape)
        offset, ok = _element_address(self.low, ld, coords)
        offset = e.v(arith.SelectOp(ok, offset, e.v(arith.ConstantOp(IntegerAttr(0, i64)))))
        elt = ld.result.type.element_type
        if isinstance(elt, BFloat16Type):
            raise unsupported(ld, "a bf16 per-column vector in a rowwise prologue")
        mem = self.low.scalar(ld.view).memref
        x = e.to_f32(e.load(e.gep(mem.ptr, offset, memory_type(elt), GLOBAL_PTR), memory_type(elt)))
        return e.v(arith.SelectOp(ok, x, e.v(arith.ConstantOp(FloatAttr(0.0, f32)))))


class _QLowering(FragmentLowering):
    """A Q prologue's value at one element (:meth:`_Kernel.q_prologue`): the load's values
    (``q_roots``, by id) are ``q_element``; the map is position-independent, so the coordinates
    are any."""

    q_roots: set = field(default_factory=set)
    q_element: SSAValue | None = None

    def _at(self, v: SSAValue, coords: tuple[Coord, ...]) -> SSAValue:
        if id(v) in self.q_roots:
            return self.q_element
        return super()._at(v, coords)


def _wgmma_reg_a(e: Emitter, a: list[SSAValue], desc: SSAValue, acc: list[SSAValue], n: int, dtype: str,
                 trans_b: int) -> list[SSAValue]:
    regs = n // 2
    outs = ", ".join(f"${i}" for i in range(regs))
    fp8 = dtype in _FP8.values()  # k32, B K-major: no transpose operand for 8-bit types
    text = ("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
            f"wgmma.mma_async.sync.aligned.m64n{n}k{32 if fp8 else 16}.f32.{dtype}.{dtype} {{{outs}}}, "
            f"{{${regs}, ${regs + 1}, ${regs + 2}, ${regs + 3}}}, ${regs + 4}, p, 1, 1{'' if fp8 else f', {trans_b}'};\n}}")
    constraints = ",".join(["=f"] * regs + ["r"] * 4 + ["l"] + [str(i) for i in range(regs)])
    st = llvm.LLVMStructType.from_type_list([f32] * regs)
    res = e.v(llvm.InlineAsmOp(text, constraints, [*a, desc, *acc], [st], has_side_effects=True))
    return [e.v(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), res, f32)) for i in range(regs)]


def _frag_regs(width: int) -> list[tuple[int, int, int]]:
    """(h, g, j) of each register of a [64, width] fragment (width 1: a row vector)."""
    if width == 1:
        return [(h, 0, 0) for h in range(2)]
    out = [None] * (width // 2)
    for g in range(width // 8):
        for h in range(2):
            for j in range(2):
                out[4 * g + 2 * h + j] = (h, g, j)
    return out


def _element_address(low: FragmentLowering, st: Operation, coords: tuple[Coord, ...]) -> tuple[SSAValue, SSAValue]:
    """(element offset (i64) from the base pointer of the store ``st``'s array, in-bounds
    predicate) of tile coordinates ``coords`` of the store."""
    e = low.e
    view = low.scalar(st.view)
    mem = view.memref
    offset, ok = None, None
    for i, c in enumerate(coords):
        idx = low._i32(low.scalar(st.indices[i]))
        dim = view.order[i]
        g = e.add_i(e.once(("tile origin", idx, view.step[i]), lambda: e.mul_i(idx, e.const(view.step[i]))),
                    c.value)
        inb = e.v(arith.AndIOp(e.v(cmpi(g, mem.shape[dim], "slt")), e.v(cmpi(g, e.const(0), "sge"))))
        ok = inb if ok is None else e.v(arith.AndIOp(ok, inb))
        stride = mem.strides[dim]
        term = e.v(arith.MuliOp(e.v(arith.ExtSIOp(g, i64)),
                                e.once(("i64 stride", stride), lambda: e.v(arith.ExtSIOp(stride, i64)))))
        offset = term if offset is None else e.v(arith.AddiOp(offset, term))
    return offset, ok


def _store_element(low: FragmentLowering, coords: tuple[Coord, ...], value: SSAValue, st: Operation | None = None,
                   pred: SSAValue | None = None) -> None:
    """Predicated global store of ``value`` (f32) at tile coordinates ``coords`` of the store ``st``
    (the accumulator tile's unless given), in bounds and where ``pred`` (if given) holds."""
    e = low.e
    st = low.store if st is None else st
    if _scattered(st):  # ct.scatter: the element's own pointer and mask (the program's index math at the element)
        ptr = low.at(st.ptr, coords)
        ok = pred
        if st.mask is not None:
            m = low.at(st.mask, coords)
            ok = m if ok is None else e.v(arith.AndIOp(ok, m))
    else:
        mem = low.scalar(st.view).memref
        offset, ok = _element_address(low, st, coords)
        ok = ok if pred is None else e.v(arith.AndIOp(pred, ok))
    elt = _stored(st).type.element_type
    if isinstance(elt, BFloat16Type):
        stored, x = i16, e.f32_to_bf16_bits(value)
    elif isinstance(elt, Float16Type):
        stored, x = memory_type(elt), e.v(arith.TruncFOp(value, elt))
    elif isinstance(elt, Float32Type):
        stored, x = f32, value
    else:
        raise unsupported(st, f"stores {elt} values")

    def then(b: Emitter):
        b.store(x, ptr if _scattered(st) else b.gep(mem.ptr, offset, stored, GLOBAL_PTR))

    if ok is None:
        then(e)
    else:
        e.if_(ok, then)


EPILOGUE_ENV = "TILEORCH_ATTN_EPILOGUE"


def packed_epilogue_enabled() -> bool:
    """Packed accumulator-tile stores (:func:`_packed_store_test`): the default;
    ``TILEORCH_ATTN_EPILOGUE=scalar`` stores element by element (read at each compile, part of
    the disk-cache key).  Measured on the H200 (attention_epilogue_ab_2026-12-02g.json): 1.11-1.12x
    at seq 1k, 1.03-1.05x at 4k, 0.99-1.02x at 16k."""
    return settings.value(EPILOGUE_ENV) != "scalar"


def _packed_store_test(low: FragmentLowering, st: Operation, cols: int | None = None) -> SSAValue | None:
    """The run-time test (uniform over the CTA) under which the accumulator tile's store ``st``
    writes 32-bit column pairs without predicates (:func:`_store_pair`), or None when it never can:
    a 16-bit element type, the tile's last dimension the array's innermost with static stride 1,
    no static outer stride odd.  The test: the whole tile is in bounds (each index's first element
    ``idx * step`` at least 0 and ``idx * step + tile`` within the array's extent), the dynamic
    outer strides even and the base 4-byte aligned (every pair's address is then 4-byte aligned:
    the pair's column ``8g + 2(t % 4)`` is even).  ``cols``: the columns stored where fewer than the tile's
    (:attr:`ChainedKernel.head_dim_width`): the test's extent along the tile's last dimension."""
    if not isinstance(st.tile.type.element_type, (Float16Type, BFloat16Type)):
        return None
    e = low.e
    view = low.scalar(st.view)
    mem = view.memref
    static = mem.static_strides
    if view.order[-1] != len(static) - 1 or static[-1] != 1 or any(x >= 0 and x % 2 for x in static[:-1]):
        return None
    ok = None

    def both(a: SSAValue | None, b: SSAValue) -> SSAValue:
        return b if a is None else e.v(arith.AndIOp(a, b))

    for i, index in enumerate(st.indices):
        first = e.mul_i(low._i32(low.scalar(index)), e.const(view.step[i]))
        end = e.add_i(first, e.const(cols if cols is not None and i == len(st.indices) - 1 else view.tile[i]))
        dim = view.order[i]
        ok = both(ok, e.v(cmpi(first, e.const(0), "sge")))
        ok = both(ok, e.v(cmpi(end, mem.shape[dim], "sle")))
    for dim, stride in enumerate(mem.strides[:-1]):
        if static[dim] < 0:
            ok = both(ok, e.v(cmpi(e.v(arith.AndIOp(stride, e.const(1))), e.const(0), "eq")))
    addr = e.v(llvm.PtrToIntOp(mem.ptr, i64))
    return both(ok, e.v(cmpi(e.v(arith.AndIOp(addr, e.const(3, i64))), e.const(0, i64), "eq")))


def _store_pair(low: FragmentLowering, coords: tuple[Coord, ...], lo: SSAValue, hi: SSAValue) -> None:
    """Unpredicated 32-bit global store of the pair (``lo`` at ``coords``, ``hi`` in the next
    column) of the accumulator tile's store, packed with ``cvt.rn.{f16,bf16}x2.f32`` of the store's
    element type (the rounding of the per-element cast: not the operands' type, which an f16
    program storing bf16 differs from); the caller has tested the tile (:func:`_packed_store_test`)."""
    e, st = low.e, low.store
    mem = low.scalar(st.view).memref
    offset, _ = _element_address(low, st, coords)
    word = pack16(e, lo, hi, _DT[type(st.tile.type.element_type)])
    e.add(llvm.StoreOp(word, e.gep(mem.ptr, offset, i16, GLOBAL_PTR), alignment=4))


def _row_divided(ck: ChainedKernel, site_of: Callable, at: _Site, rows: list,
                 cols: dict) -> tuple[dict, SSAValue] | None:
    """The stored tile's elements with its IEEE divisions evaluated by :class:`RowDivision`,
    appended to ``at``: ((h, g, j) -> f32 value, i1 in range: the values equal ``div.rn``'s), or
    None when the stored value divides nothing that way (nothing is appended then)."""
    pre = site_of()
    pre.low.provided = dict(at.low.provided)
    pre.low.row_div = RowDivision(pre.e)
    values = {(h, g, j): pre.low.element(Coord(rows[h], 0), Coord(cols[(g, j)], 1)) for h, g, j in _frag_regs(ck.dv)}
    ok = pre.low.row_div.in_range()
    if ok is None:
        for op in reversed(list(pre.tmp.ops)):
            pre.tmp.erase_op(op, safe_erase=False)
        return None
    for op in list(pre.tmp.ops):
        op.detach()
        at.tmp.add_op(op)
    return values, ok


class _Site:
    """One place in the lowered kernel where program values are evaluated."""

    def __init__(self, ck: ChainedKernel, args: list[SSAValue], coords: dict | None = None,
                 tile_coord: list[SSAValue] | None = None, store: Operation | None = None):
        self.ck = ck
        self.store = ck.store if store is None else store  # the stored tile the evaluation aligns with
        self.tmp = Block()
        self.e = Emitter(self.tmp, 128)
        self.low = FragmentLowering(ck.kernel.body.blocks.first, None, self.store, KernelEnv(args, [], []), self.e)
        self.low.env.grid = ck.launch_grid
        self.low.loop_iv = ck.loop.body.blocks.first.args[0]
        self.low.exp2_fma = exp2_fma_period(ck.d, ck.dv)
        self.low.uniform_divs = ck.uniform_divided if loop_div_enabled() else None
        self.low.small_tanh = ck.small_tanh if loop_tanh_enabled() else None
        self.low.softmax_exps = ck.softmax_exps if softmax_exp_enabled() else None
        self.low.row_loads = ck.row_loads if row_prefetch_enabled() else None
        self.low.unit_coords_own = ck.rows == 1  # a one-row tile padded to 64 rows (PADDED_ROWS)
        self.low.stored_transposed = ck.store_transposed and self.store is ck.store
        if coords is not None:
            self.bind(coords, tile_coord)

    def bind(self, coords: dict, tile_coord: list[SSAValue]) -> None:
        low, e = self.low, self.e
        low.rows, low.cols = coords["rows"], coords["cols"]
        low.row_of = {id(r): h for h, r in enumerate(coords["rows"])}
        low.col_of = {id(c): gj for gj, c in coords["cols"].items()}
        low.zero = e.const(0)
        low.env.tile_coord = tile_coord
        # the accumulator tile's first global row/column (loads aligned with the store read there)
        st = self.store
        if _scattered(st):  # (ct.scatter: no tile origin; its addresses are per element)
            low.env.origin = [e.const(0), e.const(0)]
            return
        tile = ints(st.view.type.tile)
        if self.ck.rows_only:  # a row vector's store: its rows' dimension, no columns
            r = max(i for i, x in enumerate(st.tile.type.get_shape()) if x != 1)
            low.env.origin = [e.mul_i(low._i32(low.scalar(st.indices[r])), e.const(tile[r])), e.const(0)]
            return
        low.env.origin = [e.mul_i(low._i32(low.scalar(st.indices[d])), e.const(tile[d]))
                          for d in store_dims(st, low.stored_transposed)]

    def at(self, v: SSAValue, h: int, g: int | None, j: int) -> SSAValue:
        row = Coord(self.low.rows[h], 0)
        if g is None and isinstance(v.type, TensorType) and len(v.type.get_shape()) == 1:
            return self.low.at(v, (row,))  # a [tm] row vector: its row coordinate only
        col = Coord(self.low.cols[(g, j)], 1) if g is not None else Coord(self.e.const(0), None)
        return self.low.at(v, (row, col))

    def tile_regs(self, v: SSAValue, width: int) -> list[SSAValue]:
        return [self.at(v, h, None if width == 1 else g, j) for h, g, j in _frag_regs(width)]


def kv_windows(ck: ChainedKernel) -> bool:
    """A K or V tile is a row window (:attr:`Operand.row_limit`): the plain loop zeroes its rows past the window's end
    after each full wait, then the warp group's named barrier (the pipelined loop, ping-pong: not with it)."""
    return ck.b1.row_limit is not None or ck.b2.row_limit is not None


WINDOW_REMARK = ("chained-dots tier (TMA + WGMMA): this {what} tile is a row window of the array (rows [start, start "
                 "+ n)) loaded by TMA at row start + {x} of the whole array's tensor map; each consumer warp group "
                 "zeroes {whose} rows past the window's end in shared memory (the next sequence's rows, or TMA's zero "
                 "fill: any values, Inf and NaN too) where a tile straddles it, then fence.proxy.async and its named "
                 "barrier{loop}")


def _located_choices(ck: ChainedKernel) -> list[str]:
    """Remarks at the user's lines for the shapes the kernel takes by a choice of its own: a tile of
    :data:`PADDED_ROWS` rows (the WGMMA's M padded to 64), an accumulator tile stored transposed
    (:attr:`ChainedKernel.store_transposed`) and a first-dot A whose rows run along two dimensions
    (:attr:`Operand.group_dim`)."""
    from tileorch.diagnostics import format_error
    from tileorch.transforms.tileas.peeled_first_step import REMARKS_ATTR

    earlier = ck.kernel.attributes.get(REMARKS_ATTR)  # the tier's rewrites before this lowering
    out = [x.data for x in earlier.data] if isinstance(earlier, ArrayAttr) else []
    if ck.tile_rows:
        box = (f"a box of {ck.a0.group} x {ck.a0.box_rows} rows (the group dimension's next elements"
               if ck.a0.group_dim >= 0 else f"a box of {ck.tm} rows (the array's next rows")
        out.append(format_error(ck.dot1, f"chained-dots tier (TMA + WGMMA): the {ck.tile_rows}-row tile runs as "
                                         f"WGMMAs of M = {ck.tm}: the Q tile is loaded as {box}, zero past the "
                                         f"array's end); the rows past {ck.tile_rows} are computed and never "
                                         "stored", "remark"))
    for pro, which, how in ((ck.q_prologue, "Q", "in place to the Q tile after its load, each consumer warp group "
                             "its 64 rows (two threads per row)"),
                            (ck.b_prologue, "K", "in place to each K tile in its ring stage by every consumer "
                             "thread, then a barrier of the consumers; " + (
                                 "tile j+1's while tile j's first dot runs (TILEORCH_ATTN_K_AHEAD)" if ck.k_ahead
                                 else "the loop runs without overlap"))):
        if pro is not None and pro.rowwise:
            out.append(format_error(pro.top.owner, f"chained-dots tier (TMA + WGMMA): this {which} operand, computed "
                                                   "from its tile with row reductions, is applied " + how + " "
                                                   "(fence.proxy.async before the WGMMAs read it)", "remark"))
    if ck.k_step2 != 16:  # an e4m3 / e5m2 second dot: P's packing and V's launch copy said at the dot
        b2 = ck.b2
        out.append(format_error(ck.dot2, f"chained-dots tier (TMA + WGMMA): P @ V multiplies {ck.dtype_p} tiles: "
                                         f"{ck.tn // 32} wgmma.mma_async m64n{ck.dv}k32.f32.{ck.dtype_p}.{ck.dtype_p} "
                                         f"per key tile, P converted in registers (cvt.rn.satfinite.{ck.dtype_p}x2.f32, "
                                         "astype's rounding: nearest even, saturating) into the register A fragment "
                                         "in the accumulator's own element order (no shuffle: each register's four "
                                         "keys are 8 apart in pairs), V read K-major from a launch-time copy "
                                         f"[.., D, S16] of V [.., S, D] with each 16 keys permuted alike "
                                         f"({KEY_MAJOR_COPY}: one read and one write of V's bytes per launch, "
                                         f"{b2.rows} x {b2.cols}-byte boxes)", "remark"))
    if ck.k_step != 16:  # an e4m3 / e5m2 first dot: the instruction and its accumulation said at the dot
        from tileorch.transforms.tileas.fp8_promotion import chained_first_dot

        out.append(format_error(ck.dot1, chained_first_dot(ck.dtype, ck.d, ck.sn, ck.k_step), "remark"))
    for op, what in ((ck.a0, "Q"), (ck.b1, "K"), (ck.b2, "V")):
        if op.row_limit is not None:
            loop = "" if what == "Q" else (" after every K / V full barrier wait; the key loop runs without overlap "
                                           "(not the pipelined loop: its first tile's wait is under a guard the "
                                           "checker does not read with a named barrier; nor the warp groups' "
                                           "ping-pong, TILEORCH_ATTN_PINGPONG)")
            out.append(format_error(op.load, WINDOW_REMARK.format(what=what, x="the tile's first row" if what == "Q"
                                                                   else "j BN", whose="its" if what == "Q" else
                                                                   "the stage's", loop=loop), "remark"))
    if ck.store_transposed:
        out.append(format_error(ck.store, f"chained-dots tier (TMA + WGMMA): this [{ck.dv}, {ck.rows}] tile is the "
                                          "accumulator tile transposed: each thread stores its elements at the tile's "
                                          "(column, row), one element a store (no packed column pairs)", "remark"))
    if ck.a0.group_dim >= 0:
        bm = ck.a0.box_rows
        g = ck.rows // bm  # the program's group (the box may take more: a padded tile)
        out.append(format_error(ck.a0.load, f"chained-dots tier (TMA + WGMMA): this tile's {g} x {bm} rows are one "
                                            f"TMA box that lands as {g * bm} consecutive rows of the first dot's M; "
                                            f"the result's row r is stored at element (r // {bm}, r % {bm}) of "
                                            f"the ({g}, {bm}) rows", "remark"))
    for k, fd in enumerate(ck.firsts[1:] if ck.own_a else [], 1):
        out.append(format_error(fd, f"chained-dots tier (TMA + WGMMA): first dot {k + 1} reads its own A tile (loaded "
                                    "once beside the first dot's, in the same Q slot): its own WGMMA chain of "
                                    f"n = {ck.tn} per step, its result columns [{k * ck.tn}, {(k + 1) * ck.tn}) of "
                                    "the first dots' joint S", "remark"))
    for sd in ck.seconds or [SecondDot(ck.dot2, ck.b2, ck.b2_in_b1)]:
        if sd.b2_in_b1 >= 0:
            how = "N-major" if not sd.b2.k_major else "K-major"
            out.append(format_error(sd.dot, f"chained-dots tier (TMA + WGMMA): this dot's B is the tile first dot "
                                            f"{sd.b2_in_b1 + 1} reads (one load per step): its WGMMAs read it {how} "
                                            "in that dot's ring stage", "remark"))
    if ck.seconds:
        out.append(format_error(ck.dot2, f"chained-dots tier (TMA + WGMMA): {len(ck.seconds)} second dots read the "
                                         "chain, each into its own accumulator carried by the loop; their Ps packed chunk by chunk into register A fragments, the loop "
                                         "without overlap (one S and the second dots per step)", "remark"))
    return out


def _scattered(op: Operation) -> bool:
    """Whether ``op`` is a pointer-tile store (``ct.scatter``: ``nv_tileaa.store``)."""
    return op.name == "nv_tileaa.store"


def _stored(st: Operation) -> SSAValue:
    """The tile a ``tiled_store`` or a ``ct.scatter`` (:func:`_scattered`) writes."""
    return st.value if _scattered(st) else st.tile


def _store_group(st: Operation) -> tuple[int, int, int] | None:
    """(group dimension, rows dimension, the rows dimension's extent) when the tile ``st`` stores
    has two dimensions before the last with an extent other than 1 (GQA's ``(1, G, BM, dv)``: the
    accumulator's row ``r`` is element ``(r // BM, r % BM)``), else None."""
    if _scattered(st):
        return None
    shape = list(st.tile.type.get_shape())
    wide = [i for i, x in enumerate(shape[:-1]) if x != 1]
    return (wide[0], wide[1], shape[wide[1]]) if len(wide) == 2 else None


def _fragment_width(v: SSAValue, tm: int) -> int | None:
    """X of a ``[tm, X]`` tile the accumulator layout holds (1: a row vector, ``[tm, 1]`` or ``[tm]``),
    else None."""
    if not isinstance(v.type, TensorType):
        return None
    shp = list(v.type.get_shape())
    if shp == [tm]:
        return 1
    if len(shp) == 2 and shp[0] == tm and (shp[1] == 1 or (shp[1] % 8 == 0 and shp[1] <= 256)):
        return shp[1]
    return None


def _lower_branch(ck: ChainedKernel, br: scf.IfOp, site: _Site, args: list[SSAValue], coords: dict,
                  tile_coord: list[SSAValue], program_iv: SSAValue, iv: SSAValue) -> None:
    """An ``scf.if`` on a scalar inside the loop whose results are accumulator-shaped tiles (a
    mask applied only to some key tiles): one branch of the lowered kernel computing every
    register of its results on each side, so the side not taken costs nothing."""
    widths = [_fragment_width(r, ck.rows) for r in br.results]
    sides = []
    for region in (br.true_region, br.false_region):
        side = _Site(ck, args, coords, tile_coord)
        side.low.scalars[program_iv] = iv
        side.low.provided = dict(site.low.provided)
        if region.blocks:
            yielded = region.blocks.first.last_op.operands
            regs = [x for v, w in zip(yielded, widths) for x in side.tile_regs(v, w)]
        else:
            regs = []
        sides.append((side, regs))
    types = [x.type for x in sides[0][1]]
    if [x.type for x in sides[1][1]] != types:
        raise unsupported(br, "branches whose sides compute different register types")
    cond = site.low.scalar(br.cond)
    regions = []
    for side, regs in sides:
        side.tmp.add_op(scf.YieldOp(*regs))
        regions.append(Region(side.tmp))
    op = site.e.add(scf.IfOp(cond, types, regions[0], regions[1]))
    k = 0
    for r, w in zip(br.results, widths):
        n = 2 if w == 1 else w // 2
        site.low.provided[r] = (w, list(op.results[k:k + n]))
        k += n


def _lower_plain_loop(kb: _Kernel, site_of, n_tiles: SSAValue, init_vals: list[SSAValue],
                      pingpong: bool, masks: list[Operation] = ()) -> list[SSAValue]:
    """The consumer loop without overlap: both dots of tile ``j`` in iteration ``j``; the loop's
    results (every carried register, in ``ck.carried`` order).  ``masks``: the loop's whole-tile masks
    (:func:`interior_masks`; :func:`plain_masks_enabled`): each tile's ops up to P are versioned
    (:func:`_versioned`) where :func:`plain_accumulator` allows it."""
    ck, off = kb.ck, kb.off
    acc_k = plain_accumulator(ck) if masks else None
    body = ck.loop.body.blocks.first
    kb.wait_q()
    kb.hoist_window_limits()
    if pingpong:
        pp_bar, pp_next, pp_has = kb.pingpong_before(n_tiles)
    threads = kb.ci[kb.plan.consumer_threads]
    # TILEORCH_ATTN_K_AHEAD: tile j+1's K prologue while tile j's first dot runs (tile 0's before the loop)
    k_ahead = ck.b_prologue is not None and k_ahead_enabled() and kb.plan.stages >= K_AHEAD_MIN_STAGES
    if ck.b_prologue is not None and k_ahead_enabled() and not k_ahead:
        ck.k_ahead_off = (f"the K/V ring has {kb.plan.stages} stage(s): the loop would hold tiles j and j+1 at once "
                          f"(at least {K_AHEAD_MIN_STAGES})")

    def k_prologue_of(j: SSAValue, pre: str) -> None:
        """Wait for tile ``j``'s full barrier and apply the K prologue to its stage."""
        st_n, ph_n = kb.stage_index(j, pre)
        _, fbar_n = kb.stage_barrier(f"{pre}fb", f"{pre}fbar", st_n, off["full"])
        kb.try_wait(fbar_n, ph_n, "K/V ring full barrier (consumer)", kb.off["full"])
        kb.k_prologue(kb.v(arith.ExtUIOp(st_n, i64), f"{pre}st_l"))

    if k_ahead:
        ck.k_ahead = True
        any_tile = kb.v(cmpi(n_tiles, kb.small(0), "sgt"), "ka_any")
        _if_values(kb, any_tile, [], lambda: (k_prologue_of(kb.small(0), "ka0"), [])[1], lambda: [])

    def iteration(le: Emitter, j: SSAValue, regs: list[SSAValue]) -> list[SSAValue]:
        with kb.into(le.block) as e:
            st, ph, st_l, fb_off0, fbar = kb.tile_stage(j, regs, "r")
            ebar = kb.gep(kb.v(arith.AddiOp(fb_off0, kb.ci[off["empty"]]), "eb_off"), "ebar")
            kb.try_wait(fbar, ph, "K/V ring full barrier (consumer)", kb.off["full"])
            kb.zero_stage_windows(j, st_l, "zw")
            if ck.b_prologue is not None and not k_ahead:  # K computed from its tile: in place, then the WGMMAs
                kb.k_prologue(st_l)
            db1 = kb.stage_address(st_l, kb.b1_stage, kb.db1_1, "b1_so", "db1")
            # 16-byte units of this stage's B2 tile
            b2_addr = kb.stage_address(st_l, kb.b2_stage, kb.sbase2, "b2_so", "b2_addr")
            # the program's ops between and after the dots
            s = site_of()
            low = s.low
            low.scalars[body.args[0]] = j
            k = 0
            for (i, w) in ck.carried:
                n = 2 if w == 1 else w // 2
                low.provided[body.args[1 + i]] = (w, regs[k:k + n])
                k += n
            # S: the first dot's accumulator input, then its result
            s_init = _s_init(kb, site_of, j, low.provided, "s_init")
            if pingpong:
                e.add(nvvm.BarrierOp(pp_bar, threads))
            e.add(nvvm.WgmmaFenceAlignedOp())
            s_last = kb.s_chain("s", s_init, db1)
            e.add(nvvm.WgmmaGroupSyncAlignedOp())
            if k_ahead:  # tile j+1's K normalised in its stage while this tile's first dot runs
                j1 = kb.v(arith.AddiOp(j, kb.small(1)), "ka_j1")
                more = kb.v(cmpi(j1, n_tiles, "slt"), "ka_more")
                _if_values(kb, more, [], lambda: (k_prologue_of(j1, "ka"), [])[1], lambda: [])
            e.add(nvvm.WgmmaWaitGroupSyncOp(0))
            s_regs = _s_regs(ck, s.e, s_last)
            versioned = None
            if masks and not ck.seconds and acc_k is not None:  # the copy without mask math (plain_masks_enabled)
                others = [k for k in range(len(ck.carried)) if k != acc_k]
                given = {body.args[1 + ck.carried[k][0]]: low.provided[body.args[1 + ck.carried[k][0]]]
                         for k in others}

                def part(site: _Site):
                    site.low.scalars[body.args[0]] = j
                    site.low.provided.update(given)
                    ck.provide_s(site.low.provided, list(s_regs))
                    for br in ck.branches:
                        site_of.branch(br, site, body.args[0], j)
                    return (_p_regs(site, ck),
                            [x for k in others for x in site.tile_regs(ck.yields[k], ck.carried[k][1])])

                p_v, new_v = _versioned(ck, site_of, s, j, masks, part,
                                        _frontier(ck.dot2.acc, body.args[1 + ck.carried[acc_k][0]]))
                ck.provide_s(low.provided, list(s_regs))
                versioned = (p_v, {k: new_v[sum(_sizes(ck)[kk] for kk in others[:i]):][:_sizes(ck)[k]]
                                   for i, k in enumerate(others)})
            else:
                ck.provide_s(low.provided, s_regs)
                for br in ck.branches:  # the loop's branches on scalars: real branches over whole fragments
                    site_of.branch(br, s, body.args[0], j)
            # the second dot: C per element, P packed pairwise into the register A fragment
            if ck.seconds:  # a chain feeding several accumulators
                _several_second_dots(kb, s, st_l)
            else:
                c_in = s.tile_regs(ck.dot2.acc, ck.dv)
                p = versioned[0] if versioned is not None else _p_regs(s, ck)
                # every register the WGMMAs read is written before the fence (else ptxas serializes them)
                flat = _pack_p(s.e, p, ck.dtype_p)
                a_regs = [flat[4 * c:4 * c + 4] for c in range(ck.tn // ck.k_step2)]
                descs = _b2_descriptors(ck, s.e, b2_addr)
                s.e.add(nvvm.WgmmaFenceAlignedOp())
                acc = c_in
                for c in range(ck.tn // ck.k_step2):
                    acc = _wgmma_reg_a(s.e, a_regs[c], descs[c], acc, ck.dv, ck.dtype_p, 0 if ck.b2.k_major else 1)
                low.provided[ck.dot2.result] = (ck.dv, acc)
            new_regs = []
            for k, ((i, w), y) in enumerate(zip(ck.carried, ck.yields)):
                new_regs += versioned[1][k] if versioned is not None and k in versioned[1] else s.tile_regs(y, w)
            kb.splice(s.tmp)
            e.add(nvvm.WgmmaGroupSyncAlignedOp())
            if pingpong:
                e.add(nvvm.BarrierArriveOp(pp_next, threads))
            e.add(nvvm.WgmmaWaitGroupSyncOp(0))
            # this thread's last read of stage st is done: release it to the producer
            e.add(nvvm.MBarrierArriveOp(ebar, with_state=False))
        return new_regs

    outs = [_hint(x, "out") for x in _for(kb.e, kb.small(0), n_tiles, kb.small(1), init_vals,
                                          [f32] * len(init_vals), iteration)]
    if pingpong:
        kb.pingpong_after(pp_has)
    return outs


def _several_second_dots(kb: _Kernel, s: _Site, st_l: SSAValue) -> None:
    """Every second dot of a chain feeding several accumulators (:attr:`ChainedKernel.seconds`) for
    the stage ``st_l`` (i64) at site ``s`` (S provided): each dot's C and P evaluated and P packed
    into its register A fragment, then one fence and each dot's ``tn / 16`` register-A WGMMAs from
    its B tile (a first dot's tile in the B1 stage, or the B2 tile); each result provided."""
    ck, e = kb.ck, s.e
    # the Ps chunk by chunk (16 columns: 8 registers each), every dot's chunk packed before the next
    # chunk is evaluated: S's registers die as the packed ones are made (all Ps in f32 beside S and
    # the accumulators spill at head dim 128)
    frag = _frag_regs(ck.tn)
    a_regs: dict[int, list] = {id(sd): [] for sd in ck.seconds}
    for c in range(ck.tn // 16):
        for sd in ck.seconds:
            p = [s.at(sd.dot.lhs, h, g, j) for h, g, j in frag[8 * c:8 * c + 8]]
            a_regs[id(sd)].append([pack16(e, p[2 * q], p[2 * q + 1], ck.dtype_p) for q in range(4)])
    issued = []
    for k, sd in enumerate(ck.seconds):
        c_in = s.tile_regs(sd.dot.acc, ck.dv)
        if sd.b2_in_b1 < 0:
            base, stride = kb.sbase2, kb.b2_stage
        else:  # the first dot's tile: its boxes in the B1 stage
            units = _hint(e.const((kb.off["b1"] + ck.b1_chunk_offset(sd.b2_in_b1, 0)) // 16, i64), f"y{k}_base")
            base, stride = _hint(e.v(arith.AddiOp(kb.sbase, units)), f"y{k}_sbase"), kb.b1_stage
        addr = _hint(e.v(arith.AddiOp(base, e.v(arith.MuliOp(st_l, stride)))), f"y{k}_addr")
        issued.append((sd, c_in, a_regs[id(sd)], _b2_descriptors(ck, e, addr, ck.b2_view_of(sd.b2, sd.b2_in_b1))))
    e.add(nvvm.WgmmaFenceAlignedOp())  # every register the WGMMAs read is written before the fence
    for sd, c_in, a_regs, descs in issued:
        acc = c_in
        for c in range(ck.tn // 16):
            acc = _wgmma_reg_a(e, a_regs[c], descs[c], acc, ck.dv, ck.dtype_p, 0 if sd.b2.k_major else 1)
        s.low.provided[sd.dot.result] = (ck.dv, acc)


def _s_init(kb: _Kernel, site_of, iv: SSAValue, provided: dict, name: str) -> SSAValue:
    """The first dot's accumulator input (a struct of ``tn / 2`` registers, ``%{name}``),
    evaluated at the insertion point with the loop's iv ``iv`` and the fragments ``provided``."""
    ck = kb.ck
    body = ck.loop.body.blocks.first
    s0 = site_of()
    s0.low.scalars[body.args[0]] = iv
    s0.low.provided = dict(provided)
    s_in = [x for dot in (ck.firsts or [ck.dot1]) for x in s0.tile_regs(dot.acc, ck.tn)]
    parts = [s_in[k * ck.tn // 2:(k + 1) * ck.tn // 2] for k in range(ck.k1)] if ck.own_a else [s_in]
    structs = []
    for regs in parts:
        sv = s0.e.v(llvm.UndefOp(llvm.LLVMStructType.from_type_list([f32] * len(regs))))
        for r, x in enumerate(regs):
            sv = s0.e.v(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [r]), sv, x))
        structs.append(sv)
    if ck.own_a:  # one struct per first dot's own chain (_Kernel.s_chain)
        kb.splice(s0.tmp)
        return tuple(_default_name(sv, f"{name}{k}") for k, sv in enumerate(structs))
    return kb.splice(s0.tmp, structs[0], name)


def _b2_descriptors(ck: ChainedKernel, e: Emitter, b2_addr: SSAValue, view: Operand | None = None) -> list[SSAValue]:
    """The second dot's B descriptor of each k16 step from ``b2_addr`` (16-byte units of its stage;
    ``view``: the operand as the descriptors read it, by default :attr:`ChainedKernel.b2_view`).

    Each descriptor is assembled from its two 32-bit words (``mov.b64 {lo, hi}``): the low word is
    the step's start address (14 bits: no carry) OR'ed with the leading offset, the high word the
    constant stride / swizzle bits.  Written as a 64-bit ``(addr | C) + off`` (LLVM folds it to
    ``addr + (C + off)``), ptxas 13.0 dropped the high word's add (``UIADD3.X``) of the last tile's
    descriptors in the overlapped kernel: the second dot read its B operand unswizzled with a zero
    stride (wrong or NaN outputs, out-of-range shared reads on the H200)."""
    b2_const, b2_offs = _b_steps(view or ck.b2_view, ck.tn // ck.k_step2)
    lo_bits, hi_bits = b2_const & 0xFFFFFFFF, b2_const >> 32
    addr = e.v(arith.TruncIOp(b2_addr, i32))
    hi = e.const(hi_bits - (1 << 32) if hi_bits >> 31 else hi_bits)
    out = []
    for off in b2_offs:
        start = e.add_i(addr, e.const(off // 16)) if off else addr
        lo = e.v(arith.OrIOp(start, e.const(lo_bits - (1 << 32) if lo_bits >> 31 else lo_bits)))
        out.append(e.v(llvm.InlineAsmOp("mov.b64 $0, {$1, $2};", "=l,r,r", [lo, hi], [i64])))
    return out


def _second_dot(ck: ChainedKernel, e: Emitter, a_flat: list[SSAValue], c_in: list[SSAValue],
                b2_addr: SSAValue) -> list[SSAValue]:
    """``acc = P B2 + C`` issued and committed (not waited for): ``tn / k_step2`` register-A WGMMAs."""
    descs = _b2_descriptors(ck, e, b2_addr)
    e.add(nvvm.WgmmaFenceAlignedOp())
    acc = c_in
    for c in range(ck.tn // ck.k_step2):
        acc = _wgmma_reg_a(e, a_flat[4 * c:4 * c + 4], descs[c], acc, ck.dv, ck.dtype_p, 0 if ck.b2.k_major else 1)
    e.add(nvvm.WgmmaGroupSyncAlignedOp())
    return acc


PIPELINED_STAGES = 2
"""The fewest K/V stages the pipelined consumer runs on: it waits for tile ``j`` before it releases
tile ``j - 1``, so on one stage the producer could never load tile ``j`` (``tileorch check`` finds
the deadlock: tests/unit/test_check_chained.py); a one-stage kernel takes the plain loop."""


def pipelining(ck: ChainedKernel) -> Pipelining | None:
    """The overlap plan when the program allows it: exactly one carried value is the second dot's
    result (the accumulator), and nothing of tile ``j`` but the second dot's C input reads it (P,
    the first dot's C, the other carried values, branch conditions); and the registers fit
    (S, two packed P tiles and the accumulator within ~200 of the consumers' 240)."""
    if not overlap_enabled() or len(ck.seconds) > 1:  # several accumulators: the plain loop
        return None
    body = ck.loop.body.blocks.first
    accs = [k for k, y in enumerate(ck.yields) if strip_layouts(y)[0] is ck.dot2.result]
    if len(accs) != 1 or ck.carried[accs[0]][1] != ck.dv:
        return None
    k = accs[0]
    acc_arg = body.args[1 + ck.carried[k][0]]
    reads = [ck.dot2.lhs, *[dot.acc for dot in (ck.firsts or [ck.dot1])],
             *[y for kk, y in enumerate(ck.yields) if kk != k],
             *[br.cond for br in ck.branches]]
    if any(_depends_on(v, acc_arg) for v in reads):
        return None
    ro = sum(2 if x == 1 else x // 2 for kk, (_, x) in enumerate(ck.carried) if kk != k)
    if ck.sn // 2 + ck.tn // 2 + ck.dv // 2 + ro > FIRST_DOTS_REGS:
        return None
    return Pipelining(k, ck.tn // (4 if ck.k_step2 == 16 else 8), ck.dv // 2, ro)


def _pack_after_wait(e: Emitter, p: list[SSAValue], dtype: str) -> list[SSAValue]:
    """Tile j's P packed into the register-A fragment after ``wgmma.wait_group 0``: volatile
    ``cvt`` (kept after the wait, in order), whose results the loop yields, so the registers the
    next iteration's register-A WGMMA reads are first written once P_{j-1} V_{j-1} has completed.
    Packing during the overlap (even into other registers, copied after the wait) lets LLVM
    coalesce P_j into the in-flight P_{j-1} registers, and makes ptxas 13.0 see a WGMMA input
    defined inside a pipeline stage: it then serializes every WGMMA of the kernel (C7513)."""
    return _pack_p(e, p, dtype, volatile=True)


def _p_regs(site, ck: ChainedKernel) -> list[SSAValue]:
    """P's fragment registers at ``site`` (the second dot's A, ``tn / 2`` per thread); for an fp8 P the f32 values
    before ``astype``'s rounding (:func:`~tileorch.transforms.tileas.pack16.rounded_from_fp8`: the pack's
    ``cvt.rn.satfinite`` rounds them to the same bytes), so that a P yielded by the masked / unmasked branches of a
    versioned tile (``scf.if``) is not rounded there and widened back only to be packed."""
    p = site.tile_regs(ck.dot2.lhs, ck.tn)
    return [rounded_from_fp8(x) for x in p] if ck.k_step2 == 32 else p


def _pack_p(e: Emitter, p: list[SSAValue], dtype: str, volatile: bool = False) -> list[SSAValue]:
    """P's f32 fragment registers ``p`` (the accumulator layout, ``tn / 2`` per thread) packed into the second dot's
    register-A operands, four per WGMMA K step in order: 16-bit types pairwise (``cvt.rn.{f16,bf16}x2.f32``: each
    16-column chunk's ``d[8c .. 8c+7]`` are exactly its ``a0..a3``); e4m3 / e5m2 four bytes a register
    (:func:`~tileorch.transforms.tileas.pack16.pack8x4`), each 32-column chunk's 16 registers taken in
    :func:`~tileorch.transforms.tileas.pack16.fp8_fragment_order` (the thread's own values, no shuffle: the keys
    land at permuted K positions, and the second dot's B is the launch's key-major copy of V with its keys permuted
    alike, :data:`KEY_MAJOR_COPY`)."""
    if dtype not in _FP8.values():
        return [pack16(e, p[2 * i], p[2 * i + 1], dtype, volatile=volatile) for i in range(len(p) // 2)]
    return [pack8x4(e, [p[16 * c + fp8_fragment_order(4 * q + b)] for b in range(4)], dtype, volatile)
            for c in range(len(p) // 16) for q in range(4)]


def _frontier(v: SSAValue, arg: SSAValue) -> list[SSAValue]:
    """The tiles that ``v`` reads besides ``arg`` on its way from ``arg`` (the operands, not
    depending on ``arg``, of the ops between them): ``acc * alpha`` -> ``[alpha]``."""
    out, stack, seen = [], [v], set()
    while stack:
        x = stack.pop()
        if x is arg or id(x) in seen or not isinstance(x.owner, Operation):
            continue
        seen.add(id(x))
        if not _depends_on(x, arg):
            if isinstance(x.type, TensorType):
                out.append(x)
            continue
        stack.extend(x.owner.operands)
    return out


def _versioned(ck: ChainedKernel, site_of, site: _Site, iv: SSAValue, masks: list[Operation],
               part: Callable[[_Site], tuple[list[SSAValue], list[SSAValue]]], later: list[SSAValue]):
    """``part(site)`` (the program's ops of loop iteration ``iv`` up to P: (P, the other carried
    registers)), evaluated twice under a scalar test when the loop masks its tiles
    (:mod:`~tileorch.transforms.tileas.mask_bounds`): where every mask holds on the whole tile, a
    copy with the comparisons ``masks`` (:func:`interior_masks`) ``true`` (no compare and select
    per element); else as written.  The tiles of ``later`` (read by ``site`` after this part: the second dot's C) are
    computed in both copies and provided to ``site``.  Without such masks, ``part(site)``."""
    body = ck.loop.body.blocks.first
    widths = [_fragment_width(v, ck.rows) for v in later]
    if not masks or None in widths:
        return part(site)
    site.low.scalars[body.args[0]] = iv
    test = whole_tile_test(site.low, masks)
    sides, regions = [], []
    for assume in (True, False):
        side = site_of()
        if assume:
            side.low.assumed_true = {id(m) for m in masks}
        p, new = part(side)
        p = [rounded_from(x) for x in p]  # the f32 P the pack rounds (the branch carries f32, not a cast)
        extra = [x for v, w in zip(later, widths) for x in side.tile_regs(v, w)]
        side.tmp.add_op(scf.YieldOp(*p, *new, *extra))
        sides.append((len(p), len(new), [x.type for x in (*p, *new, *extra)]))
        regions.append(Region(side.tmp))
    if sides[0] != sides[1]:
        raise unsupported(masks[0], "masks whose whole-tile copy computes other register types")
    op = site.e.add(scf.IfOp(test, sides[0][2], regions[0], regions[1]))
    n, m = sides[0][0], sides[0][1]
    k = n + m
    for v, w in zip(later, widths):
        c = 2 if w == 1 else w // 2
        site.low.provided[v] = (w, list(op.results[k:k + c]))
        k += c
    return list(op.results[:n]), list(op.results[n:n + m])


def _sizes(ck: ChainedKernel) -> list[int]:
    """Registers per thread of each carried value (a row vector: 2; a ``[tm, X]`` tile: ``X / 2``)."""
    return [2 if w == 1 else w // 2 for _, w in ck.carried]


def _carried_inits(ck: ChainedKernel, pipe: Pipelining, init_vals: list[SSAValue]) -> dict:
    """The program's carried values but the accumulator -> (width, registers) of ``init_vals``
    (every carried register, in ``ck.carried`` order): what the first dot's C reads at tile 0."""
    body = ck.loop.body.blocks.first
    sizes = _sizes(ck)
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    return {body.args[1 + ck.carried[k][0]]: (ck.carried[k][1], init_vals[starts[k]:starts[k] + sizes[k]])
            for k in range(len(sizes)) if k != pipe.acc}


def _issue_first_dot(kb: _Kernel, site_of, provided: dict) -> SSAValue:
    """Tile 0's first dot issued and committed, not waited for (the instance's Q and tile 0 waited
    for first: ``kb.q_wait`` / ``kb.ring``, A0 from ``kb.da_cur``); ``provided``: the carried values
    the dot's C reads (:func:`_carried_inits`).  S (a struct of ``tn / 2`` f32, in flight)."""
    kb.wait_q()
    _, db1_0 = kb.first_stage()
    s_init0 = _s_init(kb, site_of, kb.small(0), provided, "s_init0")
    kb.e.add(nvvm.WgmmaFenceAlignedOp())
    z_last = kb.s_chain("z", s_init0, db1_0)
    kb.e.add(nvvm.WgmmaGroupSyncAlignedOp())
    return z_last


def _struct_regs(e: Emitter, s: SSAValue, n: int) -> list[SSAValue]:
    """The ``n`` f32 fields of the WGMMA accumulator struct ``s``."""
    return [e.v(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [r]), s, f32)) for r in range(n)]


def _s_regs(ck: ChainedKernel, e: Emitter, s: SSAValue | tuple) -> list[SSAValue]:
    """The ``sn / 2`` registers of the first dots' joint S from :meth:`_Kernel.s_chain`'s result (one
    struct, or one per first dot with its own A tile, concatenated in first-dot order)."""
    return [x for part in (s if isinstance(s, tuple) else (s,))
            for x in _struct_regs(e, part, ck.tn // 2 if isinstance(s, tuple) else ck.sn // 2)]


def _issue_last(kb: _Kernel, pipe: Pipelining, site_of, n_tiles: SSAValue,
                outs: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
    """The last tile's second dot issued and committed, not waited for, from the pipelined loop's
    results ``outs``: (the accumulator, in flight; the last tile's empty barrier)."""
    ck, off = kb.ck, kb.off
    n1 = kb.v(arith.SubiOp(n_tiles, kb.small(1)), "n1")
    stl = kb.v(arith.RemUIOp(kb.ring_index(n1, "n1"), kb.nstages), "stl")
    stl_l = kb.v(arith.ExtUIOp(stl, i64), "stl_l")
    _, ebar_last = kb.stage_barrier("el", "ebar_last", stl, off["empty"])
    b2_last = kb.stage_address(stl_l, kb.b2_stage, kb.sbase2, "b2l_so", "b2_last")
    s = site_of()
    acc_last = _second_dot(ck, s.e, outs[:pipe.rp], outs[pipe.rp:pipe.rp + pipe.rc], b2_last)
    kb.splice(s.tmp)
    return acc_last, ebar_last


def _assemble(ck: ChainedKernel, pipe: Pipelining, outs: list[SSAValue], acc_final: list[SSAValue]) -> list[SSAValue]:
    """The carried registers after the last tile, in ``ck.carried`` order: ``acc_final`` for the
    accumulator, the others from the pipelined loop's results ``outs``."""
    sizes = _sizes(ck)
    o_final, k0, result = outs[pipe.rp + pipe.rc:], 0, []
    for k in range(len(ck.carried)):
        if k == pipe.acc:
            result += acc_final
        else:
            result += o_final[k0:k0 + sizes[k]]
            k0 += sizes[k]
    return result


def _lower_pipelined_loop(kb: _Kernel, pipe: Pipelining, site_of, n_tiles: SSAValue,
                          init_vals: list[SSAValue], masks: list[Operation], pingpong: bool = False,
                          s0: list[SSAValue] | None = None, last: bool = True) -> list[SSAValue]:
    """The pipelined consumer: a peeled first tile, the loop from 1 (tile ``j``'s first dot in
    flight while tile ``j - 1``'s second dot is issued and tile ``j``'s P computed) and the last
    tile's second dot; the carried registers after the last tile, in ``ck.carried`` order.  With
    ``pingpong`` the two consumer warp groups take turns (:data:`PINGPONG_BARRIERS`) to issue an
    iteration's two dots, so that one group's P overlaps the other's WGMMAs.  ``s0``: tile 0's S
    (``tn / 2`` f32, complete), issued before (:func:`_lower_prefetching_instance`): the instance's
    Q and tile 0 were waited for there.  ``last=False``: the loop's results (P, C and the other
    carried registers, :class:`Pipelining`; with the late rescale the factor's two row registers
    last) and a function that turns them into the last tile's second dot's inputs at the
    insertion point, that dot left to the caller (:func:`_issue_last`)."""
    ck, off, e = kb.ck, kb.off, kb.e
    body = ck.loop.body.blocks.first
    acc_arg = body.args[1 + ck.carried[pipe.acc][0]]
    sizes = _sizes(ck)
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    others = [k for k in range(len(ck.carried)) if k != pipe.acc]
    types = pipe.types

    def tile(site: _Site, iv: SSAValue, s_last: SSAValue, carried: dict[int, list[SSAValue]]):
        """Tile ``iv``'s ops up to P (part A): P (f32, the accumulator layout) and the other carried
        values' new registers."""
        low = site.low
        low.scalars[body.args[0]] = iv
        for k in others:
            i, w = ck.carried[k]
            low.provided[body.args[1 + i]] = (w, carried[k])
        ck.provide_s(low.provided, list(s_last) if isinstance(s_last, list) else _s_regs(ck, site.e, s_last))
        for br in ck.branches:
            site_of.branch(br, site, body.args[0], iv)
        p = _p_regs(site, ck)  # chunk c's a0..a3 are p[8c .. 8c+7] pairwise (fp8: _pack_p's order)
        new = [x for k in others for x in site.tile_regs(ck.yields[k], ck.carried[k][1])]
        return p, new

    def c_input(site: _Site, acc: list[SSAValue]) -> list[SSAValue]:
        """Part B: the second dot's C for this tile from the previous tile's accumulator."""
        site.low.provided[acc_arg] = (ck.dv, acc)
        return site.tile_regs(ck.dot2.acc, ck.dv)

    init = {k: init_vals[starts[k]:starts[k] + sizes[k]] for k in range(len(sizes))}
    peel_masks = peeled_masks_enabled()
    factor = _rescale_factor(ck.dot2.acc, acc_arg) if skip_rescale_enabled() else None
    if factor is not None and _fragment_width(factor, ck.rows) is None:
        factor = None
    # TILEORCH_ATTN_LATE_RESCALE: the loop carries the unscaled accumulator and the factor's row
    # registers; C is computed after the next tile's first dot is issued, before its second dot
    late = _late_factor(ck, acc_arg) if late_rescale_enabled() else None
    late_w = _fragment_width(late, ck.rows) if late is not None else None
    if late is not None:
        types = [*types, f32, f32]
    # TILEORCH_ATTN_LATE_PACK: P carried in f32 (rpp registers) and packed behind the next first dot
    late_pack = (late_pack_enabled() and s0 is None and last
                 and ck.sn // 2 + ck.tn // 2 + ck.tn // 4 + ck.dv // 2 + pipe.ro <= FIRST_DOTS_REGS
                 and ck.k_step2 == 16)  # (an fp8 P: packed after the wait as ever)
    rpp = 2 * pipe.rp if late_pack else pipe.rp
    if late_pack:
        types = [f32] * rpp + types[pipe.rp:]
        kb.rescale_applied |= {"pack"}

    def f32_p(site: _Site, p: list[SSAValue]) -> list[SSAValue]:
        return [site.e.to_f32(rounded_from(x)) for x in p]

    def packed(p: list[SSAValue]) -> list[SSAValue]:
        """P packed at the insertion point (volatile: after the first dot's issue)."""
        tmp = Block()
        em = Emitter(tmp, 128)
        out = _pack_after_wait(em, p, ck.dtype_p)
        kb.splice(tmp)
        return out
    kb.rescale_applied |= {"late"} if late is not None else set()
    kb.rescale_applied |= {"skip"} if factor is not None else set()
    # TILEORCH_ATTN_S_AHEAD: the loop carries tile j's complete S (sn / 2 f32) after the other registers
    ahead = kb.s_ahead and not pingpong and not late_pack
    sn2 = ck.sn // 2
    if ahead:
        types = [*types, *([f32] * sn2)]
        n_last = kb.v(arith.SubiOp(n_tiles, kb.small(1)), "sa_n1")

    def issue_ahead(jn: SSAValue) -> SSAValue | tuple:
        """Tile ``min(jn, n - 1)``'s first dot, its full barrier waited for, issued and committed at
        the insertion point (not waited for): S in flight."""
        t = kb.v(arith.MinSIOp(jn, n_last), "sa_t")
        st, ph = kb.stage_index(t, "sa")
        st_l = kb.v(arith.ExtUIOp(st, i64), "sa_st_l")
        _, fbar = kb.stage_barrier("safb", "sa_fbar", st, off["full"])
        kb.try_wait(fbar, ph, "K/V ring full barrier (consumer)", kb.off["full"])
        db1 = kb.stage_address(st_l, kb.b1_stage, kb.db1_1, "sa_b1_so", "sa_db1")
        s_init = _s_init(kb, site_of, t, {}, "sa_init")
        kb.e.add(nvvm.WgmmaFenceAlignedOp())
        z = kb.s_chain("sa", s_init, db1)
        kb.e.add(nvvm.WgmmaGroupSyncAlignedOp())
        return z

    def row_regs(site: _Site) -> list[SSAValue]:
        """The factor's value in each of the thread's two rows (``late``, a row broadcast)."""
        first = {}
        for r, (h, _, _) in zip(site.tile_regs(late, late_w), _frag_regs(late_w)):
            first.setdefault(h, r)
        return [first[0], first[1]]

    def late_c(acc: list[SSAValue], r: list[SSAValue]) -> list[SSAValue]:
        """C from the unscaled accumulator and the factor's rows (at the insertion point)."""
        def c_of(side: _Site) -> list[SSAValue]:
            side.low.provided[late] = (late_w, [r[h] for h, _, _ in _frag_regs(late_w)])
            return c_input(side, acc)
        if factor is not None:  # with TILEORCH_ATTN_SKIP_RESCALE
            side = site_of()
            side.low.provided[late] = (late_w, [r[h] for h, _, _ in _frag_regs(late_w)])
            return _skipped_rescale(kb, site_of, side, late, acc, c_of)
        side = site_of()
        c = c_of(side)
        kb.splice(side.tmp)
        return c
    if s0 is None:
        kb.wait_q()
    undef_i = kb.v(llvm.UndefOp(i32), "ui")
    kb.uf = kb.v(llvm.UndefOp(f32), "uf")
    has = kb.v(cmpi(n_tiles, kb.small(0), "sgt"), "has")
    if pingpong:  # one turn per loop iteration (tiles 1 .. n-1)
        pp_bar, pp_next, pp_has = kb.pingpong_before(n_tiles, lower=1)
        threads = kb.ci[kb.plan.consumer_threads]

    # tile 0 (peeled): S_0, then P_0 and C_0 (no second dot in flight yet)
    first = Block()
    with kb.into(first) as t:
        if s0 is None:
            _, db1_0 = kb.first_stage()
            s = site_of()
            iv0 = s.e.const(0)
            s_init0 = _s_init(kb, site_of, iv0, {body.args[1 + ck.carried[k][0]]: (ck.carried[k][1], init[k])
                                                for k in others}, "s_init0")
            t.add(nvvm.WgmmaFenceAlignedOp())
            z_last = kb.s_chain("z", s_init0, db1_0)
            t.add(nvvm.WgmmaGroupSyncAlignedOp())
            t.add(nvvm.WgmmaWaitGroupSyncOp(0))
        else:
            s = site_of()
            iv0 = s.e.const(0)
            z_last = s0
        z_ahead = issue_ahead(kb.small(1)) if ahead else None  # tile 1's S runs while tile 0's P is computed
        if peel_masks:  # tile 0 too runs the copy without mask math when its masks hold on the whole tile
            p0, new0 = _versioned(ck, site_of, s, iv0, masks, lambda site: tile(site, iv0, z_last, init),
                                  _frontier(ck.dot2.acc, acc_arg))
        else:
            p0, new0 = tile(s, iv0, z_last, init)
        if ahead:  # P packed once tile 1's first dot has retired (a WGMMA input defined outside its flight)
            s.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
            a0 = _pack_after_wait(s.e, p0, ck.dtype_p)
            s_next = _s_regs(ck, s.e, z_ahead)
        else:
            a0 = f32_p(s, p0) if late_pack else _pack_p(s.e, p0, ck.dtype_p)
            s_next = []
        if late is None:
            c0 = c_input(s, init[pipe.acc])
            r0 = []
        else:  # carried unscaled, with the factor's rows
            c0, r0 = init[pipe.acc], row_regs(s)
        kb.splice(s.tmp)
        t.add(scf.YieldOp(*a0, *c0, *new0, *r0, *s_next))
    no_tile = Block([scf.YieldOp(*([kb.uf] * rpp if late_pack else [undef_i] * pipe.rp), *init[pipe.acc],
                                 *[x for k in others for x in init[k]],
                                 *([kb.uf] * 2 if late is not None else []), *([kb.uf] * sn2 if ahead else []))])
    pro = e.add(scf.IfOp(has, types, Region(first), Region(no_tile)))
    for x in pro.results:
        _hint(x, "pro")

    # tiles 1 .. n-1: tile j's first dot is in flight; issue tile j-1's second dot, then tile j's P
    def iteration(le: Emitter, j: SSAValue, q: list[SSAValue]) -> list[SSAValue]:
        with kb.into(le.block) as e:
            st, ph, st_l, _, fbar = kb.tile_stage(j, q, "q")
            jp = kb.v(arith.SubiOp(j, kb.small(1)), "jp")
            stp = kb.v(arith.RemUIOp(kb.ring_index(jp, "jp"), kb.nstages), "stp")
            stp_l = kb.v(arith.ExtUIOp(stp, i64), "stp_l")
            _, ebar = kb.stage_barrier("eb", "ebar", stp, off["empty"])
            kb.try_wait(fbar, ph, "K/V ring full barrier (consumer)", kb.off["full"])
            db1 = kb.stage_address(st_l, kb.b1_stage, kb.db1_1, "b1_so", "db1")
            # 16-byte units of tile j-1's B2 stage
            b2_addr = kb.stage_address(stp_l, kb.b2_stage, kb.sbase2, "b2_so", "b2_addr")
            p_prev, c_prev = q[:rpp], q[rpp:rpp + pipe.rc]
            o_prev = q[rpp + pipe.rc:rpp + pipe.rc + pipe.ro]
            carried, k0 = {}, 0
            for k in others:
                carried[k] = o_prev[k0:k0 + sizes[k]]
                k0 += sizes[k]
            s = site_of()
            s_carried = {body.args[1 + ck.carried[k][0]]: (ck.carried[k][1], carried[k]) for k in others}
            s_init = _s_init(kb, site_of, j, s_carried, "s_init")
            if pingpong:  # this group's turn to issue its two dots
                e.add(nvvm.BarrierOp(pp_bar, threads))
            e.add(nvvm.WgmmaFenceAlignedOp())
            s_last = kb.s_chain("s", s_init, db1)
            e.add(nvvm.WgmmaGroupSyncAlignedOp())
            if late is not None:  # tile j-1's C while tile j's first dot runs
                c_prev = late_c(c_prev, q[rpp + pipe.rc + pipe.ro:])
            if late_pack:  # tile j-1's P packed while tile j's first dot runs
                p_prev = packed(p_prev)
            acc_prev = _second_dot(ck, s.e, p_prev, c_prev, b2_addr)
            if pingpong:  # both issued: the other group's turn
                s.e.add(nvvm.BarrierArriveOp(pp_next, threads))
            wait_s = s.e.add(nvvm.WgmmaWaitGroupSyncOp(1))  # tile j's S has landed; j-1's second dot may run on
            ck.row_loads.clear()
            p_j, new_j = _versioned(ck, site_of, s, j, masks, lambda site: tile(site, j, s_last, carried),
                                    _frontier(ck.dot2.acc, acc_arg))
            if row_prefetch_enabled():  # the bias rows' loads issued before the wait (loop_row_prefetch.py)
                ck.row_prefetched += hoist_row_loads(ck.row_loads, s.tmp, wait_s)
            ck.row_loads.clear()
            s.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
            s.e.add(nvvm.MBarrierArriveOp(ebar, with_state=False))  # tile j-1's stage is free
            a_j = f32_p(s, p_j) if late_pack else _pack_after_wait(s.e, p_j, ck.dtype_p)
            if late is not None:
                r_j = row_regs(s)
                kb.splice(s.tmp)
                return [*a_j, *acc_prev, *new_j, *r_j]
            if factor is None:
                c_j = c_input(s, acc_prev)
                kb.splice(s.tmp)
            else:  # TILEORCH_ATTN_SKIP_RESCALE: C = acc where every factor of the warp is 1
                c_j = _skipped_rescale(kb, site_of, s, factor, acc_prev, lambda side: c_input(side, acc_prev))
        return [*a_j, *c_j, *new_j]

    def iteration_ahead(le: Emitter, j: SSAValue, q: list[SSAValue], named: bool = True) -> list[SSAValue]:
        """Tile j's S is complete (the loop's last registers): tile j-1's second dot issued, then tile
        j+1's first dot (tile n-1's again in the last iteration), then tile j's P while both run,
        ``wait_group 0``, tile j-1's stage released.  ``named``: ``j`` and ``q`` are the loop's
        (``%j``, ``%q<i>``)."""
        with kb.into(le.block):
            if named:  # tile j's full barrier was waited for with its first dot
                kb.tile_stage(j, q, "q")
            jp = kb.v(arith.SubiOp(j, kb.small(1)), "jp")
            stp = kb.v(arith.RemUIOp(kb.ring_index(jp, "jp"), kb.nstages), "stp")
            stp_l = kb.v(arith.ExtUIOp(stp, i64), "stp_l")
            _, ebar = kb.stage_barrier("eb", "ebar", stp, off["empty"])
            b2_addr = kb.stage_address(stp_l, kb.b2_stage, kb.sbase2, "b2_so", "b2_addr")
            p_prev, c_prev = q[:rpp], q[rpp:rpp + pipe.rc]
            o_prev = q[rpp + pipe.rc:rpp + pipe.rc + pipe.ro]
            rows_prev = q[rpp + pipe.rc + pipe.ro:len(q) - sn2]
            s_j = q[len(q) - sn2:]
            carried, k0 = {}, 0
            for k in others:
                carried[k] = o_prev[k0:k0 + sizes[k]]
                k0 += sizes[k]
            if late is not None:
                c_prev = late_c(c_prev, rows_prev)
            s = site_of()
            acc_prev = _second_dot(ck, s.e, p_prev, c_prev, b2_addr)
            kb.splice(s.tmp)
            z_next = issue_ahead(kb.v(arith.AddiOp(j, kb.small(1)), "sa_j1"))
            p_j, new_j = _versioned(ck, site_of, s, j, masks, lambda site: tile(site, j, s_j, carried),
                                    _frontier(ck.dot2.acc, acc_arg))
            s.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
            s.e.add(nvvm.MBarrierArriveOp(ebar, with_state=False))  # tile j-1's stage is free
            a_j = _pack_after_wait(s.e, p_j, ck.dtype_p)
            s_next = _s_regs(ck, s.e, z_next)
            if late is not None:
                r_j = row_regs(s)
                kb.splice(s.tmp)
                return [*a_j, *acc_prev, *new_j, *r_j, *s_next]
            if factor is None:
                c_j = c_input(s, acc_prev)
                kb.splice(s.tmp)
            else:  # TILEORCH_ATTN_SKIP_RESCALE: C = acc where every factor of the warp is 1
                c_j = _skipped_rescale(kb, site_of, s, factor, acc_prev, lambda side: c_input(side, acc_prev))
        return [*a_j, *c_j, *new_j, *s_next]

    if ahead and s_ahead_unrolled(kb.s_ahead_form):  # tiles (1, 2), (3, 4), ... below n - 1, then tile n - 1 where n - 1 is odd
        def two(le: Emitter, j: SSAValue, q: list[SSAValue]) -> list[SSAValue]:
            with kb.into(le.block):
                j1 = kb.v(arith.AddiOp(j, kb.small(1)), "j1")
            return iteration_ahead(le, j1, iteration_ahead(le, j, q), named=False)

        pairs = [_hint(x, "lp") for x in _for(e, kb.small(1), n_last, kb.small(2), list(pro.results), types, two)]
        odd = kb.v(cmpi(kb.v(arith.AndIOp(n_last, kb.small(1)), "sa_odd"), kb.small(1), "eq"), "sa_odd1")
        rest = kb.v(arith.AndIOp(odd, kb.v(cmpi(n_last, kb.small(0), "sgt"), "sa_more")), "sa_rest")
        outs = [_hint(x, "lp") for x in _if_values(kb, rest, types, lambda: iteration_ahead(kb.e, n_last, pairs, False),
                                                   lambda: pairs)]
    else:
        outs = [_hint(x, "lp") for x in _for(e, kb.small(1), n_tiles, kb.small(1), list(pro.results), types,
                                             iteration_ahead if ahead else iteration)]
    if ahead:  # the last iteration's S (tile n-1's again) is dropped
        outs = outs[:len(outs) - sn2]
    if pingpong:
        kb.pingpong_after(pp_has)

    def last_inputs(outs: list[SSAValue]) -> list[SSAValue]:
        """The last tile's second dot's inputs from the loop's results, at the insertion point: P
        (packed), C (with TILEORCH_ATTN_LATE_RESCALE: the carried unscaled accumulator times the
        factor's rows, which ``outs`` carries last) and the other carried registers."""
        p_last, c_last = outs[:rpp], outs[rpp:rpp + pipe.rc]
        if late is not None:
            c_last = late_c(c_last, outs[rpp + pipe.rc + pipe.ro:])
        if late_pack:
            p_last = packed(p_last)
        return [*p_last, *c_last, *outs[rpp + pipe.rc:rpp + pipe.rc + pipe.ro]]
    if not last:
        return outs, last_inputs
    if kb.after_loop is not None:  # the loop ends with wait_group 0: tile n-1's first dot has retired
        kb.after_loop()

    # the last tile's second dot
    last_block = Block()
    with kb.into(last_block) as t:
        acc_last, ebar_last = _issue_last(kb, pipe, site_of, n_tiles, last_inputs(outs))
        t.add(nvvm.WgmmaWaitGroupSyncOp(0))
        t.add(nvvm.MBarrierArriveOp(ebar_last, with_state=False))
        t.add(scf.YieldOp(*acc_last))
    c_of_loop = outs[rpp:rpp + pipe.rc]
    fin = e.add(scf.IfOp(has, [f32] * pipe.rc, Region(last_block), Region(Block([scf.YieldOp(*c_of_loop)]))))
    return _assemble(ck, pipe, [*outs[:pipe.rp], *outs[rpp:]], [_hint(x, "fin") for x in fin.results])


def _rescale_factor(c: SSAValue, acc_arg: SSAValue) -> SSAValue | None:
    """``X`` when the second dot's C is ``acc * X`` (or ``X * acc``; layout ops around either):
    where every element of ``X`` is exactly 1, C is ``acc`` (:func:`skip_rescale_enabled`); else
    None (C is computed as written)."""
    c, _ = strip_layouts(c)
    op = c.owner
    if not isinstance(op, Operation) or op.name not in ("arith.mulf", "nv_tileaa.mulf") or len(op.operands) != 2:
        return None
    for a, b in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        if strip_layouts(a)[0] is acc_arg and not _depends_on(b, acc_arg):
            return b
    return None


ONE_F32 = "0f3F800000"


def _late_factor(ck: ChainedKernel, acc_arg: SSAValue) -> SSAValue | None:
    """The second dot's C as ``acc * X`` with ``X`` a row vector broadcast along the columns (the
    online softmax's ``acc * alpha``): ``X`` (:func:`late_rescale_enabled`), else None."""
    x = _rescale_factor(ck.dot2.acc, acc_arg)
    if x is None or _fragment_width(x, ck.rows) is None or not _row_broadcast(x, ck.rows):
        return None
    return x


def _row_broadcast(v: SSAValue, tm: int) -> bool:
    """Whether ``v`` is a row vector (``[tm, 1]`` / ``[tm]``) broadcast along the columns (through
    layout ops, reshapes and expansions): each row's elements are one value."""
    names = (*LAYOUT_ONLY, *BROADCASTS, *EXPANDS, "nv_tileaa.reshape")
    while isinstance(v.owner, Operation) and v.owner.name in names:
        if _fragment_width(v, tm) == 1:
            return True
        v = v.owner.operands[0]
    return _fragment_width(v, tm) == 1


def _skipped_rescale(kb: _Kernel, site_of, s: _Site, factor: SSAValue, acc: list[SSAValue],
                     c_of: Callable[[_Site], list[SSAValue]]) -> list[SSAValue]:
    """The second dot's C (``c_of(site)``: ``acc * factor`` as the program writes it) under a
    warp-uniform branch: the factor's registers of the thread (one per row for a row vector) are
    compared with 1, ``vote.sync.all`` over the warp; where all are 1 C is ``acc`` itself (exact),
    else the multiplies run.  ``s``'s ops are spliced at the insertion point first."""
    ck = kb.ck
    width = _fragment_width(factor, ck.rows)
    regs = s.tile_regs(factor, width)
    kb.splice(s.tmp)
    if width != 1 and _row_broadcast(factor, ck.rows):  # one register per row holds its value
        regs_of_row = {}
        for r, (h, _, _) in zip(regs, _frag_regs(width)):
            regs_of_row.setdefault(h, r)
        uniq = list(regs_of_row.values())
    else:
        uniq = list({id(r): r for r in regs}.values())
    body = f"setp.eq.f32 p, $1, {ONE_F32}; " + "".join(f"setp.eq.f32 q, ${i + 1}, {ONE_F32}; and.pred p, p, q; "
                                                       for i in range(1, len(uniq)))
    asm = "{ .reg .pred p, q; " + body + "vote.sync.all.pred p, p, -1; selp.u32 $0, 1, 0, p; }"
    ones = kb.v(inline_asm(asm, "=r" + ",f" * len(uniq), uniq, [i32], has_side_effects=True), "all_one")
    skip = kb.v(cmpi(ones, kb.small(0), "ne"), "skip_rescale")

    def scaled() -> list[SSAValue]:
        side = site_of()
        side.low.provided[factor] = (width, regs if width != 1 else regs[:2])
        c = c_of(side)
        kb.splice(side.tmp)
        return c

    return _if_values(kb, skip, [f32] * len(acc), lambda: list(acc), scaled)


def _if_values(kb: _Kernel, cond: SSAValue, types: list[Attribute], then: Callable[[], list[SSAValue]],
               other: Callable[[], list[SSAValue]]) -> list[SSAValue]:
    """``scf.if cond -> types`` at the insertion point, each side built by its function (at the
    side's block as the insertion point; it returns what the side yields); the results."""
    regions = []
    for side in (then, other):
        blk = Block()
        with kb.into(blk) as t:
            t.add(scf.YieldOp(*side()))
        regions.append(Region(blk))
    return list(kb.e.add(scf.IfOp(cond, types, regions[0], regions[1])).results)


@dataclass
class _Prefetch:
    """What :func:`_lower_prefetching_instance` needs of the kernel under construction: the work
    tiles, the carried-value plan, the loop's whole-tile masks, a site at given program ids
    (``site_at(coord)``), the current instance's site builder (``site_of``, with its branches),
    ``instance_values(coord)`` (trip count, carried inits) and ``store(registers)`` (the program's
    epilogue for the current instance); ``back_to_back``: the next first dot issued right behind
    the last second dot (the last stage released after the epilogue), else once it has completed."""

    work: _WorkTiles
    pipe: Pipelining
    masks: list[Operation]
    site_at: Callable
    site_of: Callable
    instance_values: Callable
    store: Callable
    back_to_back: bool = False

    def first_dot(self, coord: list[SSAValue], it: SSAValue, ring: SSAValue) -> SSAValue:
        """The instance at program ids ``coord`` (the CTA's ``it``-th, its first K/V tile at ring
        index ``ring``): its Q and tile 0 waited for, its first dot issued (S in flight)."""
        kb = self.work.kb
        _, inits = self.instance_values(coord)
        slot, use = self.work.q_slot(it)
        saved = kb.ring, kb.q_wait, kb.da_cur
        kb.ring = ring
        kb.q_wait = (self.work.q_bar(slot), kb.v(arith.AndIOp(use, kb.small(1)), "nq_ph"))
        kb.da_cur = self.work.q_descriptor(slot)
        try:
            return _issue_first_dot(kb, lambda: self.site_at(coord), _carried_inits(kb.ck, self.pipe, inits))
        finally:
            kb.ring, kb.q_wait, kb.da_cur = saved

    def undef(self) -> list[SSAValue]:
        kb = self.work.kb
        return [kb.v(llvm.UndefOp(f32), "pf_undef")] * (kb.ck.sn // 2)

    def completed(self, z: SSAValue) -> list[SSAValue]:
        """``wgmma.wait_group 0``, then the fields of S."""
        kb = self.work.kb
        kb.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
        return _s_regs(kb.ck, kb.e, z)

    def if_instance(self, w: SSAValue, it: SSAValue, ring: SSAValue,
                    issue: Callable[[SSAValue], list[SSAValue]], otherwise: Callable[[], list[SSAValue]]):
        """``issue(first dot in flight)`` when the instance at the work loop's index ``w`` (the CTA's
        round ``it``: :meth:`_WorkTiles.dealt`) exists and has K/V tiles, else ``otherwise()``; the S
        registers either yields."""
        kb, work = self.work.kb, self.work
        types = [f32] * (kb.ck.sn // 2)
        coord = work.coords(work.dealt(w, it))
        valid = kb.v(cmpi(w, work.total, "ult"), "pf_valid")

        def has_tiles() -> list[SSAValue]:
            n = self.instance_values(coord)[0]
            return [kb.v(cmpi(n, kb.small(0), "sgt"), "pf_has")]

        has = _if_values(kb, valid, [i1], has_tiles, lambda: [kb.v(arith.ConstantOp(IntegerAttr(0, i1)), "pf_none")])[0]
        return _if_values(kb, has, types, lambda: issue(self.first_dot(coord, it, ring)), otherwise)

    def first_instance(self) -> list[SSAValue]:
        """Before the consumers' work loop: the CTA's first instance's S (complete; undefined when
        the CTA has no instance or its instance no K/V tile)."""
        kb = self.work.kb
        return self.if_instance(self.work.start, kb.small(0), kb.small(0), self.completed, self.undef)


def _lower_prefetching_instance(pf: _Prefetch, it: SSAValue) -> tuple[SSAValue, list[SSAValue]]:
    """One program instance of a persistent, pipelined consumer whose tile 0's S came with the work
    loop (``work.extra``, issued before the previous instance's epilogue or before the loop): the
    pipelined loop from it, the release of its Q slot, then the last tile's second dot and, when the
    CTA has a next instance with K/V tiles, that instance's Q and tile-0 waits and its first dot
    issued before this instance's epilogue, which runs while it is in flight.  In order (default):
    the last second dot waited for and its stage released, the next first dot issued, the epilogue,
    ``wait_group 0``; ``back_to_back``: the next first dot issued right behind the last second dot,
    ``wait_group 1`` (the second dot done), the epilogue, ``wait_group 0``, then the last stage
    released.  (K/V tiles, the next instance's S registers.)"""
    kb, work, pipe, ck = pf.work.kb, pf.work, pf.pipe, pf.work.kb.ck
    types = [f32] * (ck.sn // 2)
    n, inits = pf.instance_values(work.tile_coord)
    slot, _ = work.q_slot(it)
    kb.da_cur = work.q_descriptor(slot)
    outs, last_inputs = _lower_pipelined_loop(kb, pipe, pf.site_of, n, inits, pf.masks, s0=list(work.extra),
                                              last=False)
    kb.da_cur = None
    kb.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
    kb.e.add(nvvm.MBarrierArriveOp(work.q_empty(slot), with_state=False))  # Q read: the slot is free
    ring, w = kb.ring, work.w
    it1 = kb.v(arith.AddiOp(it, kb.small(1)), "nx_it")
    ring1 = kb.v(arith.AddiOp(ring, n), "nx_ring")
    w1 = kb.v(arith.AddiOp(w, work.step), "nx_w")
    has = kb.v(cmpi(n, kb.small(0), "sgt"), "pf_tiles")

    def with_last() -> list[SSAValue]:
        acc, ebar = _issue_last(kb, pipe, pf.site_of, n, last_inputs(outs))
        result = _assemble(ck, pipe, outs, acc)
        if not pf.back_to_back:
            kb.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
            kb.e.add(nvvm.MBarrierArriveOp(ebar, with_state=False))

        def overlapped(z: SSAValue) -> list[SSAValue]:
            if pf.back_to_back:
                kb.e.add(nvvm.WgmmaWaitGroupSyncOp(1))  # the last second dot; the next first dot runs on
            pf.store(result)
            regs = pf.completed(z)
            if pf.back_to_back:
                kb.e.add(nvvm.MBarrierArriveOp(ebar, with_state=False))
            return regs

        def alone() -> list[SSAValue]:
            if pf.back_to_back:
                kb.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
                kb.e.add(nvvm.MBarrierArriveOp(ebar, with_state=False))
            pf.store(result)
            return pf.undef()

        return pf.if_instance(w1, it1, ring1, overlapped, alone)

    def without_tiles() -> list[SSAValue]:
        nxt = pf.if_instance(w1, it1, ring1, pf.completed, pf.undef)
        pf.store(_assemble(ck, pipe, outs, outs[pipe.rp:pipe.rp + pipe.rc]))
        return nxt

    return n, _if_values(kb, has, types, with_last, without_tiles)


Q_REGS_MARGIN = 40
"""Registers per consumer thread beside the Q fragment, S, the packed P and the accumulator that
TILEORCH_ATTN_Q_REGS counts (row statistics, addresses, the loop's state): the switch is refused where
their sum exceeds the consumer's registers (four consumer warp groups' 112 at head dim 64)."""
NEXT_S_EPILOGUE_REGS = 64
"""Registers per consumer thread the epilogue and the work loop's state need beside the registers
:func:`next_s_fits` counts.  Calibrated with ptxas 13.0 on the 128x128 attention kernels (384
threads: 168 registers): head dim 64 (S + accumulator + row statistics = 100) has no spill, head
dim 128 (132) spills 188 bytes and ptxas serializes every WGMMA of the kernel (C7512)."""


def _s_ahead(ck: ChainedKernel, pipe: Pipelining | None, plan: Plan, pingpong: bool,
             next_s: bool, form: str) -> tuple[bool, str | None]:
    """(whether the pipelined loop runs :func:`s_ahead_form`'s order ``form``, why not where the
    environment asks for it and it does not apply: under ``auto`` a kernel it does not apply to says
    nothing).  Not with ``TILEORCH_ATTN_NEXT_S`` (the next
    instance's S beside the accumulator through the epilogue and the S-ahead loop's second S:
    ptxas 13.0 spilled 424-604 bytes at d64 128x128 and serialized the WGMMAs, C7512)."""
    if form == "0":
        return False, None
    body = ck.loop.body.blocks.first
    regs = ck.sn + ck.tn // 2 + ck.dv // 2 + (pipe.ro if pipe is not None else 0)
    why = ("the consumer loop is not pipelined" if pipe is None
           else f"{plan.stages} K/V stage(s): tiles j - 1, j and j + 1 need three" if plan.stages < 3
           else "the warp groups' ping-pong (TILEORCH_ATTN_PINGPONG) hands its turns around the first dot"
           if pingpong else "TILEORCH_ATTN_LATE_PACK carries P in f32 beside S" if late_pack_enabled()
           else "TILEORCH_ATTN_NEXT_S keeps the next instance's S beside the accumulator through the epilogue "
                "(with the loop's second S ptxas spills and serializes the WGMMAs)" if next_s
           else "the first dot's C reads a carried value, which tile j's softmax computes"
           if any(_depends_on(dot.acc, a) for dot in (ck.firsts or [ck.dot1]) for a in body.args[1:])
           else f"two S tiles, two packed P and the accumulator take {regs} registers, over {S_AHEAD_REGS}"
           if regs > S_AHEAD_REGS else None)
    if why is not None and settings.asked(S_AHEAD_ENV) not in ("1", "2"):
        return False, None
    return why is None, why


def next_s_fits(ck: ChainedKernel, pipe: Pipelining, plan: Plan) -> bool:
    """Whether the next instance's S (``tn / 2`` registers, in flight), the accumulator and the other
    carried registers fit the consumer's registers through the epilogue (with
    :data:`NEXT_S_EPILOGUE_REGS`): ``65536 / threads`` rounded down to 8, at most 255."""
    cap = min(255, 65536 // plan.threads // 8 * 8)
    return ck.sn // 2 + pipe.rc + pipe.ro + NEXT_S_EPILOGUE_REGS <= cap


def _stage_guards(ck: ChainedKernel, plan: Plan) -> list:
    """``[empty barrier offset, [[lo, hi] of the stage's B1 tile, [lo, hi] of its B2 tile]]`` for each
    stage (dynamic shared-memory byte offsets): a consumer's arrive on the barrier hands those
    bytes to the producer (the PTX emulator's ``guards``: the release must follow the last read)."""
    off = plan.offsets()
    b1 = ck.k1 * ck.b1.bytes  # every first dot's B tile
    return [[off["empty"] + 8 * s, [[off["b1"] + s * plan.b1_stride, off["b1"] + s * plan.b1_stride + b1],
                                    [off["b2"] + s * plan.b2_stride, off["b2"] + s * plan.b2_stride + ck.b2.bytes]]]
            for s in range(plan.stages)]


def _append_grid_parameters(fn: func.FuncOp) -> list[SSAValue]:
    """Three i32 parameters (the program's grid x, y, z) appended to ``fn``; their values."""
    from xdsl.dialects.builtin import DictionaryAttr, FunctionType

    entry = fn.body.blocks.first
    new = [entry.insert_arg(i32, len(entry.args)) for _ in range(3)]
    for v, axis in zip(new, "xyz"):
        v.name_hint = f"grid_{axis}"
    old = fn.function_type
    fn.function_type = FunctionType.from_lists([*old.inputs.data, i32, i32, i32], list(old.outputs.data))
    if fn.arg_attrs is not None:
        fn.arg_attrs = ArrayAttr([*fn.arg_attrs.data, *([DictionaryAttr({})] * 3)])
    return new


def _choose_plan(ck: ChainedKernel, persistent: bool) -> Plan:
    """As many K/V stages as shared memory holds (at most :data:`MAX_STAGES`); for a
    ``persistent`` kernel two Q slots unless they cost a stage, else one."""
    plan = Plan(ck, stages=stages_cap())
    while plan.smem > SMEM_LIMIT and plan.stages > 1:  # one stage: tile j + 1 loads once tile j is consumed
        plan = Plan(ck, stages=plan.stages - 1)
    if not persistent:
        return plan
    for slots in (2, 1):
        wide = Plan(ck, plan.stages, True, slots)
        if wide.smem <= SMEM_LIMIT:
            return wide
    return plan


def lower_chained_kernel(ctx: Context, module: ModuleOp, kernel: aa.FuncOp) -> None:
    """Replace the tier kernel ``kernel`` by the chained-dots kernel (a located error says why
    it cannot be; an unexpected failure is the driver's to report: ``lower_tileaa_program`` makes
    it a warning and compiles the program on the SIMT path, tileorch-opt a located internal error)."""
    ck = analyze_chained_dots(kernel)
    from tileorch.transforms.tileas import head_dim_width

    widths = head_dim_width.narrow(ck)  # the dots at the arrays' head dims where the tiles are wider
    tile_widths = (ck.d, ck.dv)
    if isinstance(widths, tuple):
        head_dim_width.apply(ck, widths)
    head_dim_arrays = head_dim_width.launch_arrays(ck) if widths is None else None
    try:  # the loop counts its tiles from 0 (the producer's ring slot, the consumer's phase)
        rebased = rebase_k_loop(ck.loop, kernel.body.blocks.first)
    except ValueError as exc:
        _fail(ck.loop, f"the loop's range: {exc}")
    heavy = heavy_first_axis(ck.loop.ub) if rebased is None else None  # a rebased trip count: no order
    # a K prologue runs in the plain loop (every consumer thread transforms its rows of the stage)
    pingpong = ck.tm // 64 == 2 and pingpong_enabled() and ck.b_prologue is None and not kv_windows(ck)  # two groups
    # no persistence with ping-pong's per-instance turns (=1): they are balanced per program instance, and
    # in a loop over instances warp group 1's first-turn arrive on barrier 1 for the next instance can meet
    # its last hand-over of this one before warp group 0 syncs: two arrivals of one group complete the
    # barrier (tileorch check found the deadlock: tests/unit/test_chained_pingpong.py); =kernel hands the
    # first turn and takes the last hand-over once per kernel instead (pingpong_per_kernel)
    from tileorch.transforms.tileas.chained_work_loop import WORK_ITEMS_ATTR

    work_items = next(((o, o.attributes[WORK_ITEMS_ATTR].value.data) for o in kernel.walk()
                       if WORK_ITEMS_ATTR in o.attributes), None)  # the program's work loop (chained_work_loop.py)
    if work_items is not None:
        pingpong = False
    # TILEORCH_ATTN_PINGPONG=kernel: the turns handed on across the persistent kernel's instances
    pp_kernel = pingpong and pingpong_per_kernel()
    # a chain under a branch of the program (`if qt * BM < n:` around the loop: instances that skip it) runs
    # one CTA per instance: the persistent kernel's Q-slot and K/V rings advance for every instance (the H200
    # and the PTX emulator showed the instances after a skipped one reading the wrong stages, 2026-12-05)
    guards = _chain_guards(ck.loop, kernel)
    guarded = guards[0][0] if guards else None  # the innermost branch around the chain
    if guarded is not None and work_items is not None:
        _fail(guarded, "a branch around the chain inside the program's work loop: the persistent kernel's rings "
                       "advance for every work item")
    plan = _choose_plan(ck, (persistent_enabled(heavy is None) or work_items is not None)
                        and (pp_kernel or not pingpong) and guarded is None)
    if work_items is not None and not plan.persistent:
        _fail(work_items[0], "the work loop around the chain runs as the chained tier's persistent kernel, which "
                             "this kernel's shared memory does not allow")
    if plan.smem > SMEM_LIMIT:
        _fail(kernel, f"the tiles need {plan.smem} bytes of shared memory with one K/V stage (more than "
                      f"{SMEM_LIMIT // 1024} KiB)")
    if plan.consumers > 2:  # a 256-row tile: four consumer warp groups of consumer_regs(4) registers
        regs = consumer_regs(plan.consumers)
        need = ck.sn // 2 + ck.tn // 2 + sum(2 if x == 1 else x // 2 for _, x in ck.carried)
        if need > regs - FOUR_GROUP_MARGIN or ck.dv > 64:
            _fail(ck.dot1, f"tile rows {ck.tm}: four consumer warp groups of {regs} registers, and S, P and the "
                           f"carried tiles need {need} per thread (at most {regs - FOUR_GROUP_MARGIN}, with value "
                           f"tiles at most 64 wide: {ck.dv} here; narrower key or value tiles fit)")
        if ck.q_prologue is not None or ck.b_prologue is not None:
            _fail((ck.q_prologue or ck.b_prologue).top.owner, f"a Q or K prologue with {ck.tm}-row tiles (four "
                                                             "consumer warp groups) is not supported")
    row_groups_off = None  # why TILEORCH_ATTN_ROW_GROUPS, asked for, is not applied
    refused = []  # (groups, why) of each count tried (auto: the most groups that fit first)
    for groups in row_groups_asked():  # FA3's d64 shape: three consumer warp groups over 192 rows (row_groups.py)
        why = row_groups_refusal(ck, groups=groups, persistent=plan.persistent, heavy=heavy, work_items=work_items,
                                 guards=guards, pingpong=pingpong, next_s=next_s_enabled(), regs=consumer_regs(groups),
                                 s_ahead=s_ahead_form(heavy) != "0", late_pack=late_pack_enabled())
        if why is None:
            ck.row_groups, rows = groups, ck.a0.rows
            ck.a0.rows = 64 * groups
            grouped = _choose_plan(ck, True)
            if not grouped.persistent or grouped.stages < PIPELINED_STAGES:
                ck.row_groups, ck.a0.rows = 0, rows
                why = f"two K/V stages beside {64 * groups}-row Q slots exceed the shared memory"
            else:
                plan = grouped
                break
        refused.append((groups, why))
    if refused and not ck.row_groups:
        row_groups_off = refused[0][1] if len(refused) == 1 else "; ".join(f"{g} groups: {w}" for g, w in refused)
    # the default (auto) says why it declined only where the program's tiles are the rule's (d64 128x64 causal, ...)
    row_groups_said = row_groups_off is not None and (row_groups_explicit() or row_groups_rule_shape(
        ck, consumer_regs(max(row_groups_asked()))))
    occupancy, occupancy_why = ctas_per_sm(plan.consumers, plan.persistent, plan.smem)
    plan = replace(plan, ctas_per_sm=occupancy)
    persistent = plan.persistent
    snake = schedule(heavy is not None) if persistent else None  # the snake order of the instances (_WorkTiles.snaked)
    name = (f"chained_dots_{ck.tm}x{ck.tn}x{ck.d}_{ck.dv}_{ck.dtype}" + (f"_{ck.dtype2}" if ck.dtype2 else "")
            + (f"_x{ck.k1}" if ck.k1 > 1 else "")
            + (f"_g{ck.row_groups}" if ck.row_groups else ""))
    pipe = pipelining(ck) if plan.stages >= PIPELINED_STAGES and ck.b_prologue is None and not kv_windows(ck) \
        else None
    for pro, op, threads, rows in ((ck.q_prologue, ck.a0, 128, 64), (ck.b_prologue, ck.b1, plan.consumer_threads,
                                                                      ck.b1.rows)):
        per = threads // rows if rows else 0
        if pro is not None and pro.rowwise and (per < 1 or threads % rows or (op.box // 8) % per):
            _fail(pro.top.owner, f"a prologue with row reductions on a {op.rows}x{op.cols} tile: {threads} threads do "
                                 f"not split its rows evenly into shares of 16-byte units")
    # the loop's whole-tile masks: the pipelined loop versions its tiles, the plain one where plain_masks_enabled
    masks = (interior_masks(ck.loop.body.blocks.first)
             if pipe is not None or (plain_masks_enabled() and plain_accumulator(ck) is not None) else [])
    next_s = settings.value(NEXT_S_ENV) if next_s_enabled() else "0"
    next_s_off = None  # why TILEORCH_ATTN_NEXT_S, asked for, is not applied
    if next_s != "0" and (not persistent or pipe is None or ck.q_prologue is not None or ck.a0.gathered is not None
                          or ck.a0.row_limit is not None or not next_s_fits(ck, pipe, plan) or pingpong):
        next_s_off = ("not a persistent kernel" if not persistent else "the consumer loop is not pipelined"
                      if pipe is None else "the warp groups' ping-pong (TILEORCH_ATTN_PINGPONG) hands its turns "
                      "inside the consumer loop, not in the next instance's tail" if pingpong
                      else "the Q tile has a prologue (applied after its wait, not modelled in "
                      "the next instance's tail)" if ck.q_prologue is not None else "the query rows are gathered (read "
                      "by the consumers at the instance's own Q wait)" if ck.a0.gathered is not None
                      else "the query rows are a row window (its rows past the window's end zeroed by the consumers "
                      "at the instance's own Q wait)" if ck.a0.row_limit is not None
                      else f"the next instance's S "
                      f"({ck.sn // 2} registers) beside the accumulator through the epilogue exceeds the consumer's "
                      "registers")
        next_s = "0"
    # the row-reciprocal division: its values are computed beside the accumulator before the stores
    row_div, row_div_off = row_div_enabled(), None
    if row_div and ck.dv + NEXT_S_EPILOGUE_REGS > consumer_regs(plan.consumers):
        row_div, row_div_off = False, (f"the {ck.dv // 2} quotients beside the {ck.dv // 2} accumulator registers "
                                       "exceed the consumer's registers (ptxas spills)")
    # TILEORCH_ATTN_Q_REGS: the first dot's A (Q) from registers, read once per instance (q_registers.py);
    # a persistent kernel then releases the Q slot right after the fragment's loads
    s_form = s_ahead_form(heavy)
    s_ahead, s_ahead_off = _s_ahead(ck, pipe, plan, pingpong, next_s != "0", s_form)
    q_regs_off = q_regs_refusal(ck.own_a, next_s != "0", s_ahead and not s_ahead_unrolled(s_form),
                                ck.d // 4 + ck.sn // 2 + ck.tn // 4 + ck.dv // 2 + Q_REGS_MARGIN,
                                consumer_regs(plan.consumers, plan.ctas_per_sm)) if q_regs_asked() else None
    if q_regs_asked() and ck.k_step != 16:
        q_regs_off = (f"the first dot's A (Q) is {ck.dtype}: the register A fragment is loaded as 16-bit pairs "
                      "(an fp8 fragment's layout is not built)")
    q_regs = q_regs_asked() and q_regs_off is None
    # the early Q release: the persistent, pipelined consumer without the next-S tail (nor the fragment's release)
    early_q = early_q_enabled(plan.q_slots) and persistent and pipe is not None and next_s == "0" and not q_regs
    early_q_off = None if early_q or not early_q_asked() else (
        "not a persistent kernel" if not persistent else "the consumer loop is not pipelined" if pipe is None
        else "TILEORCH_ATTN_NEXT_S releases Q itself" if next_s != "0"
        else "TILEORCH_ATTN_Q_REGS releases Q right after reading it into registers")
    kb = _Kernel(ck, plan, name)
    kb.q_regs = q_regs
    kb.s_ahead_form, kb.s_ahead = s_form, s_ahead
    # the next instance's first K/V tiles before its Q: a persistent kernel whose ring has a stage to spare
    kv_ahead, kv_ahead_off = False, None
    if kv_ahead_enabled():
        kv_ahead = persistent and plan.stages >= 2 and plan.q_slots == 1
        # why not: said only where the environment asked for it (on by default, most kernels do not apply)
        kv_ahead_off = None if kv_ahead or settings.asked(KV_AHEAD_ENV) != "1" else (
            "not a persistent kernel" if not persistent else "one K/V stage: no stage of the ring is free before "
            "the next Q" if plan.stages < 2 else f"{plan.q_slots} Q slots: the next instance's Q is loaded right "
            "after this instance's last tile, without waiting for a release")
    kb.kv_ahead = kv_ahead
    # TILEORCH_ATTN_EARLY_TMA: the first instance's loads by thread 0 before the CTA barrier (early_tma_enabled)
    early_tma, early_tma_off = early_tma_enabled(), None
    if early_tma and ck.a0.gathered is not None:  # (session 44: the two arrived together, not proved together)
        early_tma, early_tma_off = False, "gathered Q rows: the consumers read Q themselves after the CTA barrier"
    args = kb.args
    grid = _append_grid_parameters(kb.fn) if persistent else None
    # the program's num_programs(a) reads the launch grid: a persistent kernel's grid parameters (a static
    # loop's work items: num_programs(a) * G), else the CTA grid (nctaid, read in the entry block below)
    ck.launch_grid = list(grid) if grid is not None else None
    kb.entry(barrier=not early_tma)

    # ---- thread coordinates (entry block, before everything that needs them)
    site = _Site(ck, args)
    e = site.e
    if grid is None:  # one CTA per program: the launch's CTA grid is the program grid
        ck.launch_grid = [e.v(nvvm.SPECIAL_REGISTERS[f"nctaid.{x}"]()) for x in "xyz"]
    tid = e.v(nvvm.SPECIAL_REGISTERS["tid.x"]())
    warp = e.v(arith.ShRUIOp(tid, e.const(5)))
    lane = e.v(arith.AndIOp(tid, e.const(31)))
    # tile-local rows 64*wg + 16*(warp % 4) + lane/4 (= 16*warp + lane/4) and + 8
    row0 = e.add_i(e.mul_i(warp, e.const(16)), e.v(arith.ShRUIOp(lane, e.const(2))))
    rows = [row0, e.add_i(row0, e.const(8))]
    col0 = e.mul_i(e.v(arith.AndIOp(lane, e.const(3))), e.const(2))
    # (narrowed dots, head_dim_width.py: the program's tile-wide values, a row factor broadcast to the tile, keep
    # their columns' coordinates)
    width = max(ck.tn, ck.dv, *[x for _, x in ck.carried], *(ck.head_dim_width or ())[2:])
    cols = {}
    for g in range(width // 8):
        cg = e.add_i(col0, e.const(8 * g))
        cols[(g, 0)], cols[(g, 1)] = cg, e.add_i(cg, e.const(1))
    coords = {"rows": rows, "cols": cols}

    guard_ok: list[SSAValue] = []  # whether the instance runs the chain (program branches around it)

    def instance_values(coord: list[SSAValue] | None = None) -> tuple[SSAValue, list[SSAValue]]:
        """The program instance's loop trip count and carried values' initial registers (at the
        insertion point, for the program ids in ``coord``, by default ``tile_coord``)."""
        s = _Site(ck, args, coords, tile_coord if coord is None else coord)
        # the key loop runs max(ub, 0) times (scf.for: an upper bound below the lower bound 0 runs none);
        # the ring's counting (fill, drain, the tiles loaded ahead of Q) takes n as a count, so clamp it
        n = s.e.v(arith.MaxSIOp(s.low._i32(s.low.scalar(ck.loop.ub)), s.e.const(0)))
        if guards:  # an instance outside the program's branch around the chain: no tiles, no store (guard_ok)
            ok = None
            for br, then_side in guards:
                c = s.low.scalar(br.cond)
                if not then_side:
                    c = s.e.v(arith.XOrIOp(c, s.e.v(arith.ConstantOp(IntegerAttr(1, i1)))))
                ok = c if ok is None else s.e.v(arith.AndIOp(ok, c))
            n = s.e.v(arith.SelectOp(ok, n, s.e.const(0)))
            guard_ok.append(_default_name(ok, "runs_chain"))
        inits = []
        for (i, w) in ck.carried:
            inits += s.tile_regs(ck.loop.operands[3 + i], w)
        kb.splice(s.tmp, n, "n_tiles")
        for k, v in enumerate(inits):
            _default_name(v, f"init{k}")
        return n, inits

    if persistent:
        tile_coord: list = [None, None, None]  # each agent's work loop sets them
    else:
        tile_coord = [e.v(nvvm.SPECIAL_REGISTERS[f"ctaid.{x}"]()) for x in "xyz"]
        if heavy is not None:  # the programs with the longest loops start first (program_order.py)
            count = e.v(nvvm.SPECIAL_REGISTERS[f"nctaid.{'xyz'[heavy]}"]())
            tile_coord[heavy] = e.v(arith.SubiOp(e.v(arith.SubiOp(count, e.const(1))), tile_coord[heavy]))
    kb.splice(site.tmp)
    if persistent:
        if work_items is not None:  # the instances along the loop's axis: its work items, counted in the kernel
            ws = _Site(ck, args)
            last = ws.low._i32(ws.low.scalar(work_items[0].operands[1]))  # min(pid, total - 1)
            total = ws.e.add_i(last, ws.e.const(1))
            kb.splice(ws.tmp, total, "work_items")
            grid = list(grid)
            grid[work_items[1]] = total
        work = _WorkTiles(kb, grid, heavy, tile_coord, snake)
    else:
        n_tiles, init_vals = instance_values()

    # ---- the producer: TMA coordinates of each load (j: the tile the producer loop loads)
    def coords_of(x: str, op: Operand, j: SSAValue, tag: str, load: Operation | None = None) -> list[SSAValue]:
        load = load or op.load  # (another row block's load: Operand.parts)
        ploop = enclosing_for(load)
        out = []
        for dim in range(op.rank):
            s = _Site(ck, args, coords, tile_coord)
            if x != "a0" and ploop is not None:
                s.low.scalars[ploop.body.blocks.first.args[0]] = j
            vd = op.view_dim(dim)  # the array dimension's index and extent in the view's terms
            idx = s.low._i32(s.low.scalar(load.indices[vd]))
            tile = ints(load.view.type.tile)[vd]
            at = idx if tile == 1 else s.e.mul_i(idx, s.e.const(tile))
            if op.row_start is not None and dim == 0:  # a row window: its first row plus the tile's
                at = s.e.add_i(s.low._i32(s.low.scalar(op.row_start)), at)
            if ck.row_groups and x == "a0" and dim == (op.rows_dim if op.rows_dim >= 0 else op.rank - 2):
                at = s.e.add_i(at, s.e.mul_i(work.part, s.e.const(64)))  # the unit's first slice's rows
            out.append(kb.splice(s.tmp, at, f"{tag}_c{dim}"))
        return out

    def first_when(op: Operand, j: SSAValue, tag: str) -> SSAValue:
        """The consumer loop's choice of :attr:`Operand.first` at tile ``j`` (the loop's iv read as ``j``)."""
        s = _Site(ck, args, coords, tile_coord)
        s.low.scalars[ck.loop.body.blocks.first.args[0]] = j
        return kb.splice(s.tmp, s.low.scalar(op.first_when), f"{tag}_first")

    kb.first_when = first_when
    kb.site_of = lambda: site_of()  # (defined below: the consumers' sites, for q_gather)
    if early_tma:  # thread 0's first loads, then the CTA barrier (every wait on these barriers comes after it)
        if persistent:
            has = kb.v(cmpi(work.start, work.total, "slt"), "early_has")

            def first() -> tuple[SSAValue, SSAValue, SSAValue]:
                tile_coord[:] = work.coords(work.dealt(work.start, work.c0))
                if ck.row_groups:  # the producer's view of the unit: its first slice's rows (work.part)
                    work.slice_of_unit()
                slot, _ = work.q_slot(work.c0)
                return work.q_bar(slot), work.q_offset(slot), instance_values()[0]

            kb.early_issue(kb.v(arith.AndIOp(kb.t0, has), "early_t0"), first, coords_of)
        else:
            kb.early_issue(kb.t0, lambda: (kb.qbar, kb.small(0), n_tiles), coords_of)
        kb.e.add(nvvm.BarrierOp())
    if persistent:
        producer = kb.producer(None, coords_of, work, lambda: instance_values()[0])
    else:
        producer = kb.producer(n_tiles, coords_of)

    # ---- the consumer loop, then the epilogue and the store
    kb.start_consumer()

    def site_of(st: Operation | None = None) -> _Site:
        return _Site(ck, args, coords, tile_coord, st)

    site_of.branch = lambda br, at, program_iv, iv: _lower_branch(ck, br, at, args, coords, tile_coord, program_iv, iv)

    def consume(n_tiles: SSAValue, init_vals: list[SSAValue]) -> list[SSAValue]:
        if pipe is None:
            return _lower_plain_loop(kb, site_of, n_tiles, init_vals, pingpong, masks)
        return _lower_pipelined_loop(kb, pipe, site_of, n_tiles, init_vals, masks, pingpong)

    row_divided: list[bool] = []  # an epilogue took RowDivision (TILEORCH_ATTN_ROW_DIV)

    def store(outs: list[SSAValue]) -> None:
        """The program's epilogue on the loop's results and its stores (the tiles, row vectors)."""
        for st in ck.tile_stores or [ck.store]:
            store_tile(outs, st, rows_too=st is ck.store)

    def store_tile(outs: list[SSAValue], st: Operation, rows_too: bool) -> None:
        """The epilogue of the tile ``st`` stores (``rows_too``: and the row vectors)."""
        s = site_of(st)
        k = 0
        for (i, w) in ck.carried:
            n = 2 if w == 1 else w // 2
            s.low.provided[ck.loop.results[i]] = (w, outs[k:k + n])
            k += n
        zero = Coord(s.e.const(0), None)
        group = _store_group(st)

        def tile_coords(z: Coord, row: Coord, col: Coord) -> tuple[Coord, ...]:
            """The stored tile's coordinates of (row, col): ``z`` at its unit dimensions (a group
            store's row ``r``: ``(r // BM, r % BM)`` at its two row dimensions)."""
            if _scattered(st):  # the scattered [tm, dv] value's own (row, col)
                return (row, col)
            n = len(st.indices)
            r, c = store_dims(st, ck.store_transposed and st is ck.store)
            if group is not None:
                gd, rd, bm = group
                return tuple(Coord(row_split[id(row.value)][0], None) if i == gd
                             else Coord(row_split[id(row.value)][1], None) if i == rd
                             else col if i == n - 1 else z for i in range(n))
            return tuple(row if i == r else col if i == c else z for i in range(n))

        row_split: dict = {}  # id(row value) -> (r // BM, r % BM) of a group store
        if group is not None:
            bm = group[2]
            for r in rows:
                if bm & (bm - 1) == 0:
                    q = s.e.v(arith.ShRUIOp(r, s.e.const(bm.bit_length() - 1)))
                    m = s.e.v(arith.AndIOp(r, s.e.const(bm - 1)))
                else:
                    q, m = s.e.v(arith.DivUIOp(r, s.e.const(bm))), s.e.v(arith.RemUIOp(r, s.e.const(bm)))
                row_split[id(r)] = (q, m)
        # a tile padded to the WGMMA's 64 rows: its rows past the program's are not stored
        keep = ([s.e.v(cmpi(r, s.e.const(ck.rows), "ult")) for r in rows] if ck.tile_rows else None)

        def exact(side: _Site, h: int, g: int, j: int) -> SSAValue:
            return side.low.element(Coord(rows[h], 0), Coord(cols[(g, j)], 1))

        def per_element(side: _Site, value_of: Callable) -> None:
            """The tile's elements stored one by one, each predicated on its bounds."""
            side.low.provided = dict(s.low.provided)
            z = Coord(side.e.const(0), None)
            for h, g, j in _frag_regs(ck.dv):
                value = value_of(side, h, g, j)
                _store_element(side.low, tile_coords(z, Coord(rows[h], 0), Coord(cols[(g, j)], 1)), value,
                               pred=None if keep is None else keep[h])

        def tile_stores(at: _Site, value_of: Callable) -> None:
            """The tile's stores, each element ``value_of(site, h, g, j)``, into ``at``: under
            ``whole``, 32-bit stores of column pairs without predicates; else element by element."""
            if whole is None:
                per_element(at, value_of)
                return
            sides = []
            for packed in (True, False):
                side = site_of(st)
                if packed:
                    side.low.provided = dict(s.low.provided)
                    z = Coord(side.e.const(0), None)
                    for h in range(2):
                        for g in range(ck.dv // 8):
                            lo, hi = (value_of(side, h, g, j) for j in range(2))
                            _store_pair(side.low, tile_coords(z, Coord(rows[h], 0), Coord(cols[(g, 0)], 1)), lo, hi)
                else:
                    per_element(side, value_of)
                side.tmp.add_op(scf.YieldOp())
                sides.append(Region(side.tmp))
            at.e.add(scf.IfOp(whole, [], sides[0], sides[1]))

        narrowed = ck.dv if ck.head_dim_width else None  # (the columns stored: head_dim_width.py)
        whole = (_packed_store_test(s.low, st, narrowed) if packed_epilogue_enabled() and keep is None and not ck.rows_only
                 and not s.low.stored_transposed and not _scattered(st) else None)  # (transposed: a row's columns a stride apart)
        fast = (_row_divided(ck, site_of, s, rows, cols) if row_div and st is ck.store and not ck.rows_only
                else None)
        if ck.rows_only:
            pass  # (no tile: the row vectors below)
        elif fast is None:
            tile_stores(s, exact)
        else:  # the divisions by per-row reciprocals where every operand is in range, else div.rn
            values, in_range = fast
            row_divided.append(True)
            regions = []
            for value_of in (lambda side, h, g, j: values[(h, g, j)], exact):
                side = site_of(st)
                tile_stores(side, value_of)
                side.tmp.add_op(scf.YieldOp())
                regions.append(Region(side.tmp))
            s.e.add(scf.IfOp(in_range, [], regions[0], regions[1]))
        # row vectors stored beside the tile (a log-sum-exp): the quad's thread holding column 0 of the row
        first = (s.e.v(cmpi(s.e.v(arith.AndIOp(lane, s.e.const(3))), s.e.const(0), "eq"))
                 if ck.row_stores and rows_too else None)
        for rst, v in ck.row_stores if rows_too else []:
            shape = list(rst.tile.type.get_shape())
            for h in range(2):
                value = s.low.at(v, (Coord(rows[h], 0), zero))
                where = tuple(Coord(rows[h], 0) if x == ck.rows else zero for x in shape)
                _store_element(s.low, where, s.e.to_f32(value), rst,
                               first if keep is None else s.e.v(arith.AndIOp(first, keep[h])))
        if guard_ok:  # only an instance that runs the chain stores (its program branch)
            s.tmp.add_op(scf.YieldOp())
            kb.e.add(scf.IfOp(guard_ok[0], [], Region(s.tmp), Region()))
        else:
            kb.splice(s.tmp)

    # TILEORCH_ATTN_STAGGER: the consumer warp groups' first instance started out of step (not with the ping-pong's
    # turns, which put the groups in step by construction, nor in NEXT_S's instances, built without the hook)
    stagger = persistent and next_s == "0" and stagger_cycles() > 0 and plan.consumers > 1 and not pingpong
    if persistent and next_s != "0":
        pf = _Prefetch(work, pipe, masks, lambda coord: _Site(ck, args, coords, coord), site_of, instance_values,
                       lambda outs: store(outs), back_to_back=next_s == "2")
        s_first = pf.first_instance()
        work.loop(lambda it: _lower_prefetching_instance(pf, it), s_first, [f32] * len(s_first))
    elif persistent:
        if pingpong:  # TILEORCH_ATTN_PINGPONG=kernel (FA3): warp group 1 gives the first turn once per kernel
            kb.pp_per_kernel = True
            kb.pingpong_kernel_first()

        def instance(it: SSAValue) -> SSAValue:
            if ck.row_groups and idle_pass_by():  # a slice past the head's last instance: the unit's tiles pass by
                slot, use = work.q_slot(it)
                n = instance_values()[0]
                regions = []
                for side in (lambda: run(it, *instance_values(), slot, use), lambda: pass_by(n, slot, use)):
                    blk = Block()
                    with kb.into(blk) as t:
                        side()
                        t.add(scf.YieldOp())
                    regions.append(Region(blk))
                # lane 0's value in every lane (shfl.sync.idx): ptxas then branches warp-uniformly around the chain
                # (on the lanes' own values, which it cannot tell are uniform per warp, ptxas 13.0 spilled 140 B in
                # the 128x128 d64 kernel's loop instead of 24 B)
                wide = kb.v(arith.ExtUIOp(work.valid, i32), "rg_valid32")
                lane0 = kb.v(llvm.InlineAsmOp("shfl.sync.idx.b32 $0, $1, 0, 31, -1;", "=r,r", [wide], [i32],
                                              has_side_effects=True), "rg_valid_w")
                uniform = kb.v(cmpi(lane0, kb.small(0), "ne"), "rg_valid_u")
                idle = kb.e.add(scf.IfOp(uniform, [], regions[0], regions[1]))
                idle.attributes[IDLE_SLICE_ATTR] = UnitAttr()  # (tileorch check: extract_chained reads both sides)
            else:  # (the trip count before the Q slot: the order of the kernel without row groups, PTX-identical)
                n, inits = instance_values()
                slot, use = work.q_slot(it)
                run(it, n, inits, slot, use)
            return n

        def pass_by(n: SSAValue, slot: SSAValue, use: SSAValue) -> None:
            """An idle slice of a row-groups unit: its warp group waits for the unit's Q and each K/V tile (so that
            its release lands in the round of that load) and releases them, without computing (the tensor core's
            time goes to the unit's other slices)."""
            kb.try_wait(work.q_bar(slot), kb.v(arith.AndIOp(use, kb.small(1)), "qi_ph"), "Q tile full barrier (idle)")
            kb.e.add(nvvm.WgmmaWaitGroupSyncOp(0))  # (none in flight: the releases' rule, for tileorch check)
            kb.e.add(nvvm.MBarrierArriveOp(work.q_empty(slot), with_state=False))

            def tile(le: Emitter, j: SSAValue, _) -> list[SSAValue]:
                with kb.into(le.block):
                    st, ph = kb.stage_index(j, "idle")
                    _, fbar = kb.stage_barrier("ifb", "ifbar", st, kb.off["full"])
                    kb.try_wait(fbar, ph, "K/V ring full barrier (idle consumer)", kb.off["full"])
                    _, ebar = kb.stage_barrier("ieb", "iebar", st, kb.off["empty"])
                    kb.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
                    kb.e.add(nvvm.MBarrierArriveOp(ebar, with_state=False))
                return []

            _for(kb.e, kb.small(0), n, kb.small(1), [], [], tile)

        def run(it: SSAValue, n: SSAValue, inits: list[SSAValue], slot: SSAValue, use: SSAValue) -> None:
            """The instance's chain, the release of its Q slot and its stores."""
            kb.q_wait = (work.q_bar(slot), kb.v(arith.AndIOp(use, kb.small(1)), "q_ph"))
            kb.da_cur = work.q_descriptor(slot)
            if ck.q_prologue is not None or kb.q_regs or ck.a0.gathered is not None or \
                    ck.a0.row_limit is not None:  # rows in the slot (written or zeroed by the consumers)
                kb.q_off = work.q_offset(slot)
            released = []

            def release_q() -> None:
                # the loop's WGMMAs have all been waited for; the wait here makes that local to the release
                kb.e.add(nvvm.WgmmaWaitGroupSyncOp(0))
                kb.e.add(nvvm.MBarrierArriveOp(work.q_empty(slot), with_state=False))  # Q read: the slot is free
                released.append(True)

            kb.after_loop = release_q if early_q else None
            kb.after_q_frag = release_q if kb.q_regs else None  # Q read into registers: the slot is free
            kb.stagger_it = it if stagger else None
            outs = consume(n, inits)
            kb.after_loop = kb.stagger_it = kb.after_q_frag = None
            if not released:
                release_q()
            kb.q_wait = kb.da_cur = kb.q_off = None
            if ck.row_groups and not idle_pass_by():  # an idle slice computed its chain: it stores nothing
                def stored(w: Emitter) -> None:
                    with kb.into(w.block):
                        store(outs)

                _if(kb.e, work.valid, stored)
            else:
                store(outs)

        if ck.row_groups:  # row groups: the consumer warp group's slice of each unit, its rows in the instance
            work.group = _hint(kb.v(arith.ShRUIOp(warp, kb.small(2)), "rg_group"), "rg_group")

            def on_slice(part: SSAValue) -> None:
                quad = kb.v(arith.MuliOp(kb.v(arith.AndIOp(warp, kb.e.const(3)), "rg_w"), kb.e.const(16)), "rg_w16")
                r0 = kb.v(arith.AddiOp(quad, kb.v(arith.ShRUIOp(lane, kb.small(2)), "rg_l4")), "rg_r")
                r0 = kb.v(arith.AddiOp(r0, kb.v(arith.MuliOp(part, kb.e.const(64)), "rg_p64")), "rg_row0")
                rows[:] = [r0, kb.v(arith.AddiOp(r0, kb.small(8)), "rg_row8")]

            work.on_slice = on_slice
        work.loop(instance)
        if pingpong:  # ... and warp group 0 takes the last hand-over once
            kb.pingpong_kernel_last()
    else:
        store(consume(n_tiles, init_vals))
    fn = kb.finish(producer)

    record = {"kind": "chained", "threads": plan.threads, "smem": plan.smem, "stages": plan.stages,
              "pipelined": pipe is not None, "pingpong": pingpong, "heavy_first": heavy,
              "interior_masks": len(masks), "k_range": rebased,
              "guarded": guarded is not None and persistent_enabled(heavy is None),
              "tm": ck.tm, "tn": ck.tn, **({"first_dots": ck.k1} if ck.k1 > 1 else {}),
              "d": ck.d, "dv": ck.dv, "dtype": ck.dtype, **({"dtype2": ck.dtype2} if ck.dtype2 else {}),
              "tmaps": [{"arg": o.arg, "rows": o.box_rows, "rank": o.rank, "box": o.box, "swizzle": o.row_bytes,
                         **({"rows_dim": o.rows_dim} if o.rows_dim >= 0 else {}),
                         **({"group_dim": o.group_dim, "group": o.group} if o.group_dim >= 0 else {}),
                         **({"esize": o.esize} if o.esize != 2 else {}),  # (1: an e4m3 / e5m2 Q, K or V)
                         **({"copy": KEY_MAJOR_COPY} if o.key_major_copy else {})}
                        for o in _tmap_operands(ck)],
              "guards": _stage_guards(ck, plan)}
    from tileorch.transforms.tileas.split_chains import GRID_SPLIT

    if GRID_SPLIT in kernel.attributes:  # G chains of one program: G launched programs each (tileas-split-chains)
        record["grid_split"] = [int(x) for x in kernel.attributes[GRID_SPLIT].get_values()]
    if ck.rows_only:
        record["unread_second_dot"] = True
    if persistent:  # launched on at most one CTA per SM with the program's grid as the last three parameters
        record["persistent"] = {"q_slots": plan.q_slots}
        if plan.ctas_per_sm > 1:
            record["persistent"]["ctas_per_sm"] = plan.ctas_per_sm
        if ck.row_groups:
            record["persistent"]["row_groups"] = ck.row_groups
            record["persistent"]["idle_slices"] = "pass" if idle_pass_by() else "compute"
            if not row_groups_explicit():  # the default rule (auto) chose them: a launch may decline them
                record["persistent"]["row_groups_default"] = True
        if snake:
            record["persistent"]["schedule"] = snake
            if schedule_by_default():
                record["persistent"]["schedule_default"] = True
        if early_q:
            record["persistent"]["early_q"] = True
        if kv_ahead:
            record["persistent"]["kv_ahead"] = plan.stages - 1
        if next_s != "0":
            record["persistent"]["next_s"] = "back_to_back" if next_s == "2" else "after_last"
        if stagger:
            record["persistent"]["stagger"] = stagger_cycles()
        if pingpong:  # only TILEORCH_ATTN_PINGPONG=kernel keeps a ping-pong kernel persistent
            record["persistent"]["pingpong"] = PINGPONG_KERNEL
    if next_s_off is not None:
        record["next_s_off"] = next_s_off
    if kb.s_ahead:
        record["s_ahead"] = True
        if s_ahead_unrolled(kb.s_ahead_form):
            record["s_ahead_unrolled"] = True
    elif s_ahead_off is not None:
        record["s_ahead_off"] = s_ahead_off
    if pingpong_per_kernel() and not (persistent and pingpong):  # asked for, not applied: say why
        record["pingpong_kernel_off"] = (
            "not two consumer warp groups (128-row tiles)" if ck.tm // 64 != 2 else "a K prologue runs in the plain "
            "loop without turns" if ck.b_prologue is not None else "the program's own work loop" if work_items
            is not None else "not a persistent kernel (TILEORCH_ATTN_PERSISTENT, or the shared memory): the "
            "per-instance turns of TILEORCH_ATTN_PINGPONG=1")
    if early_q_off is not None:
        record["early_q_off"] = early_q_off
    if stagger_cycles() and not stagger:  # asked for, not applied: say why
        record["stagger_off"] = ("not a persistent kernel" if not persistent else "one consumer warp group"
                                 if plan.consumers < 2 else "the warp groups' ping-pong turns keep them in step"
                                 if pingpong else "TILEORCH_ATTN_NEXT_S: its instances are built without the hook")
    if kv_ahead_off is not None:
        record["kv_ahead_off"] = kv_ahead_off
    if early_tma:
        record["early_tma"] = plan.stages
    elif early_tma_off is not None:
        record["early_tma_off"] = early_tma_off
    if kb.q_regs:
        record["q_regs"] = ck.d // 4
    elif q_regs_off is not None:
        record["q_regs_off"] = q_regs_off
    if row_divided:
        record["row_div"] = True
    if ck.uniform_divided:
        record["loop_uniform_div"] = len(ck.uniform_divided)
    if ck.small_tanh:
        record["loop_tanh_branch"] = len(ck.small_tanh)
    if ck.softmax_exps:
        record["loop_softmax_exp"] = len(ck.softmax_exps)
    if ck.row_prefetched:
        record["loop_row_prefetch"] = ck.row_prefetched
    if ck.k_ahead:
        record["k_ahead"] = True
    elif ck.k_ahead_off:
        record["k_ahead_off"] = ck.k_ahead_off
    for what, asked in (("late", late_rescale_enabled()), ("skip", skip_rescale_enabled()),
                        ("pack", late_pack_enabled())):
        key = "late_pack" if what == "pack" else f"{what}_rescale"
        if what in kb.rescale_applied:
            record[key] = True
        elif asked:
            record[f"{key}_off"] = (
                "the consumer loop is not pipelined" if pipe is None else "TILEORCH_ATTN_NEXT_S issues the last second "
                "dot in the next instance's tail" if what == "pack" and next_s != "0" else "P in f32 beside S, the "
                f"packed P and the accumulator exceeds the {FIRST_DOTS_REGS} registers of the loop (ptxas spills)"
                if what == "pack" else "the second dot's C is not the accumulator times a row vector")
    if settings.value(STAGES_ENV) is not None:
        record["stages_cap"] = stages_cap()
    if row_div_off is not None:
        record["row_div_off"] = row_div_off
    if ck.tile_rows:  # the program's rows below the WGMMA's 64: the kernel's tm rows, the rest never stored
        record["tile_rows"] = ck.tile_rows
    located = _located_choices(ck)
    if ck.a0.gathered is not None:  # no Q tensor map: the consumers read the rows (_Kernel.q_gather)
        from tileorch.diagnostics import format_error

        record["q_gathered"] = True
        loads = ck.a0.chunks * 64 * ck.a0.row_bytes // 256  # 16-bit elements per consumer thread
        located.append(format_error(ck.a0.load, "chained-dots tier (TMA + WGMMA): the first dot's A (Q) is gathered "
                                                "(ct.gather): Hopper's TMA has no row gather, so each consumer warp "
                                                "group reads its 64 rows from global memory as the gather says (its "
                                                f"index loads, bounds test and padding; {loads} elements per thread) "
                                                "into the swizzled Q tile once per program instance, then "
                                                "fence.proxy.async and a warp-group barrier before its first WGMMA; "
                                                "K and V by TMA", "remark"))
    if widths is not None:
        from tileorch.diagnostics import format_error

        located.append(format_error(ck.dot2, head_dim_width.remark(widths, tile_widths, ck.k_step), "remark"))
        if isinstance(widths, tuple):
            record["head_dim_width"] = list(widths)
    elif head_dim_arrays is not None:  # launch-time head dims: the launcher may specialise on them
        record["head_dim_arrays"] = {"params": head_dim_arrays, "tile": list(tile_widths)}
    if work_items is not None:
        from tileorch.diagnostics import format_error

        located.append(format_error(work_items[0], "chained-dots tier (TMA + WGMMA): the work loop around the chain "
                                                   f"runs as the tier's persistent kernel, its work items the "
                                                   f"instances along axis {work_items[1]} (their count computed in "
                                                   "the kernel), on as many CTAs as the launch has programs (at "
                                                   "most one per SM)", "remark"))
    if occupancy_why:
        located.append(occupancy_why)
    if row_groups_said:
        record["row_groups_off"] = row_groups_off
    if ck.row_groups or row_groups_said:
        from tileorch.diagnostics import format_error

        located.append(format_error(ck.dot1, row_groups_remark(ck.row_groups, consumer_regs(plan.consumers),
                                                               plan.smem, plan.stages, plan.q_slots)
                                    if ck.row_groups else f"{ROW_GROUPS_ENV}={row_groups_setting()} not applied: "
                                    f"{row_groups_off}", "remark"))
    if ck.dtype2:  # each dot its own 16-bit type (f16 scores, a bf16 P @ V)
        from tileorch.diagnostics import format_error

        located.append(format_error(ck.dot2, f"chained-dots tier: the first dot multiplies {ck.dtype} tiles, this "
                                             f"dot {ck.dtype2} ones (P rounded to {ck.dtype2} in registers, "
                                             f"wgmma ...f32.{ck.dtype2}.{ck.dtype2})", "remark"))
    if located:  # remarks at the user's lines (the driver prints them with the tier's remark)
        record["remarks"] = located
    if ck.q_prologue is not None:  # applied in place to the Q tile after each Q load
        record["q_prologue"] = [op.name.split(".", 1)[1] for op in ck.q_prologue.ops]
        if ck.q_prologue.rowwise:
            record["q_prologue_rowwise"] = True
    if ck.b_prologue is not None:  # applied in place to each K tile in its stage
        record["k_prologue"] = [op.name.split(".", 1)[1] for op in ck.b_prologue.ops]
    period = exp2_fma_period(ck.d, ck.dv)
    if period and any(op.name == "nv_tileaa.exp2" for op in ck.loop.walk()):
        record["exp2_fma"] = {"period": period, "default": settings.value(EXP2_FMA_ENV) is None}
    fn.attributes[CHAINED_ATTR] = encode_record(record)
    fn.attributes["tileorch.tile_kernel"] = StringAttr(kernel.sym_name.data)
    module.body.block.insert_op_before(fn, kernel)
    kernel.detach()
    kernel.erase(safe_erase=False)
    module.attributes.setdefault("cutlass.target", StringAttr("sm_90a"))


__all__ = ["CHAINED_ATTR", "PINGPONG_BARRIERS", "ChainedKernel", "FragmentLowering", "analyze_chained_dots",
           "chained_dots", "lower_chained_kernel", "overlap_enabled", "persistent_enabled", "pingpong_enabled",
           "pingpong_per_kernel"]
