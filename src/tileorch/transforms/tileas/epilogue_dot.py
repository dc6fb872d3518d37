"""A dot on a K loop's result (GEMM then GEMM): the GEMM lowering's second dot on the accumulator.

``t = sum_k A[bm, k] @ B[k, 0]; y = f(t) @ E[0, bn]`` (a low-rank chain ``(x A) B``, a fused MLP
``act(x W1[:, h]) @ W2[h, bn]`` with the hidden width one tile): the first dot is the GEMM kernel's
mainloop (TMA producer, WGMMA consumers) with ``tile_n`` the rank ``R`` (B's whole ``[K, R]`` column
block: its column tile index is the constant 0); after the loop each consumer thread evaluates the
program's elementwise ops ``f`` and the cast on its accumulator elements in registers, packs them as the
register A operand of a second WGMMA (the accumulator's m64nR layout is the m64k16 A fragment's, chunk by
chunk), whose B is E's ``[R, tn]`` tile at the work tile's column, TMA-loaded by the producer into a
buffer of its own right after it issued the work tile's last K tile (a one-stage pipeline of its own:
``GemmConfig.epi_n``), so that it lands while the consumers finish the K loop; the program's epilogue
then runs on the second accumulator.  E may be stored K-major (``[N2, R]``, nn.Linear's layout: read by a
transpose, a permute or a transposed view; :attr:`EpilogueDot.e_major`, ``GemmConfig.epi_major``).

A low-rank branch (LoRA, three dots: ``y = x W + ((s x A) rounded) B``): the K loop holds a main dot beside the
first, both reading x's tile (dots sharing A, the first's B ``[K, R]`` at column tile 0); the second dot reads the
first's result and accumulates onto the main dot's (``ct.mma(a, B, acc)``), which the kernel does in registers
(``GemmConfig.lora_rank``: no third accumulator).

:func:`find_epilogue_dot` recognizes the shape (None: not this kernel), :func:`check_epilogue_dot` refuses
at the program's line what the kernel cannot run, :func:`compute_epilogue_a` evaluates ``f`` into the
kernel builder's packed A registers (``%efrag<j>q<q>``)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64
from xdsl.ir import Block, Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.nv_tileaa.attrs import ints
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.tileas.epilogue import program_axis

LAYOUTS = ("nv_tileas.convert_layout",)
"""Ops that only change a tile's layout between the program's value and the second dot's operand."""


