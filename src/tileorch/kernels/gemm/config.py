"""GEMM kernel configurations: what the builder offers, what each costs in shared memory.

A configuration names everything that changes the kernel's IR (tile, stages, cluster, consumer
arrangement, scheduler, operand layouts and dtypes); problem sizes are run-time arguments.
:meth:`GemmConfig.check` rejects what the hardware or the builder cannot do, with the reason.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from tileorch.dialects.register_budget import fits, slot_budget

SMEM_LIMIT = 232448 - 1024  # dynamic shared memory per CTA on sm_90 (227 KiB) less 1 KiB of static mbarriers
SWIZZLE_BYTES = 128  # the TMA / WGMMA 128-byte swizzle: one K row of a tile is 64 bf16
SCHEDULES = ("persistent", "streamk", "dp")
DTYPES = ("bf16", "f16", "e4m3", "e5m2", "tf32", "s8", "u8")
OUT_DTYPES = ("bf16", "f16", "f32", "s32", "s8", "e4m3", "e5m2")
FP8 = ("e4m3", "e5m2")
DIRECT_OUT_DTYPES = ("f32", "s32", "s8") + FP8
"""Outputs the TMA epilogue (16-bit rows of 128 bytes) does not stage: stored by the direct epilogue."""
INT8 = ("s8", "u8")
"""Integer inputs (signed / unsigned 8-bit): ``wgmma ... .s32.{s8|u8}.{s8|u8}``, i32 accumulators."""
K_MAJOR_ONLY = FP8 + ("tf32",) + INT8
"""Input types WGMMA cannot transpose in shared memory: both operands must be K-major."""
ELEMENT_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1, "s32": 4}
WGMMA_TYPES = {"bf16": ("bf16", "f32"), "f16": ("f16", "f32"), "tf32": ("tf32", "f32"), "e4m3": ("e4m3", "f32"),
               "e5m2": ("e5m2", "f32"), "s8": ("s8", "s32"), "u8": ("u8", "s32")}
"""Input dtype -> (the WGMMA operand type, the accumulator type ``D``); the instruction's K is
32 bytes of the operand type (:attr:`GemmConfig.mma_k`)."""
B_MAJORS = ("k", "n")
RAW_DTYPES = ("s8", "u8", "f16", "bf16", "f32", "s32", "e4m3", "e5m2")
"""Raw B element types a computed B (:attr:`GemmConfig.b_raw`) is loaded as."""
TRANSFORM_BARRIER = 3
"""The named barrier (CUTLASS ``ReservedNamedBarriers::TransformBarrier``) every consumer thread
meets after writing its share of a computed B operand (:attr:`GemmConfig.b_raw`)."""
ACCUMULATOR_REGISTERS = 128
"""Accumulator registers per consumer thread the builder allows over all its accumulators (a
64x256 f32 accumulator, or two 64x128): the rest of the 232 a consumer holds goes to descriptors,
addresses and the epilogue's values; more spills the accumulators to local memory."""
LOW_RANK_REGISTERS = 32
"""More accumulator registers a LoRA branch's low-rank accumulator (``lora_rank`` <= 64, its product
added onto the main accumulator: :attr:`GemmConfig.lora_own_acc` off) may take beside a main one that
fills :data:`ACCUMULATOR_REGISTERS`: the 128x256 main tile with a rank-64 branch (160 registers) assembles
without spills (ptxas 13.0, session 26)."""


def accumulator_limit(lora_rank: int, lora_own_acc: bool) -> int:
    """The accumulator registers per consumer thread a kernel may hold: :data:`ACCUMULATOR_REGISTERS`, plus
    :data:`LOW_RANK_REGISTERS` for a low-rank branch that adds onto the main accumulator (one of its own
    keeps two ``tile_n`` wide accumulators live after the K loop: no allowance)."""
    return ACCUMULATOR_REGISTERS + (LOW_RANK_REGISTERS if 0 < lora_rank <= 64 and not lora_own_acc else 0)


OVERRIDABLE = ("tile_n", "stages", "cluster_m", "raster", "max_swizzle", "producer_regs", "consumer_regs", "epilogue",
               "c_ld", "fp8_promote", "b_shared")
"""The configuration fields a tile program's lowering takes as overrides (``convert-nv-tileas-to-cutlass
{config=...}``); the rest follow from the program.  ``c_ld`` (``c_ld=1``): the launcher's C is a column
slice of a wider array.  ``fp8_promote``: an e4m3 / e5m2 dot's two-level accumulation as asked (``tileorch.gemm``'s
configuration, a launcher's retiled one), kept where the asked tile leaves the registers for it
(``transforms/tileas/fp8_promotion.asked``).  ``b_shared`` (``b_shared=1``): the launcher's B of a batched
GEMM is one matrix broadcast over the batch (batch stride 0): every work tile reads it at batch index 0."""


LAUNCH_OVERRIDES = ("kvec_global",)
"""Words the lowering's ``config`` option takes besides :data:`OVERRIDABLE` that are no configuration field: what
the launcher asks of the lowering for one launch's arrays.  ``kvec_global=1``: the K-indexed vectors of a computed
operand stay the consumers' own global loads (as ``TILEORCH_COMPUTED_OPERAND=global_k_vectors``, for this compile
only): the launch's vector array is one the producer's TMA cannot read in place (a base not 16-byte aligned, rows
not 16 bytes apart), and the kernel then has no ``kvecs``."""


def override_string(cfg) -> str:
    """``cfg``'s overridable fields as the lowering's ``config`` option (``"tile_n=256,stages=4,..."``);
    a flag (``c_ld``) only when set, as ``1``."""
    return ",".join(f"{name}={int(v) if isinstance(v, bool) else v}" for name in OVERRIDABLE
                    if (v := getattr(cfg, name)) is not False)


class GemmConfigError(ValueError):
    """A configuration the builder cannot produce (the message says which rule)."""