@dataclass
class EpilogueDot:
    """The second dot of a kernel whose dot reads the K loop's result: the dot, its A as the program
    computes it (before the layout conversion into the operand), its B's tile load (E) and shape."""

    dot: Operation
    a_value: SSAValue
    loop: scf.ForOp
    acc: SSAValue
    """The K loop's result the second dot's A reads (the first dot's accumulator)."""
    load: Operation | None
    rank: int
    """The second dot's K: the first dot's N (``R``)."""
    n: int
    """The second dot's N tile (``GemmConfig.epi_n``)."""
    transposed: bool = False
    """The second dot's B reaches it through a transpose (``ct.transpose`` / ``ct.permute`` of a ``[N, R]``
    tile)."""
    main: Operation | None = None
    """A low-rank branch (LoRA, three dots): the main dot, sharing A with the low-rank one in the K loop; the
    second dot should accumulate onto its accumulator (:attr:`main_acc`)."""
    main_acc: SSAValue | None = None
    """The main dot's K loop result (:attr:`main`)."""

    @property
    def view_flipped(self) -> bool:
        """E's tile is read through a view with its two dimensions swapped (``ct.load(..., order=(1, 0))``)."""
        return self.load is not None and ints(self.load.view.type.order) == [1, 0]

    @property
    def e_major(self) -> str:
        """How E is stored: ``"n"`` ``[R, N2]`` (row-major, N-major) or ``"k"`` ``[N2, R]`` (nn.Linear's layout,
        K-major): a transpose of the tile and a swapped view each flip it (``GemmConfig.epi_major``)."""
        return "k" if self.transposed != self.view_flipped else "n"

    @property
    def lora(self) -> bool:
        """Three dots: a main dot and a low-rank one in the K loop, the second dot on the low-rank result."""
        return self.main is not None

    @property
    def own_accumulator(self) -> bool:
        """A low-rank branch whose second dot starts from zeros (``acc + s * ct.mma(a, B, zeros)``): its own
        accumulator, the epilogue reading the main one beside it (``GemmConfig.lora_own_acc``); else the second
        dot accumulates onto the main accumulator (``ct.mma(a, B, acc)``)."""
        init = _through_layouts(self.dot.acc)
        return self.lora and isinstance(init.owner, arith.ConstantOp) and _zero_splat(init.owner)

    @property
    def remark(self) -> str:
        if self.lora:
            into = (f"into an accumulator of its own beside the main one (the program adds them after the dot: "
                    f"{self.n // 2} + {self.n // 2} accumulator registers and {self.rank // 4} packed ones a thread "
                    "after the K loop)" if self.own_accumulator else
                    f"accumulating onto the main accumulator (no third accumulator: {self.n // 2} + {self.rank // 2} "
                    f"accumulator registers and {self.rank // 4} packed ones a thread)")
            return (f"a low-rank branch beside the dot (LoRA, three dots): the {self.rank}-column low-rank "
                    "accumulator, a second B of the K loop's stages beside the main dot's, has the program's ops "
                    "evaluated in registers and packed as the register A operand of "
                    f"{self.rank // 16} wgmma.mma_async m64n{self.n}k16 {into}, whose B, E's {self.rank}x{self.n} "
                    f"tile ({self._stored}), the producer TMA-loads into a buffer of its own (a one-stage pipeline) "
                    "once it has issued the work tile's last K tile; the epilogue runs on the result")
        stored = self._stored
        return (f"a dot on the K loop's result: the {self.rank}-column accumulator, the program's ops on it "
                f"evaluated in registers and packed, is the register A operand of {self.rank // 16} "
                f"wgmma.mma_async m64n{self.n}k16 whose B, E's {self.rank}x{self.n} tile ({stored}), the producer "
                "TMA-loads into a buffer of its own (a one-stage pipeline) once it has issued the work tile's last "
                "K tile; the epilogue runs on the second accumulator")


    @property
    def _stored(self) -> str:
        return ("stored [N2, K2]: K-major, nn.Linear's layout, 128-byte swizzled K rows, the descriptors' "
                "untransposed B" if self.e_major == "k" else "stored [K2, N2]: N-major")


def _enclosing_loop(op: Operation, stop: Operation) -> scf.ForOp | None:
    p = op.parent_op()
    while p is not None and p is not stop:
        if isinstance(p, scf.ForOp):
            return p
        p = p.parent_op()
    return None


def _through_layouts(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, Operation) and v.owner.name in LAYOUTS:
        v = v.owner.operands[0]
    return v


def _cone(v: SSAValue, stop: Operation) -> list[Operation]:
    """The ops inside ``stop`` (the agent switch) that compute ``v``, producers before users."""
    seen: dict[int, Operation] = {}
    order: list[Operation] = []

    def visit(x: SSAValue) -> None:
        op = x.owner
        if not isinstance(op, Operation) or id(op) in seen or not stop.is_ancestor(op):
            return
        seen[id(op)] = op
        for o in op.operands:
            visit(o)
        order.append(op)

    visit(v)
    return order


def _yielded_dot(v: SSAValue) -> Operation | None:
    """The dot whose result ``v`` is, through layout conversions and the results of region ops (the pipeline's
    consumer regions: their terminators' operands), or None."""
    while True:
        v = _through_layouts(v)
        op = v.owner
        if isinstance(op, ts.DotOp):
            return op
        if not (isinstance(op, Operation) and op.regions and op.regions[0].blocks):
            return None
        term = op.regions[0].blocks.last.last_op
        if term is None or v.index >= len(term.operands):
            return None
        v = term.operands[v.index]


def _loop_result_of(dot: Operation, loop: scf.ForOp) -> SSAValue | None:
    """The result of ``loop`` its body yields ``dot``'s result as (:func:`_yielded_dot`), or None."""
    yielded = loop.body.block.last_op
    for i, v in enumerate(yielded.operands):
        if _yielded_dot(v) is dot:
            return loop.results[i]
    return None


def _read_results(v: SSAValue, loop: scf.ForOp, stop: Operation) -> set[SSAValue]:
    """The results of ``loop`` the ops computing ``v`` (inside ``stop``) read."""
    out = {v} if v.owner is loop else set()
    for op in _cone(v, stop):
        out |= {x for x in op.operands if x.owner is loop}
    return out


def find_epilogue_dot(kernel: aa.FuncOp) -> EpilogueDot | None:
    """The kernel's dot on a K loop's result: in the agent switch, one dot outside every loop (the second)
    whose A is computed from the K loop result of a dot inside the loop (the first) and whose B is not; the
    loop holds the first dot alone, or beside a main dot reading the same A (a low-rank branch, LoRA: three
    dots, :attr:`EpilogueDot.main`); else None."""
    switches = [o for o in kernel.walk() if isinstance(o, AgentSwitchOp)]
    if len(switches) != 1:
        return None
    sw = switches[0]
    dots = [o for o in sw.walk() if isinstance(o, ts.DotOp)]
    outside = [d for d in dots if _enclosing_loop(d, sw) is None]
    inside = [d for d in dots if d not in outside]
    if len(outside) != 1 or len(inside) not in (1, 2):
        return None
    second = outside[0]
    loop = _enclosing_loop(inside[0], sw)
    if not all(_enclosing_loop(d, sw) is loop for d in inside):
        return None
    results = {d: _loop_result_of(d, loop) for d in inside}
    read = _read_results(second.lhs, loop, sw)
    firsts = [d for d in inside if results[d] is not None and results[d] in read]
    if len(firsts) != 1 or len(read) != 1 or any(o is loop or o in inside for o in _cone(second.rhs, sw)):
        return None
    first = firsts[0]
    acc = results[first]
    main = next((d for d in inside if d is not first), None)
    main_acc = results[main] if main is not None else None
    if main is not None and main_acc is None:
        return None
    b = _through_layouts(second.rhs)
    transposed = isinstance(b.owner, Operation) and b.owner.name == "nv_tileaa.permute"
    load = _through_layouts(b.owner.operands[0] if transposed else b).owner
    shape = list(second.result.type.get_shape())
    return EpilogueDot(second, _through_layouts(second.lhs), loop, acc,
                       load if isinstance(load, ts.TiledLoadOp) else None,
                       first.result.type.get_shape()[-1], shape[-1] if len(shape) == 2 else 0, transposed, main,
                       main_acc)


def _fail(op: Operation, why: str):
    raise LocatedError(op, f"convert-nv-tileas-to-cutlass: a dot on the K loop's result: {why}")