@dataclass(frozen=True)
class GemmConfig:
    """``C[M,N] = A[M,K] @ B`` with A stored ``[M,K]`` (``a_major="k"``) or ``[K,M]``
    (``a_major="m"``, ``A^T`` stored: M-major WGMMA A operand), B stored ``[N,K]`` (``b_major="k"``) or
    ``[K,N]`` (``b_major="n"``), fp32 accumulation (i32 for s8/u8 inputs), C row-major in ``out_dtype``.

    * ``tile_m x tile_n x tile_k`` CTA tile; each consumer warp group owns 64 rows (cooperative):
      ``tile_m = 128`` (two consumer warp groups) or ``64`` (one: a tile program's own 64-row
      tiles); ``tile_n`` in {64, 128, 192, 256}; ``tile_k`` one 128-byte swizzle row of the input
      type (64 bf16), or, for a program's own K range of shorter K tiles, a 64- or 32-byte row
      (32 or 16 bf16: the 64- or 32-byte swizzle of a K-major operand, :attr:`k_row_bytes`);
    * ``stages`` pipeline stages of ``(tile_m + tile_n) * tile_k * 2`` bytes each;
    * ``cluster_m`` CTAs along M share every B tile through TMA multicast (1 or 2);
    * ``schedule``: ``persistent`` (one wave of CTAs walking tiles, raster + swizzle),
      ``streamk`` (CUTLASS Stream-K with fix-up), ``dp`` (one CTA per tile);
    * ``producer_regs`` / ``consumer_regs``: the ``setmaxnreg`` split; 128*(p + 2c) <= 64 Ki;
    * ``epilogue``: ``tma`` stages each consumer warp group's slice of the tile, 64 columns at a
      time through two swizzled 8 KiB slots, and stores it with TMA (asynchronously: the next
      round's staging and the next tile's mainloop overlap the stores); ``direct`` stores the
      registers to global memory (any out dtype); ``atomic``: the program's own atomic adds (the tier's
      lowering of an ``atomic_rmw`` epilogue: one ``red.global.add`` per accumulator element, C is
      not stored by the kernel).
    """

    tile_m: int = 128
    tile_n: int = 256
    tile_k: int = 64
    stages: int = 4
    cluster_m: int = 2
    schedule: str = "persistent"
    dtype: str = "bf16"
    out_dtype: str = "bf16"
    b_major: str = "k"
    a_major: str = "k"
    producer_regs: int = 40
    consumer_regs: int = 232
    raster: str = "heuristic"
    max_swizzle: int = 1
    epilogue: str = "tma"
    transpose_b: bool = False
    """The program's B is N-major ``[K, N]`` but the kernel reads it K-major (fp8/tf32 WGMMA cannot
    transpose in shared memory): the launcher passes a K-major copy (one extra pass over B)."""
    transpose_a: bool = False
    """The program's A is M-major ``[K, M]`` but the kernel reads it K-major (fp8/int8/tf32 WGMMA
    cannot transpose in shared memory): the launcher passes a K-major ``[M, K]`` copy."""
    b_dtype: str = ""
    """B's element type when it differs from A's (only s8 x u8 / u8 x s8: WGMMA takes any mix of
    8-bit integer signedness); empty means ``dtype``."""
    grid_l: bool = False
    """The scheduler walks M x N x L work tiles with L the launch grid's third extent while A, B and C
    stay 2-D (a program that reads program id 2 without being batched: split-K); the work tile's
    ``l`` stands in for program id 2.  With ``batched``: the program computes its operands' batch
    indices from program id 2 (the tier evaluates them per work tile); the tensor maps hold the
    arrays' own (flattened) batch count, the scheduler walks the launch grid's z."""
    scratch_bytes: int = 0
    """Shared memory after the epilogue buffer for the tier's epilogue (a column reduction of the
    result exchanges its per-warp partials there); the kernel builder leaves it alone."""
    b_operands: int = 1
    """Dots in the K loop sharing the A tile, each with its own B and accumulator (a gated MLP's
    ``silu(X @ Wg) * (X @ Wu)``: 2).  Every stage holds the A tile and one tile of each B; the
    consumers keep ``b_operands`` accumulators and issue one WGMMA batch per B each K step; the
    epilogue (the tier's) combines them.  The extra B tensor maps follow ``params`` in the kernel's
    parameters."""
    a_operands: int = 1
    """The distinct A operands of the K loop's dots: 1 (every dot reads the one A tile, :attr:`b_operands`
    dots sharing A), or one per dot (:attr:`pairs` of them): dot ``i`` reads A ``i`` and B ``i`` (``acc1 += x @ w1;
    acc2 += z @ w2``, or one product split over two operand pairs along K), or, with one B operand, A ``i`` and the
    one B (``A1 B - A2 B``: dots sharing B).  Every stage holds the ``a_operands`` A tiles, then
    the B tiles; the producer issues one TMA per operand tile on the stage's full barrier (its transaction
    count the sum of their bytes: :attr:`tx_bytes`); the consumers run one WGMMA batch per (A ``i``, B ``i``)
    pair.  The extra A tensor maps follow the extra B maps in the kernel's parameters."""
    k_segments: bool = False
    """With an A and a B per dot (:attr:`a_operands` = :attr:`b_operands` = :attr:`pairs` > 1): the pairs' K loops run
    one after the other, each over its own K (two K loops in sequence: ``acc += x1 @ w1`` over K1, then ``x2 @ w2``
    over K2), instead of every pair each K step.  A stage holds one pair's A and B tiles; the producer loads pair 0's
    K tiles, then pair 1's, ... through the one pipeline, the consumers run the same K segments in the same order
    (the pipeline's state carried across them); pair ``i``'s K is the kernel's i32 parameter ``k<i>`` after the
    other As' tensor maps (pair 0's is ``k``)."""
    pair_stages: bool = False
    """With an A and a B per dot (:attr:`a_operands` = :attr:`b_operands` = :attr:`pairs` > 1) over one K: a stage
    holds one pair's A and B tiles, and each K tile takes :attr:`pairs` consecutive stages (pair 0's, pair 1's, ...)
    instead of one stage holding every pair's.  The order of the WGMMA batches is the same; the ring's stages are
    :attr:`pairs` times smaller, so as many more fit and a stage is refilled after one pair's batch, not all of them."""
    one_accumulator: bool = False
    """With :attr:`b_operands` > 1: the dots accumulate in order into one accumulator (``acc = z @ w2 + (x @ w1
    + acc)``, one product over several operand pairs) instead of one accumulator each."""
    c_transposed: bool = False
    """The program stores the accumulator transposed: C is a row-major ``[N, M]`` array (``C^T``).
    The kernel builder's fragment store of C (``direct``) is replaced by the tier's epilogue, which
    stores each element at its transposed coordinates; the host neither stages nor maps C."""
    c_ld: bool = False
    """C's row stride is the kernel parameter ``ldc`` (elements), not N: C is a column slice
    ``Out[:, off:off + N]`` of a wider array (a fused QKV or gate/up projection's output).  The direct
    epilogue stores rows ``ldc`` apart, the TMA epilogue's tensor map takes that row stride; the host
    passes C's pointer at the slice's first column.  Not batched, transposed or atomic."""
    batched: bool = False
    """A, B and C carry a leading batch dimension L (3-D tensor maps; the scheduler walks
    M x N x L tiles, the batch coordinate is the work tile's ``l``)."""
    batch_mid: str = ""
    """With :attr:`batched`: the operands (``a``, ``b``, ``c``) whose arrays hold the batch in their middle dimension
    (``[rows, L, cols]``: a ``(tile_m, 1, tile_k)`` tile of a sequence-first ``[S, B, K]`` array at program id 2).  The
    kernel reads A and B through the same 3-D tensor maps (the host gives them the array's row and batch pitches);
    C (``c``, with :attr:`c_ld`) is the ``[M, L N]`` array of rows ``ldc`` apart whose matrix ``l`` is the column
    block at element ``l * N``: the direct epilogue stores there, the TMA epilogue's map takes both pitches."""
    b_shared: bool = False
    """A batched kernel whose B is one matrix for every batch (a program's 2-D B, or B read at batch
    index 0): B's tensor map holds one matrix and the B loads' batch coordinate is 0."""
    program_grid: bool = False
    """The scheduler walks the launch grid of a tile program, one work tile per program: its
    ``(m, n, l)`` are program ids 0, 1 and 2 (the host sizes the scheduler's problem as the grid's
    ``x * tile_m``, ``y * tile_n`` and ``z`` matrices), and the tier's lowering evaluates the
    program's own tile coordinates and conditions from them.  1-CTA clusters, no Stream-K."""
    k_used: int = 0
    """When > 0: the program reads only K elements ``0 .. k_used - 1`` (a K loop of constant bounds over
    K tiles ``0 .. T - 1``, or one dot on K tile 0: ``tileas/k_range.py``).  The kernel is the plain
    GEMM over all of K, so the launcher runs it only for ``K <= k_used`` (the program's own K range
    then reads all of K, its last tile zero-padded alike) and sends a larger K to the SIMT path.
    Does not change the kernel's code (not in :attr:`name`)."""
    b_raw: str = ""
    """B is computed in the kernel from a tile of this element type (:data:`RAW_DTYPES`; empty: B is
    loaded as the WGMMA reads it).  Each stage holds the A tile, the B operand tile (where the
    WGMMAs read it, laid out as a loaded B) and after it the raw tile the producer's TMA loads
    (unswizzled, :attr:`b_raw_stage_bytes`); per K tile the consumer warp groups compute the
    operand from the raw tile into the stage's operand tile (the tier inserts the program's ops
    before the consumers' ``fence.proxy.async`` + named barrier :data:`TRANSFORM_BARRIER`, at the
    values ``%braw_off`` / ``%bop_off``: :func:`tileorch.kernels.gemm.build._consumer`), then the
    WGMMAs run.  One B operand, one CTA per cluster."""

    a_raw: str = ""
    """A is computed in the kernel from a tile of this element type (:data:`RAW_DTYPES`), as a computed
    B (:attr:`b_raw`): each stage also holds A's raw tile (unswizzled unless :attr:`a_regs`, :attr:`a_raw_stage_bytes`,
    after B's), the consumer warp groups write the A operand tile from it (``%araw_off`` /
    ``%aop_off``) before the same fence and named barrier :data:`TRANSFORM_BARRIER`.  One CTA per
    cluster; the A operand stays in shared memory (the WGMMA's descriptor form) unless :attr:`a_regs`."""

    a_regs: bool = False
    """With :attr:`a_raw` (K-major A): the computed A is WGMMA's *register* A operand instead of a staged
    tile.  A stage holds no A operand tile; A's raw tile is TMA-loaded with the swizzle of its K row
    (:attr:`a_raw_swizzle`), each consumer thread reads its own elements of it (``%araw_off``) in the
    WGMMA A-fragment layout, the tier evaluates the program's ops into the fragment's registers
    (``%afrag<j>q<q>``: K step ``j`` of ``mma_k``, register ``q``) and the WGMMAs read A from registers
    (no fence.proxy.async, no transform barrier for A)."""

    a_gather: bool = False
    """With :attr:`a_regs`: A is gathered (``ct.gather``: MoE token rows, embedding or paged rows): the producer
    loads no A tile (no raw tile in the stages, none in the transaction count) and each consumer thread loads
    its own elements of the register A fragment from global memory (the tier inserts the loads at the K
    step's ``%araw_rs_off``: :mod:`tileorch.transforms.tileas.gathered_operand`).  The host's A tensor map is
    built from the gathered array but not read."""

    epi_n: int = 0
    """A second dot on the accumulator after the K loop (GEMM then GEMM: ``C = f(A B) E``): its N tile.
    The first dot's accumulator (``tile_n`` columns, the second dot's K; B's N coordinate is always 0) is
    packed pairwise to :attr:`dtype` as the register A operand of ``tile_n / 16`` ``wgmma m64n{epi_n}k16``
    whose B is the ``[tile_n (K), epi_n (N)]`` tile of E (stored ``[K2, N2]``, N-major), which the producer
    TMA-loads into a buffer of its own (:attr:`epi_offset`), handed over by a one-stage pipeline of its own,
    right after issuing the work tile's last K tile (``epi_n / 64`` boxes of ``tile_n`` rows x 64 columns:
    it lands while the consumers finish the K loop); C's tiles are ``tile_m x epi_n`` (the scheduler's N tile,
    :attr:`out_tile_n`).  0: no second dot.  Registers: the first accumulator dies as it is packed, the
    packed A (``tile_n / 4``) and the second accumulator (``epi_n / 2``) are live together (at most 64 + 128)."""

    epi_major: str = "n"
    """How E, the second dot's B (:attr:`epi_n`), is stored: ``"n"`` ``[K2, N2]`` (N-major: boxes of ``tile_n``
    K rows x 64 N columns, the descriptors' transposed B) or ``"k"`` ``[N2, K2]`` (K-major, nn.Linear's weight
    layout: ``epi_k / 64`` boxes of ``epi_n`` N rows x 64 K columns, 128-byte swizzled K rows, the descriptors'
    plain B).  16-bit WGMMA reads either; the tier refuses 8-bit and tf32 second dots."""

    epi_loop: bool = False
    """With :attr:`epi_n` (no low-rank branch): each work tile of the scheduler covers ``epi_c`` N tiles of C
    (the kernel's i32 parameter after E's tensor map; the host sizes the scheduler's N as ``ceil(N tiles /
    epi_c)`` tiles of :attr:`out_tile_n`): the first dot and its packed register A are computed once per work
    tile, then the consumers loop over N tiles ``tn epi_c .. min(tn epi_c + epi_c, ceil(N / epi_n)) - 1``, each
    the second dot's WGMMAs and C's store, while the producer streams E's tiles through
    :attr:`epi_stages` buffers (:mod:`tileorch.transforms.tileas.epilogue_dot`'s coarsening)."""

    epi_overlap: bool = False
    """With :attr:`epi_loop`: each next N tile's second-dot WGMMAs are issued before the current tile's store
    (two second accumulators live; ``TILEORCH_EPILOGUE_DOT_OVERLAP``)."""

    lora_rank: int = 0
    """A low-rank branch beside the main dot (LoRA, three dots: ``C = A B + f(A B1) E``): with
    :attr:`b_operands` 2 and :attr:`epi_n` ``tile_n``, B operand 1 is the ``[K, lora_rank]`` block of B1 (its
    column tile 0; laid out as B, its stage tile ``lora_rank`` wide: :attr:`b_tile_ns`), its accumulator
    ``m64n{lora_rank}``; after the K loop that accumulator is packed as the register A of ``lora_rank / 16``
    WGMMAs ``m64n{tile_n}k16`` whose B is E's ``[lora_rank, tile_n]`` tile at the work tile's column and whose
    accumulator is the main one (the second dot accumulates onto it: no third accumulator; registers: the
    main ``tile_n / 2``, the low-rank ``lora_rank / 2`` and its packed ``lora_rank / 4``).  0: none."""

    lora_own_acc: bool = False
    """With :attr:`lora_rank`: the second dot runs into a zero accumulator of its own, the one the fragment
    store reads, and the main accumulator stays the K loop's result beside it (the tier's epilogue reads both:
    a program that adds the low-rank product after its dot, ``acc + s * (a @ B)``); registers after the K loop:
    ``tile_n / 2`` twice and the packed ``lora_rank / 4``."""
    fp8_promote: int = 0
    """Two-level accumulation of an e4m3/e5m2 dot (``TILEORCH_FP8_PROMOTE_INTERVAL``): the consumer's WGMMAs
    accumulate ``fp8_promote`` K tiles at a time into a scratch accumulator that starts at zero; after each such
    block (and after the work unit's last, shorter, one: ``min(kb + fp8_promote, kend)``) the consumer waits for the
    block's WGMMAs and adds the scratch into the f32 main accumulator with f32 additions (CUDA cores), so the
    tensor core's narrower fp8 adder sums at most ``fp8_promote * tile_k`` products per value.  Registers: a second
    ``tile_n / 2`` per thread (:attr:`accumulator_registers`).  0: off (the WGMMAs sum the whole K loop)."""
    kvecs: str = ""
    """With :attr:`a_raw` or :attr:`b_raw`: the vectors a computed operand's map loads at the K loop's index
    (``gamma[k]``, a group's scale row) that the producer TMA-loads into each pipeline stage beside the operand
    tiles, as the comma-separated ``<bytes of its box>:<its array's parameter>:<dtype>:<rank>`` of each one
    (``"128:3:f16:1"``: 64 f16 values of the 1-D ``gamma`` whose pointer is the program's parameter 3:
    :attr:`kvec_params`).  Vector ``v`` of stage ``s`` is at :attr:`kvec_offset` ``+ s *`` :attr:`kvec_stage_bytes`
    ``+`` :attr:`kvec_slot` ``(v)`` (after the rest of shared memory: the 1 KiB-aligned stages keep their layout),
    its box bytes count in :attr:`tx_bytes`; the tier gives the producer's load its box coordinates
    (``%kvcoord<v>x``, ``%kvcoord<v>y``, from the program's index of the load) and its own tensor map (a parameter
    after the builder's, before the program's), and the consumers read the values from the stage
    (``%kvec_off<v>``: ``tileas/k_vector_tma.py``).  Empty: none (K-indexed vectors, if any, loaded by the
    consumers from global memory)."""

    @property
    def b_tile_ns(self) -> tuple[int, ...]:
        """The N extent of each B operand's stage tile: ``tile_n``, the low-rank branch's ``lora_rank`` last."""
        return (self.tile_n,) * (self.b_operands - 1) + (self.lora_rank or self.tile_n,)

    @property
    def epi_k(self) -> int:
        """The second dot's K (:attr:`epi_n`): the low-rank accumulator's columns (:attr:`lora_rank`), else the
        first dot's (``tile_n``)."""
        return self.lora_rank or self.tile_n

    @property
    def out_tile_n(self) -> int:
        """The N extent of a work tile of C: :attr:`epi_n` for a second dot, else :attr:`tile_n`."""
        return self.epi_n or self.tile_n

    @property
    def epi_bytes(self) -> int:
        """The bytes of the second dot's B tile (:attr:`epi_n`)."""
        return self.epi_k * self.epi_n * self.element_bytes

    @property
    def epi_stages(self) -> int:
        """The buffers of E's pipeline: two when the consumers loop over N tiles (:attr:`epi_loop`: the next
        tile of E lands while they run the current one), else one."""
        return 2 if self.epi_loop else 1

    @property
    def consumer_groups(self) -> int:
        return self.tile_m // 64

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumer_groups)

    @property
    def element_bytes(self) -> int:
        """Bytes per A/B element (2 for f16/bf16, 1 for fp8)."""
        return ELEMENT_BYTES.get(self.dtype, 2)

    @property
    def dtype_b(self) -> str:
        """B's element type (``b_dtype``, else ``dtype``)."""
        return self.b_dtype or self.dtype

    @property
    def is_integer(self) -> bool:
        """s8/u8 inputs: i32 accumulators, exact products and sums (wrapping on overflow)."""
        return self.dtype in INT8

    @property
    def acc_type(self) -> str:
        """The WGMMA accumulator type: ``f32``, or ``s32`` for integer inputs."""
        return WGMMA_TYPES[self.dtype][1] if self.dtype in WGMMA_TYPES else "f32"

    @property
    def mma_k(self) -> int:
        """K of one WGMMA instruction (32 bytes of K): 16 for 16-bit inputs, 32 for fp8, 8 for tf32."""
        return 32 // self.element_bytes

    @property
    def k_row_bytes(self) -> int:
        """Bytes of one K row of a K-major operand tile (``tile_k`` elements): 128, 64 or 32, the
        swizzle span of its TMA box and WGMMA descriptor.  An M/N-major operand keeps the 128-byte
        swizzle (64 M/N elements a row) in chunks of ``tile_k`` rows (:attr:`mn_chunk_bytes`)."""
        return self.tile_k * self.element_bytes

    @property
    def mn_chunk_bytes(self) -> int:
        """Bytes of one 64-column chunk of an M/N-major (16-bit) operand tile: ``tile_k`` rows of 128
        bytes, i.e. 64 K-rows' worth of :attr:`k_row_bytes` (8192 for every 128-byte K row)."""
        return 64 * self.k_row_bytes

    @property
    def a_stage_bytes(self) -> int:
        """Bytes of a stage's A operand tile (none for a register A: :attr:`a_regs`)."""
        return 0 if self.a_regs else self.tile_m * self.tile_k * self.element_bytes

    @property
    def b_stage_bytes(self) -> int:
        return self.tile_n * self.tile_k * self.element_bytes

    @property
    def raw_element_bytes(self) -> int:
        """Bytes per element of a computed B's raw tile (:attr:`b_raw`)."""
        return ELEMENT_BYTES.get(self.b_raw, 1)

    @property
    def raw_chunk_columns(self) -> int:
        """Columns of one raw B box along B's contiguous dimension: 64 N columns of an N-major B (as
        the operand's 64-column chunks), the whole ``tile_k`` of a K-major one."""
        return 64 if self.b_major == "n" else self.tile_k

    @property
    def b_raw_bytes(self) -> int:
        """Bytes of a computed B's raw tile (what the producer's TMA loads of B bring)."""
        return self.tile_n * self.tile_k * self.raw_element_bytes if self.b_raw else 0

    @property
    def b_raw_stage_bytes(self) -> int:
        """Bytes a stage keeps for the raw tile: :attr:`b_raw_bytes` up to a whole 1024-byte swizzle
        atom (every stage's A tile starts on one)."""
        return -(-self.b_raw_bytes // 1024) * 1024

    @property
    def a_raw_element_bytes(self) -> int:
        """Bytes per element of a computed A's raw tile (:attr:`a_raw`)."""
        return ELEMENT_BYTES.get(self.a_raw, 1)

    @property
    def a_raw_chunk_columns(self) -> int:
        """Columns of one raw A box along A's contiguous dimension: the whole ``tile_k`` of a K-major
        A, 64 M columns of an M-major one (as the operand's 64-column chunks)."""
        return self.tile_k if self.a_major == "k" else 64

    @property
    def a_raw_bytes(self) -> int:
        """Bytes of a computed A's raw tile (what the producer's TMA loads of A bring)."""
        return self.tile_m * self.tile_k * self.a_raw_element_bytes if self.a_raw and not self.a_gather else 0

    @property
    def a_raw_stage_bytes(self) -> int:
        """Bytes a stage keeps for A's raw tile, up to a whole 1024-byte swizzle atom."""
        return -(-self.a_raw_bytes // 1024) * 1024

    @property
    def a_raw_swizzle(self) -> int:
        """The swizzle span (bytes) of A's raw TMA box: its K row's bytes (128, 64 or 32) for a register
        A (:attr:`a_regs`: the consumers' fragment reads of 8 rows fall in distinct banks), else 0
        (unswizzled)."""
        row = self.tile_k * self.a_raw_element_bytes
        return row if self.a_regs and row in (32, 64, 128) else 0

    @property
    def a_raw_offset(self) -> int:
        """Where A's raw tile starts in a stage: after the A and B operand tiles and B's raw tile."""
        return self.a_stage_bytes + self.b_operand_bytes + self.b_raw_stage_bytes

    @property
    def b_operand_bytes(self) -> int:
        """Bytes of a stage's B operand tiles (:attr:`b_tile_ns` wide each; one pair's with :attr:`k_segments`)."""
        return (self.b_tile_ns[0] if self.one_pair_per_stage else sum(self.b_tile_ns)) * self.tile_k * self.element_bytes

    @property
    def pairs(self) -> int:
        """The dots of the K loop (operand pairs): one per A or per B operand, whichever there are several of."""
        return max(self.a_operands, self.b_operands)

    @property
    def a_operand_bytes(self) -> int:
        """Bytes of a stage's A operand tiles (:attr:`a_operands` of :attr:`a_stage_bytes`); the B tiles follow."""
        return (1 if self.one_pair_per_stage else self.a_operands) * self.a_stage_bytes

    @property
    def one_pair_per_stage(self) -> bool:
        """Whether a stage holds one operand pair's tiles (:attr:`k_segments` or :attr:`pair_stages`), not every
        pair's."""
        return self.k_segments or self.pair_stages

    @property
    def stage_bytes(self) -> int:
        return self.a_operand_bytes + self.b_operand_bytes + self.b_raw_stage_bytes + self.a_raw_stage_bytes

    @property
    def tx_bytes(self) -> int:
        """Bytes the producer's TMA loads bring into a stage (the full barrier's transaction count):
        A's tile (or its raw tile, :attr:`a_raw`) and B's tiles (or B's raw tile, :attr:`b_raw`), and the
        K vectors' boxes (:attr:`kvecs`)."""
        a = self.a_raw_bytes if self.a_raw else self.a_operand_bytes
        return a + (self.b_raw_bytes if self.b_raw else self.b_operand_bytes) + sum(self.kvec_box_bytes)

    @property
    def kvec_box_bytes(self) -> tuple[int, ...]:
        """The bytes of each TMA-loaded K vector's box (:attr:`kvecs`)."""
        return tuple(int(x.split(":")[0]) for x in self.kvecs.split(",") if x.strip())

    @property
    def kvec_params(self) -> tuple[int, ...]:
        """Each TMA-loaded K vector's array: the index, among the program's parameters after the kernel
        builder's, of its base pointer (its shape and strides follow it), the host's source of its map."""
        return tuple(int(x.split(":")[1]) for x in self.kvecs.split(",") if x.strip())

    def kvec_slot(self, v: int) -> int:
        """Where K vector ``v``'s box starts in a stage's vector slots (each slot 128-byte aligned: a TMA
        destination's alignment)."""
        return sum(-(-b // 128) * 128 for b in self.kvec_box_bytes[:v])

    @property
    def kvec_stage_bytes(self) -> int:
        """A stage's vector slots' bytes (:attr:`kvecs`)."""
        return self.kvec_slot(len(self.kvec_box_bytes))

    @property
    def kvec_offset(self) -> int:
        """Where stage 0's vector slots start: after the rest of dynamic shared memory, 128-byte aligned."""
        end = (self.epi_offset + self.epi_bytes * self.epi_stages if self.epi_n else
               self.stages * self.stage_bytes + self.epilogue_bytes + self.scratch_bytes)
        return -(-end // 128) * 128

    @property
    def epilogue_columns(self) -> int:
        """Columns of C the staging buffer holds per warp group: two 64-column slots."""
        return 128

    @property
    def epilogue_bytes(self) -> int:
        return self.consumer_groups * 64 * self.epilogue_columns * 2 if self.epilogue == "tma" else 0

    @property
    def smem_bytes(self) -> int:
        if self.kvecs:
            return self.kvec_offset + self.stages * self.kvec_stage_bytes
        if self.epi_n:
            return self.epi_offset + self.epi_bytes * self.epi_stages
        return self.stages * self.stage_bytes + self.epilogue_bytes + self.scratch_bytes

    @property
    def epi_offset(self) -> int:
        """Where the second dot's B tile (:attr:`epi_n`) starts in dynamic shared memory: after the ring, the
        epilogue's and the scratch bytes, 1 KiB aligned (the 128-byte swizzle's atom)."""
        return -(-(self.stages * self.stage_bytes + self.epilogue_bytes + self.scratch_bytes) // 1024) * 1024

    @property
    def scratch_offset(self) -> int:
        """Where :attr:`scratch_bytes` starts in dynamic shared memory."""
        return self.stages * self.stage_bytes + self.epilogue_bytes

    @property
    def accumulators(self) -> int:
        """Accumulator registers (f32, or i32 for integer inputs) per consumer thread (m64n{tile_n})."""
        return self.tile_n // 2

    @property
    def accumulator_registers(self) -> int:
        """Accumulator registers per consumer thread over all ``b_operands`` accumulators (one with
        :attr:`one_accumulator`)."""
        if self.fp8_promote:  # (one dot: the main accumulator and the scratch the WGMMAs accumulate into)
            return self.tile_n
        if self.one_accumulator:
            return self.tile_n // 2
        return self.pairs * self.tile_n // 2 if self.a_operands > self.b_operands else sum(self.b_tile_ns) // 2

    @property
    def name(self) -> str:
        return (f"gemm_{self.dtype}{'x' + self.b_dtype if self.b_dtype else ''}_{self.out_dtype}_b{self.b_major}_{self.tile_m}x{self.tile_n}x{self.tile_k}"
                f"_s{self.stages}_c{self.cluster_m}x1_{self.schedule}_r{self.producer_regs}_{self.consumer_regs}"
                f"_{self.raster}_sw{self.max_swizzle}_e{self.epilogue}{'_batched' if self.batched else ''}"
                f"{'_ta' if self.transpose_a else ''}{'_gl' if self.grid_l else ''}"
                f"{'_am' if self.a_major == 'm' else ''}{f'_x{self.scratch_bytes}' if self.scratch_bytes else ''}"
                f"{f'_d{self.b_operands}' if self.b_operands != 1 else ''}"
                f"{f'_a{self.a_operands}' if self.a_operands != 1 else ''}{'_acc1' if self.one_accumulator else ''}{'_seg' if self.k_segments else ''}{'_ps' if self.pair_stages else ''}{'_ct' if self.c_transposed else ''}"
                f"{'_ld' if self.c_ld else ''}{f'_mid{self.batch_mid}' if self.batch_mid else ''}"
                f"{'_pg' if self.program_grid else ''}{'_bs' if self.b_shared else ''}"
                f"{f'_raw{self.b_raw}' if self.b_raw else ''}{f'_araw{self.a_raw}' if self.a_raw else ''}"
                f"{'_areg' if self.a_regs else ''}{'_agather' if self.a_gather else ''}"
                f"{f'_dot{self.epi_n}' if self.epi_n else ''}"
                f"{f'_lora{self.lora_rank}' if self.lora_rank else ''}{'o' if self.lora_own_acc else ''}"
                f"{'k' if self.epi_n and self.epi_major == 'k' else ''}{'_nloop' if self.epi_loop else ''}"
                f"{'_ov' if self.epi_overlap else ''}{f'_pr{self.fp8_promote}' if self.fp8_promote else ''}"
                f"{'_kv' + '_'.join(str(b) for b in self.kvec_box_bytes) if self.kvecs else ''}")

    def as_dict(self) -> dict:
        return asdict(self)

    def check(self) -> GemmConfig:
        """Return self, or raise :class:`GemmConfigError` naming the first broken rule."""
        rules = [
            (self.dtype in DTYPES, f"dtype must be one of {DTYPES}, got {self.dtype!r}"),
            (self.tile_m in (64, 128), f"tile_m must be 128 or 64 (two or one consumer warp groups of 64 rows), "
                                       f"got {self.tile_m}"),
            (self.tile_n in (64, 128, 192, 256), f"tile_n must be 64, 128, 192 or 256 (wgmma n <= 256), got {self.tile_n}"),
            (self.k_row_bytes in (32, 64, 128) and self.tile_k >= self.mma_k,
             f"tile_k must be {128 // self.element_bytes}, {64 // self.element_bytes} or {32 // self.element_bytes} "
             f"(one 128-, 64- or 32-byte swizzle row of {self.dtype} elements, at least one WGMMA K of "
             f"{self.mma_k}), got {self.tile_k}"),
            (self.tile_m == 128 or self.schedule != "streamk",
             "a 64-row tile (one consumer warp group) runs the persistent or dp schedule (no Stream-K fix-up)"),
            (2 <= self.stages <= 16, f"stages must be in [2, 16] (one stage deadlocks: a consumer releases the "
                                     f"previous stage only after waiting for the next), got {self.stages}"),
            (self.b_operands >= 1, f"b_operands must be at least 1, got {self.b_operands}"),
            (self.accumulator_registers <= accumulator_limit(self.lora_rank, self.lora_own_acc),
             f"{self.b_operands} accumulators of 64x{self.tile_n} per consumer warp group need "
             f"{self.accumulator_registers} registers per thread; at most "
             f"{accumulator_limit(self.lora_rank, self.lora_own_acc)} fit beside the "
             f"descriptors, addresses and epilogue in {self.consumer_regs} (use a narrower tile_n)"),
            (self.a_operands >= 1 and (self.a_operands == 1 or self.b_operands in (1, self.a_operands)),
             f"a_operands must be 1 (dots sharing A) or, with b_operands 1 or equal, the dots' count (an A per dot), "
             f"got a_operands {self.a_operands}, b_operands {self.b_operands}"),
            (self.a_operands == 1 or not (self.a_raw or self.b_raw or self.epi_n or self.lora_rank or self.transpose_a),
             "an A per dot (a_operands > 1) reads every operand as loaded: no computed A or B, no second dot, "
             "no launch-time transposed A"),
            (not self.k_segments or (self.a_operands == self.b_operands > 1 and self.schedule != "streamk"),
             "K segments (k_segments) run pairs of an A and a B each (a_operands = b_operands > 1), not Stream-K"),
            (not self.pair_stages or (self.a_operands == self.b_operands > 1 and not self.k_segments
                                      and self.schedule != "streamk"),
             "a stage per operand pair (pair_stages) runs pairs of an A and a B each (a_operands = b_operands > 1) "
             "over one K, not K segments, not Stream-K"),
            (not self.one_accumulator or (self.pairs > 1 and not self.lora_rank),
             "one accumulator for several dots (one_accumulator) needs several operand pairs of one tile_n"),
            (self.pairs == 1 or self.schedule != "streamk",
             "several accumulators (b_operands > 1) have no Stream-K fix-up: persistent or dp schedules"),
            (self.pairs == 1 or self.epilogue != "atomic", "several accumulators need the tier's epilogue "
             "(tma or direct), not the atomic one"),
            (self.smem_bytes <= SMEM_LIMIT,
             f"{self.stages} stages of {self.stage_bytes} bytes (+ {self.epilogue_bytes} epilogue bytes"
             f"{f' + {self.scratch_bytes} scratch bytes' if self.scratch_bytes else ''}) need "
             f"{self.smem_bytes} bytes of shared memory; sm_90 allows {SMEM_LIMIT}"),
            (self.scratch_bytes >= 0 and self.scratch_bytes % 16 == 0,
             f"scratch_bytes must be a non-negative multiple of 16, got {self.scratch_bytes}"),
            (self.fp8_promote >= 0, f"fp8_promote must be >= 0, got {self.fp8_promote}"),
            (not self.fp8_promote or (self.dtype in FP8 and self.dtype_b in FP8 and self.pairs == 1
                                      and not self.k_segments and not self.a_regs),
             "two-level accumulation (fp8_promote) runs one dot of e4m3/e5m2 operands with A in shared memory"),
            (self.cluster_m in (1, 2), f"cluster_m must be 1 or 2, got {self.cluster_m}"),
            (self.cluster_m == 1 or (self.tile_n // self.cluster_m) % 8 == 0,
             f"tile_n = {self.tile_n} cannot be split into {self.cluster_m} multicast slices of whole 8-row swizzle atoms"),
            (self.b_major == "k" or (self.tile_n // self.cluster_m) % 64 == 0,
             f"an N-major B tile of {self.tile_n} columns cannot be split into {self.cluster_m} multicast slices "
             "of 64-column boxes"),
            (self.schedule in SCHEDULES, f"schedule must be one of {SCHEDULES}, got {self.schedule!r}"),
            (self.out_dtype in OUT_DTYPES, f"out_dtype must be bf16, f16, f32, s32, s8, e4m3 or e5m2, got {self.out_dtype!r}"),
            (self.b_dtype == "" or (self.dtype in INT8 and self.b_dtype in INT8),
             f"b_dtype (a B type other than A's) must be s8 or u8 with an s8/u8 A, got A {self.dtype}, "
             f"B {self.b_dtype!r}"),
            (self.out_dtype != "s32" or self.dtype in INT8,
             f"an s32 output needs integer (s8/u8) inputs (i32 accumulators), got {self.dtype}"),
            (self.dtype not in K_MAJOR_ONLY or (self.a_major == "k" and self.b_major == "k"),
             f"{self.dtype} WGMMA reads both operands K-major (only 16-bit types can be transposed in the "
             f"operand buffers): A must be stored [M, K] and B as B^T [N, K], got A {self.a_major}-major, "
             f"B {self.b_major}-major"),
            (self.b_major in B_MAJORS, f"b_major must be 'k' (B stored [N,K]) or 'n' (B stored [K,N]), got {self.b_major!r}"),
            (self.a_major in ("k", "m"), f"a_major must be 'k' (A stored [M,K]) or 'm' (A stored [K,M]), got {self.a_major!r}"),
            (24 <= self.producer_regs <= 256 and self.producer_regs % 8 == 0,
             f"producer_regs must be a multiple of 8 in [24, 256], got {self.producer_regs}"),
            (24 <= self.consumer_regs <= 256 and self.consumer_regs % 8 == 0,
             f"consumer_regs must be a multiple of 8 in [24, 256], got {self.consumer_regs}"),
            (fits(self.producer_regs, self.consumer_regs, self.consumer_groups),
             f"register split {self.producer_regs}/{self.consumer_regs} needs "
             f"{self.producer_regs + self.consumer_groups * self.consumer_regs} registers per lane slot; "
             f"a CTA of {self.consumer_groups + 1} warp groups starts with {slot_budget(self.consumer_groups + 1)} "
             "(setmaxnreg.inc would wait forever)"),
            (self.raster in ("heuristic", "along_m", "along_n"), f"raster must be heuristic, along_m or along_n, got {self.raster!r}"),
            (self.max_swizzle in (1, 2, 4, 8), f"max_swizzle must be 1, 2, 4 or 8, got {self.max_swizzle}"),
            (self.epilogue in ("tma", "direct", "atomic"),
             f"epilogue must be 'tma', 'direct' or 'atomic', got {self.epilogue!r}"),
            (self.epilogue != "tma" or self.out_dtype not in DIRECT_OUT_DTYPES,
             f"an {self.out_dtype} output needs epilogue='direct' (the TMA epilogue stages 16-bit rows of 128 bytes)"),
            (self.epilogue != "tma" or self.out_tile_n % 64 == 0, "the TMA epilogue stores whole 64-column boxes"),
            (not self.c_transposed or self.epilogue == "direct",
             "a transposed C (c_transposed) is stored by the tier's epilogue in place of the direct one's fragment "
             f"store: epilogue='direct', got {self.epilogue!r}"),
            (not self.c_ld or (self.epilogue in ("tma", "direct") and (not self.batched or "c" in self.batch_mid)
                               and not self.c_transposed),
             "a C with its own row stride (c_ld: a column slice of a wider array) is stored by the tma or direct "
             "epilogue of a 2-D, untransposed C (or of a C batched in its middle dimension: batch_mid 'c')"),
            (set(self.batch_mid) <= set("abc") and (not self.batch_mid or self.batched)
             and ("c" not in self.batch_mid or self.c_ld),
             f"batch_mid names operands a, b, c of a batched configuration (c with c_ld), got {self.batch_mid!r}"),
            (not self.b_shared or (self.batched and self.b_operands == 1 and not self.transpose_b),
             "b_shared (one B for every batch) needs a batched configuration with one B read in place"),
            (not (self.grid_l and self.schedule == "streamk"), "grid_l programs choose their own K ranges: no Stream-K"),
            (not self.program_grid or (self.cluster_m == 1 and self.schedule != "streamk"),
             "a program-grid kernel (program_grid) runs 1-CTA clusters (neighbouring programs need not share B) "
             "and no Stream-K (a tile's predicate and coordinates are the whole program's)"),
            (not self.b_raw or self.b_raw in RAW_DTYPES,
             f"b_raw (a computed B's raw element type) must be one of {RAW_DTYPES}, got {self.b_raw!r}"),
            (not self.b_raw or (self.dtype in ("f16", "bf16") and not self.b_dtype),
             f"a computed B (b_raw) is a 16-bit operand (f16/bf16 A and B), got {self.dtype}"),
            (not self.b_raw or (self.b_operands == 1 and self.cluster_m == 1 and not self.transpose_b),
             "a computed B (b_raw) has one B operand, 1-CTA clusters (no multicast of the raw tile) and is read "
             "in place"),
            (not self.b_raw or (self.raw_chunk_columns * self.raw_element_bytes) % 16 == 0,
             "a computed B's raw box rows must be whole 16-byte units"),
            (not self.a_raw or self.a_raw in RAW_DTYPES,
             f"a_raw (a computed A's raw element type) must be one of {RAW_DTYPES}, got {self.a_raw!r}"),
            (not self.a_raw or (self.dtype in ("f16", "bf16") and not self.b_dtype),
             f"a computed A (a_raw) is a 16-bit operand (f16/bf16 A and B), got {self.dtype}"),
            (not self.a_raw or (not self.lora_rank and self.cluster_m == 1 and not self.transpose_a),
             "a computed A (a_raw) has no low-rank branch, 1-CTA clusters and is read in place (several B operands "
             "read the one computed A)"),
            (not self.a_raw or (self.a_raw_chunk_columns * self.a_raw_element_bytes) % 16 == 0,
             "a computed A's raw box rows must be whole 16-byte units"),
            (not self.kvecs or ((self.a_raw or self.b_raw) and all(b > 0 and b % 16 == 0 for b in self.kvec_box_bytes)),
             f"TMA-loaded K vectors (kvecs) belong to a computed operand (a_raw or b_raw) and their boxes are whole "
             f"16-byte units, got kvecs {self.kvecs!r}"),
            (not self.a_regs or (self.a_raw and self.a_major == "k" and self.a_raw_swizzle),
             "a register A (a_regs) is a computed A (a_raw) stored [M, K] whose raw K row is 32, 64 or 128 bytes "
             f"(a swizzle span), got a_raw {self.a_raw!r}, {self.a_major}-major, "
             f"{self.tile_k * self.a_raw_element_bytes}-byte rows"),
            (not self.a_gather or self.a_regs, "a gathered A (a_gather) is a register A (a_regs)"),
            (not self.epi_n or (self.epi_n in (64, 128, 192, 256) and self.dtype in ("f16", "bf16")
                                and not (self.a_raw or self.b_raw or self.b_dtype)),
             f"a second dot on the accumulator (epi_n) is a 16-bit dot of 64, 128, 192 or 256 columns on a plain "
             f"first dot, got epi_n {self.epi_n}, {self.dtype}"),
            (self.epi_major in ("n", "k"), f"epi_major must be 'n' or 'k', got {self.epi_major!r}"),
            (not self.epi_n or (self.b_operands == (2 if self.lora_rank else 1) and self.cluster_m == 1
                                and self.schedule != "streamk" and not self.batched and not self.c_transposed
                                and (self.epilogue == "direct" or (self.epilogue == "tma" and self.epi_loop))),
             "a second dot on the accumulator (epi_n) has one B operand (two with a low-rank branch, lora_rank), "
             "1-CTA clusters, no Stream-K and the direct epilogue of a 2-D, untransposed C (the TMA epilogue with "
             "a loop over N tiles, epi_loop)"),
            (not self.epi_overlap or self.epi_loop, "epi_overlap is a loop over N tiles' (epi_loop)"),
            (not self.epi_loop or (self.epi_n and not self.lora_rank),
             "a loop over N tiles (epi_loop) is a second dot's on the accumulator (epi_n) without a low-rank branch"),
            (not self.lora_own_acc or self.lora_rank, "lora_own_acc is a low-rank branch's (lora_rank)"),
            (not self.lora_rank or (self.epi_n == self.tile_n and self.lora_rank in (64, 128, 192, 256)),
             f"a low-rank branch (lora_rank) of 64, 128, 192 or 256 columns adds its second dot onto the main "
             f"accumulator (epi_n = tile_n), got lora_rank {self.lora_rank}, epi_n {self.epi_n}, tile_n {self.tile_n}"),
        ]
        for ok, message in rules:
            if not ok:
                raise GemmConfigError(message)
        return self