def check_epilogue_dot(ed: EpilogueDot, sw: Operation) -> None:
    """A located refusal for what the GEMM kernel's second dot cannot run; else nothing."""
    d = ed.dot
    rows = ed.acc.type.get_shape()[0]
    if ed.load is None or not isinstance(ed.load.atom, ts.TmaLoadAtomAttr):
        _fail(d, "the second dot's B is not a TMA tile load of an argument (the kernel's producer brings it "
                 "into shared memory by TMA)")
    _check_operand_types(ed)
    shape = list(ed.load.result.type.get_shape())
    # a transposed tile is read [N, K] at (program id 1, 0): K is its second index
    k_at, n_at = (1, 0) if ed.transposed else (0, 1)
    want = [ed.n, ed.rank] if ed.transposed else [ed.rank, ed.n]
    if len(shape) != 2 or ed.n == 0 or shape != want:
        what = f"[N, {ed.rank}] tile transposed" if ed.transposed else f"[{ed.rank}, N] tile"
        _fail(ed.load, f"the second dot's B is a {shape} tile: a 2-D {what} (its K the first dot's {ed.rank} "
                       "columns) is taken")
    indices = list(ed.load.indices)
    which = ("column", "row") if ed.transposed else ("row", "column")
    if not (isinstance(indices[k_at].owner, arith.ConstantOp) and indices[k_at].owner.value.value.data == 0):
        _fail(ed.load, f"the second dot's B is read at a {which[0]} tile index other than the constant 0: its K (the "
                       f"first dot's N, {ed.rank}) must be one tile (a rank or hidden width beyond one tile, a "
                       "second K loop, is not supported yet)")
    if program_axis(indices[n_at]) != 1:
        _fail(ed.load, f"the second dot's B is read at a {which[1]} tile index other than program id 1 (the "
                       "output's column tile)")
    if ed.rank not in (64, 128, 192, 256):
        _fail(d, f"the first dot's N (the second dot's K) is {ed.rank}: 64, 128, 192 or 256 columns are taken")
    if ed.n not in (64, 128, 192, 256):
        _fail(d, f"the second dot's N tile is {ed.n}: 64, 128, 192 or 256 columns are taken")
    init = _through_layouts(d.acc)
    if ed.lora:
        if init is not ed.main_acc and not ed.own_accumulator:
            _fail(d, "a low-rank branch beside the dot (LoRA, three dots): the low-rank product's dot accumulates "
                     "into a value other than the main dot's accumulator or zeros; write it ct.mma(a, B, acc) with "
                     "acc the K loop's main accumulator (the kernel adds it onto the main accumulator), or from zeros "
                     "and add it in the epilogue")
    elif not (isinstance(init.owner, arith.ConstantOp) and _zero_splat(init.owner)):
        _fail(d, "the second dot's accumulator starts from a value other than zeros (add it after the dot)")
    for op in _cone(ed.a_value, sw):
        if op is ed.loop:
            continue
        vector = isinstance(op, ts.TiledLoadOp) and len([x for x in op.result.type.get_shape() if x != 1]) <= 1
        if (isinstance(op, ts.DotOp | ts.TiledLoadOp) and not vector) or op.name.startswith("nv_tileaa.reduce") \
                or op.name.startswith("nv_tileaa.scan"):
            _fail(op, "the second dot's A reads more than an elementwise function of the first dot's accumulator, "
                      "scalars and vectors (a tile load, a reduction or another dot): the kernel evaluates it per "
                      "accumulator element in registers")
        for r in op.results:
            shape = list(r.type.get_shape()) if isinstance(r.type, TensorType) else []
            if len([x for x in shape if x != 1]) > 1 and shape[-2:] != [rows, ed.rank]:
                _fail(op, f"the second dot's A reads a {shape} tile beside the {rows}x{ed.rank} accumulator: "
                          "elementwise ops on the accumulator, scalars and row or column vectors are taken")


COARSEN_ENV = "TILEORCH_EPILOGUE_DOT_COARSEN"
"""``auto`` (default), ``off`` or a count: the N tiles of C a work tile of the GEMM kernel covers
(:func:`n_loop_refusal`; the launcher's ``tileorch.launchers.gemm_host.epi_tiles_per_cta``)."""


def _reads_axis(values: list[SSAValue], axis: int) -> Operation | None:
    """A ``get_program_id`` of grid axis ``axis`` that computes one of ``values`` (through every operand, and the
    operands of the ops nested in region ops on the way), or None."""
    seen: set[int] = set()
    todo = [v.owner for v in values]
    while todo:
        op = todo.pop()
        if not isinstance(op, Operation) or id(op) in seen:
            continue
        seen.add(id(op))
        if op.name == "nv_tileaa.get_program_id":
            if op.axis.value.data == axis:
                return op
            continue
        todo.extend(x.owner for x in op.operands)
        for region in op.regions:
            for inner in region.walk():
                todo.extend(x.owner for x in inner.operands)
    return None


def n_loop_refusal(ed: EpilogueDot, sw: Operation) -> str | None:
    """Why the GEMM kernel may not compute the first dot once per work tile and loop the second dot over several N
    tiles of C (``GemmConfig.epi_loop``), or None when it may: the program's column tile (program id 1) must enter
    only E's tile, the program's epilogue on the second dot's result and C's store (each evaluated per N tile of the
    loop), not the K loops of the agent switch ``sw`` (the consumers' dots, the producer's loads, their bounds) nor
    the second dot's A; no low-rank branch; the setting (:data:`COARSEN_ENV`) not ``off``.  (What else would differ
    per N tile, atomics, side outputs, the program's own K range or tile coordinates, the lowering refuses beside a
    second dot: :func:`check_epilogue_dot` and the kernel's checks.)"""
    from tileorch import settings

    if settings.value(COARSEN_ENV) == "off":
        return f"{COARSEN_ENV}=off"
    if ed.lora:
        return ("a low-rank branch (LoRA): its second dot accumulates onto the main dot's accumulator, which is the "
                "work tile's own column tile of x W")
    loops = [op for op in sw.walk() if isinstance(op, scf.ForOp)]
    loop_values = [x for loop in loops for op in (loop, *loop.body.walk()) for x in op.operands]
    if _reads_axis(loop_values, 1) is not None:
        return "a K loop reads program id 1 (the column tile): the first dot is not the same for every N tile"
    if _reads_axis([ed.a_value], 1) is not None:
        return "the second dot's A reads program id 1 (the column tile): it is not the same for every N tile"
    return None


def check_first_dot_b(load: Operation, column: SSAValue) -> None:
    """A located refusal when the first dot's B (the ``[K, R]`` block, or a low-rank branch's) is read at a column
    tile index ``column`` (past assumptions and integer casts) other than the constant 0: the kernel reads that block
    whole at column 0 (its R columns are the second dot's K)."""
    if not (isinstance(column.owner, arith.ConstantOp) and column.owner.value.value.data == 0):
        _fail(load, "the first dot's B is read at a column tile index other than the constant 0: the kernel reads "
                    "its whole [K, R] block at column tile 0 (R, its N, is the second dot's K; a first dot over "
                    "several column tiles is not supported yet)")


def n_loop_remark(ed: EpilogueDot) -> str:
    """The remark of a kernel looping the second dot over N tiles (``GemmConfig.epi_loop``)."""
    return (f"the first dot once per work tile, the second dot over N tiles: program id 1 (the column tile) enters "
            f"only E's tile, the epilogue and C's store, so each work tile packs the {ed.rank}-column accumulator "
            f"once and loops over c N tiles of {ed.n} columns (the producer streams E's tiles through a pipeline of "
            f"two stages, not one, the consumers run the second dot's WGMMAs and store each tile); c is chosen at "
            f"launch ({COARSEN_ENV}={_setting_text()}: auto splits each row of N tiles into max(1, SMs // M tiles) "
            "groups)")


TMA_STORE_ENV = "TILEORCH_EPILOGUE_DOT_TMA_STORE"
"""``1``: a kernel looping the second dot over N tiles (``GemmConfig.epi_loop``) stores each N tile of C through
the TMA epilogue's shared-memory staging slots (:func:`n_loop_epilogue`; the default: session 27's H100 call, MLP
8192x4096x64x4096 0.116 -> 0.063 ms, 0.58x -> 1.08x torch, same process); ``0``: direct stores."""


def n_loop_epilogue(epi_loop: bool, plain: str) -> tuple[str, str | None]:
    """The epilogue kind of a kernel with a second dot on the accumulator and its remark (None: nothing asked).
    ``plain``: the kind the kernel would take without the second dot (``tma`` for a 16-bit, untransposed C,
    stored, not atomically added).  With :data:`TMA_STORE_ENV` ``=1``, a kernel looping over N tiles
    (``epi_loop``) stages each N tile's 64-column rounds in shared memory and stores them by TMA, the next N
    tile's WGMMAs issued while the bulk stores drain; every other kernel, and the default, stores directly."""
    from tileorch import settings

    if settings.value(TMA_STORE_ENV) != "1":
        return "direct", None
    why = ("the second dot covers one N tile per work tile (no loop over N tiles whose stores could drain under the "
           "next tile's WGMMAs)" if not epi_loop
           else f"C is not a 16-bit, untransposed tile stored whole (the kernel's plain epilogue is {plain})"
           if plain != "tma" else None)
    if why is not None:  # the default's "not applied" is said only where the environment asks for it
        asked = settings.asked(TMA_STORE_ENV) == "1"
        return "direct", (f"{TMA_STORE_ENV}=1 not applied: {why}; C stored directly" if asked else None)
    return "tma", (f"{TMA_STORE_ENV}=1: each N tile of C staged in shared memory (two 64-column slots per consumer "
                   "warp group) and stored by TMA; the next N tile's WGMMAs run while the bulk stores drain")


OVERLAP_ENV = "TILEORCH_EPILOGUE_DOT_OVERLAP"
"""``1``: a kernel looping over N tiles (``GemmConfig.epi_overlap``) issues each next N tile's second-dot WGMMAs
before the current tile's store (:func:`n_loop_overlap`); ``0`` (default): each tile's WGMMAs, then its store."""


def n_loop_overlap(epi_loop: bool) -> tuple[bool, str | None]:
    """Whether a kernel with a second dot on the accumulator issues the next N tile's WGMMAs before the current
    tile's store (:data:`OVERLAP_ENV`), and the remark (None: nothing asked)."""
    from tileorch import settings

    if settings.value(OVERLAP_ENV) != "1":
        return False, None
    if not epi_loop:
        return False, (f"{OVERLAP_ENV}=1 not applied: the second dot covers one N tile per work tile (no next "
                       "tile to issue before the store)")
    return True, (f"{OVERLAP_ENV}=1: each next N tile's second-dot WGMMAs are issued before the current tile's "
                  "store (two second accumulators live; the last tile's store after the loop)")


STAGES_ENV = "TILEORCH_EPILOGUE_DOT_STAGES"
"""``plan``: the K loop's ring keeps the schedule's stage count (``tileas-materialize-schedule`` reserves
the shared memory of every tile the program holds outside the loop: E's, the staged C tile's); ``fit``: as many
stages as the GEMM kernel's own shared memory holds (:func:`fitted_stages`; the default: session 27's H100 call,
LoRA at 128x256 tiles 3 stages instead of 2, 0.504 -> 0.271 ms, 0.50x -> 0.92x torch)."""
MOST_STAGES = 8
"""The deepest ring :func:`fitted_stages` builds (``tileas-materialize-schedule``'s default ``max-stages``)."""


def fitted_stages(cfg, fits) -> tuple[object, str | None]:
    """``cfg`` (a ``GemmConfig`` with a second dot on the accumulator) with its ring deepened to the most stages, at
    most :data:`MOST_STAGES`, for which ``fits(cfg)`` holds (the kernel's shared memory: the ring, the epilogue's
    staging and E's buffers), and the remark; ``cfg`` unchanged and no remark unless :data:`STAGES_ENV` is
    ``fit``."""
    from tileorch import settings
    from tileorch.transforms.tileas.direct_epilogue_stages import deepest_fit

    if settings.value(STAGES_ENV) != "fit":
        return cfg, None
    planned = cfg.stages
    cfg = deepest_fit(cfg, fits, MOST_STAGES)
    return cfg, (f"{STAGES_ENV}=fit: the K loop's ring has {cfg.stages} stages of {cfg.stage_bytes} bytes (the "
                 f"schedule planned {planned}; the kernel's shared memory beside it: E's {cfg.epi_stages} x "
                 f"{cfg.epi_bytes} bytes and {cfg.epilogue_bytes} bytes of C's staging)")


def _setting_text() -> str:
    from tileorch import settings

    return settings.value(COARSEN_ENV) or "auto"


WGMMA_16BIT = ("f16", "bf16")
"""The element types whose WGMMA B may be either major and whose register A fragment (m64k16: a pair of
adjacent columns per register) is the f32 accumulator's layout, packed pairwise."""


def _check_operand_types(ed: EpilogueDot) -> None:
    """The second dot's operands are of a 16-bit type; else a located reason naming what each other type
    would need (WGMMA reads 8-bit and tf32 B K-major only, and their register A fragments hold four or one
    consecutive K column(s) per register, not the accumulator's pairs)."""
    d = ed.dot
    a = str(d.lhs.type.get_element_type())  # (the dot's verifier: both operands of one type)
    if a in WGMMA_16BIT:
        return
    major = ("an N-major E (stored [K2, N2]) never runs: WGMMA reads a B of this type K-major only, and even a "
             "K-major one" if ed.e_major == "n" else "a K-major E (stored [N2, K2]) would be readable, but")
    _fail(d, f"the second dot's operands are {a}: {major} needs the {a} register A fragment (m64k"
             f"{32 if a.startswith('f8') else 8}), whose K columns per thread are not the f32 accumulator's adjacent "
             "pairs (a shuffle across threads, not supported yet); cast the first dot's result to f16 or bf16")


def _zero_splat(op: arith.ConstantOp) -> bool:
    value = op.value
    values = getattr(value, "get_values", None)
    return values is not None and all(x == 0 for x in values())


def compute_epilogue_a(fn, ed: EpilogueDot, dk, args: list[SSAValue], grid: list[SSAValue] | None = None) -> None:
    """Replace the f32 operands of the kernel builder's packs ``%efrag<j>q<q>`` (accumulator elements
    ``8 j + 2 q``, ``+ 1``: row ``r + 8 (q & 1)``, columns ``16 j + 2 (t % 4) + 8 (q >> 1) + {0, 1}``) in
    every consumer warp group by the program's second-dot A (:attr:`EpilogueDot.a_value`) evaluated at
    those elements of the first accumulator, in registers (the cast to the operand type is the pack's
    rounding: a final ``fp_to_fp`` to it is skipped)."""
    from tileorch.dialects import nvvm
    from tileorch.dialects.cutlass.tile_scheduler import WorkTileInfoToCoordMNKLOp
    from tileorch.kernels.gemm.build import EPI_FRAGMENT
    from tileorch.transforms.tileaa_to_simt.emit import Emitter
    from tileorch.transforms.tileas.common import move_before
    from tileorch.transforms.tileas.epilogue import Coord, EpilogueLowering, KernelEnv

    value = ed.a_value
    if isinstance(value.owner, Operation) and value.owner.name == "nv_tileaa.fp_to_fp":
        value = value.owner.operands[0]  # the pack rounds the f32 value to the operand type once
    packs: dict[Block, list[Operation]] = {}
    for op in fn.walk():
        hint = op.results[0].name_hint if isinstance(op, llvm.InlineAsmOp) and op.results else None
        if hint and hint.startswith(EPI_FRAGMENT):
            packs.setdefault(op.parent_block(), []).append(op)
    for block, ops in packs.items():
        coords = next(o for o in block.ops if isinstance(o, WorkTileInfoToCoordMNKLOp))
        acc = ops[0].operands[0].owner.operands[0]  # the extracted accumulator (``llvm.extractvalue``)
        tmp = Block()
        e = Emitter(tmp, 128)
        cfg_m = dk.tile[0]
        m0 = e.mul_i(coords.results[0], e.const(cfg_m))
        env = KernelEnv(args, [coords.results[0], coords.results[1], coords.results[3]], [m0, e.const(0)], grid)
        tid = e.v(nvvm.SPECIAL_REGISTERS["tid.x"]())
        t = e.v(arith.AndIOp(tid, e.const(127)))
        wg_row = e.mul_i(e.v(arith.SubiOp(e.v(arith.ShRUIOp(tid, e.const(7))), e.const(1))), e.const(64))
        lane = e.v(arith.AndIOp(t, e.const(31)))
        row_first = e.add_i(wg_row, e.add_i(e.mul_i(e.v(arith.ShRUIOp(t, e.const(5))), e.const(16)),
                                            e.v(arith.ShRUIOp(lane, e.const(2)))))
        rows = [Coord(row_first, 0), Coord(e.add_i(row_first, e.const(8)), 0)]
        col_in = e.mul_i(e.v(arith.AndIOp(lane, e.const(3))), e.const(2))
        lowering = EpilogueLowering(dk.kernel.body.blocks.first, ed.acc, dk.store, env, e)
        move_before(tmp, ops[0])
        elt = acc.type.types.data[0]
        for op in ops:
            j, q = (int(x) for x in op.results[0].name_hint[len(EPI_FRAGMENT):].split("q"))
            new = []
            for k in (8 * j + 2 * q + 1, 8 * j + 2 * q):  # (hi, lo): the pack's operand order
                g, half, c = k // 4, (k // 2) % 2, k % 2
                col = Coord(e.add_i(col_in, e.const(8 * g + c)), 1)
                pos = DenseArrayBase.from_list(i64, [k])
                lowering.acc_element = lambda pos=pos: e.v(llvm.ExtractValueOp(pos, acc, elt))
                new.append(e.to_f32(lowering.at(value, (rows[half], col))))
            move_before(tmp, op)
            op.operands[0], op.operands[1] = new


__all__ = ["COARSEN_ENV", "MOST_STAGES", "OVERLAP_ENV", "STAGES_ENV", "TMA_STORE_ENV", "fitted_stages", "n_loop_epilogue", "n_loop_overlap", "EpilogueDot", "check_epilogue_dot", "check_first_dot_b", "compute_epilogue_a",
           "find_epilogue_dot", "n_loop_refusal", "n_loop_remark"]
