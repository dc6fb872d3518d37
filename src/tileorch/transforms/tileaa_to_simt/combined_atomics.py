"""Several program instances per CTA whose final atomics are combined into one (``TILEORCH_COMBINE_ATOMICS``).

A program that ends by adding its result into one address every instance shares (a mean loss: ``atomic_add(
LossSum, 0, loss)``, ``atomic_add(Count, 0, keep)``) makes one atomic (and, ``acq_rel`` by cuTile's default,
fences around it) per instance: a cross entropy of 32768 rows of 4096 columns ran at 0.725 of the copy rate
on an H100 (session 32, Nsight Compute: 121.2 us against 93.1 us for the same rows storing their loss).  The
rewrite (:func:`plan`; lowered by ``FunctionLowering._lower_instances``) runs ``R`` consecutive instances along x
in one CTA, one after the other, folds the values the instances give each such atomic in registers (the atomic's
own operation), and makes each atomic once after the last instance, with the op's own ordering and scope.

Contract of the rewritten kernel (attribute :data:`ATTR` = the combined atomics; :data:`REASSOC_ATTR` = how many
of them are float adds):

* two extra trailing ``i32`` parameters: the programs along x (the tile grid's x, ``P``) and ``R``, the instances
  per CTA; launched with ``G >= P / R`` CTAs along x, the block unchanged; the launch picks ``G`` and ``R``
  (``tileorch.launchers.cutile.instances_per_cta``: ``G`` one wave of resident CTAs, ``R = ceil(P / G)``, at most
  4 by default -- ``TILEORCH_CTA_PROGRAMS_MAX``: then ``G = ceil(P / 4)``, several waves);
* CTA ``c`` runs instances ``c, c + G, ..., c + (R - 1) G`` below ``P`` (program id x of each; its
  ``num_programs(0)`` is ``P``): the CTAs sweep the instances together, each runs ``R`` or ``R - 1``; each
  instance's ops as one CTA would run them, a CTA barrier after each where they use the shared scratch (it is
  the next one's);
* the combined atomics run after the last instance, their pointers and masks computed once (they are the same
  for every instance: :func:`plan` requires it), their values the fold of the instances' values from the
  operation's identity.

Why this is the program's meaning.  cuTile leaves the order of the atomics of different instances unspecified
and runs the instances concurrently, with no order between them.  One CTA running instance A's ops, then B's,
then ``atomic(p, a + b)`` is the execution in which B's accesses ran before A's atomic and the two atomics on
``p`` followed each other with no other thread's access between them (each keeps its ordering: every access of
A and B precedes the combined atomic, which releases them all; nothing follows it in either instance, so its
acquire orders nothing more than each one's did).  That needs:

* every combined atomic is an ``atomic_rmw`` whose old value is unused (its token only joins other combined
  atomics' or the return), at ``cta`` or ``gpu`` scope, of an operation that is associative and commutative:
  integer ``add``, ``max``, ``min``, ``umax``, ``umin``, ``and``, ``or``, ``xor`` (exact: the same result in
  every order), and float ``addf`` (see below); not ``xchg``;
* its pointer tile and mask are the same for every instance: computed from the kernel's parameters, constants
  and program ids of y / z only (no program id x, no load, no atomic), so the instances' atomics hit the same
  addresses under the same masks;
* nothing after the first combined atomic accesses memory but other combined atomics (the instance's tail; the
  ops computing their values, reductions included, run with the instance);
* no other atomic and no ordered load or store anywhere in the program: an instance that waits for another
  (a flag, a ticket) could wait for one this CTA runs later; such programs keep one instance per CTA;
* a one-CTA program (no split over a cluster, no row kept in shared memory, one program per warp not packed).

Float adds.  A float ``addf`` folded in registers adds the same terms in another bracketing: ``L + (a + b)``
instead of ``(L + a) + b``.  The program's sum is already in an unspecified order (the atomics of 32768
instances land in any order, so its result differs from run to run by the rounding of that order); the folded
sum obeys the same bound (any bracketing of n terms: within (n - 1) u sum |x_i| of the exact sum, u = 2^-24 for
f32, to first order), but it is a bracketing no order of single atomics gives, and a partial sum can overflow
where every single-atomic order would not.  ``TILEORCH_COMBINE_ATOMICS=auto`` folds float adds too,
with a remark that says so; ``exact`` folds the exact operations only (a program whose final atomics include a
float add then keeps one instance per CTA: its atomics stay in program order); ``0`` turns the rewrite off.
``auto`` is the default (session 34; off in session 33 until measured: H100, cross_entropy_bf16_v4096 0.75 -> 0.86
of the copy rate).  Why a default and not a fast-math switch: ``TILEORCH_MATH=approx`` is opt-in because it
changes each result's error (the approximate ``exp``); this changes no bound -- the float sum of atomics is
already computed in an order the program does not fix and may not reproduce, and the folded sum is one more such
order within the same (n - 1) u sum |x| bound.  A user who needs a single-atomic order's sum bit for bit has no
such guarantee from cuTile either (two runs may differ); ``exact`` or ``0`` keeps the atomics as written.

Spills.  The instance loop keeps more values live; where ptxas spills the combined kernel's registers even
without the resident-CTA hint (the backend drops that one first), the driver compiles the program again with
the rewrite off and keeps that kernel when it spills less (``driver._without_combined_atomics``, with a remark):
a second compile only where the first spilled.
bf16 and f16 adds are folded in their register type (f32 for bf16) and rounded once by the combined atomic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tileorch import settings

ENV = "TILEORCH_COMBINE_ATOMICS"
PER_CTA_ENV = "TILEORCH_CTA_PROGRAMS"
ATTR = "tileorch.combined_atomics"
"""On a SIMT kernel: the final atomics combined over the instances a CTA runs (module docstring)."""
REASSOC_ATTR = "tileorch.reassociated_atomics"
"""On a SIMT kernel with :data:`ATTR`: how many of them are float adds (their terms reassociated)."""
MIN_CTAS_ATTR = "tileorch.combined_min_ctas"
"""On a SIMT kernel with :data:`ATTR`: the resident CTAs per SM asked of ptxas (``nvvm.minctasm``; the backend drops
the hint where ptxas spills to meet it, as for ``tileorch.gather_min_ctas``)."""
MAX_THREADS_PER_SM = 2048
MAX_CTAS_PER_SM = 32
OFF_ATTR = "tileorch.combined_atomics_off"
"""On a SIMT kernel ending in atomics that were not combined: why (the driver's remark)."""

EXACT_MODES = ("add", "max", "min", "umax", "umin", "and", "or", "xor")
"""Integer ``rmw_mode`` s whose fold is exact in any order."""
FLOAT_MODES = ("addf",)
ACCESSES = ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store", "nv_tileaa.load", "nv_tileaa.store",
            "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas", "nv_tileaa.print", "nv_tileaa.assert")
_SYNCING = ("nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas")
_ORDERED = ("nv_tileaa.load", "nv_tileaa.store", "nv_tileaa.tiled_load", "nv_tileaa.tiled_store")


def mode() -> str:
    """``auto`` (integer ops and float adds, the default since session 34), ``exact`` (integer ops only) or ``0``
    (off)."""
    return settings.value(ENV) or "auto"


@dataclass
class Plan:
    """The combined atomics of a kernel and the partition of its top-level ops (see the module docstring)."""

    atomics: list[Operation]
    invariant: set[Operation] = field(default_factory=set)
    """Ops computing the atomics' pointers and masks: lowered once, before the instances."""
    after: set[Operation] = field(default_factory=set)
    """The atomics, the token joins that depend on them, and the return: lowered after the instances."""

    @property
    def reassociated(self) -> int:
        return sum(1 for op in self.atomics if op.rmw_mode.value.data in FLOAT_MODES)


def identity(rmw: str, typ) -> int | float:
    """The value ``x`` with ``x op v == v`` for every ``v`` of register type ``typ`` (``-0.0`` for a float add)."""
    if rmw == "addf":
        return -0.0
    width = typ.width.data if isinstance(typ, IntegerType) else 32
    return {"add": 0, "or": 0, "xor": 0, "umax": 0, "and": -1, "umin": -1,
            "max": -(1 << (width - 1)), "min": (1 << (width - 1)) - 1}[rmw]


def _top_ops(fn: Operation) -> list[Operation]:
    return list(fn.body.blocks[0].ops)


def _uses_program_x(op: Operation) -> bool:
    return op.name == "nv_tileaa.get_program_id" and op.axis.value.data == 0


def _slice(values: list[SSAValue], block: Block) -> tuple[set[Operation], str | None]:
    """The ops of ``block`` that ``values`` are computed from, and why they differ between instances (None: they
    do not)."""
    seen: set[Operation] = set()
    todo = [v for v in values if v is not None]
    while todo:
        v = todo.pop()
        if isinstance(v, BlockArgument):
            if v.block is not block:
                return seen, "it is computed inside a loop or branch"
            continue
        op = v.owner
        if op in seen:
            continue
        if op.parent_block() is not block or op.regions:
            return seen, "it is computed inside a loop or branch"
        if op.name in ACCESSES:
            return seen, "it depends on a value loaded from memory"
        if _uses_program_x(op):
            return seen, "it depends on the program id along x"
        seen.add(op)
        todo.extend(op.operands)
    return seen, None


def _token_users_ok(op: Operation, atomics: set[Operation], after: set[Operation]) -> bool:
    """``op``'s token reaches only other combined atomics' token operands and the return, through joins
    (those joins are added to ``after``)."""
    todo = [op.results[1]]
    while todo:
        v = todo.pop()
        for use in v.uses:
            user = use.operation
            if user.name == "nv_tileaa.join_mem_token":
                after.add(user)
                todo.append(user.results[0])
            elif user.name == "nv_tileaa.return" or (user in atomics and user.token is v):
                continue
            else:
                return False
    return True


def plan(fn: Operation) -> tuple[Plan | None, str | None]:
    """(the plan, None) when ``fn`` (an ``nv_tileaa.func``) ends in atomics that may be combined over several
    instances per CTA; (None, why not) when it ends in atomics that may not (a remark's text); (None, None)
    when it has no final atomic or the rewrite is off."""
    how = mode()
    if how == "0":
        return None, None
    ops = _top_ops(fn)
    if not ops or ops[-1].name != "nv_tileaa.return":
        return None, None
    start = len(ops) - 1
    while start > 0:  # the tail: atomic_rmw, and ops that access no memory (a reduction's combiner region included)
        prev = ops[start - 1]
        if prev.name != "nv_tileaa.atomic_rmw" and any(o.name in ACCESSES for o in prev.walk()):
            break
        start -= 1
    atomics = [op for op in ops[start:] if op.name == "nv_tileaa.atomic_rmw"]
    if not atomics:
        return None, None
    block = fn.body.blocks[0]
    found = Plan(atomics)
    found.after.update(atomics)
    found.after.add(ops[-1])
    members = set(atomics)
    for op in atomics:
        rmw = op.rmw_mode.value.data
        elt = op.value.type.element_type if isinstance(op.value.type, TensorType) else op.value.type
        if rmw in FLOAT_MODES and how == "exact":
            return None, (f"a float {rmw} would be reassociated (TILEORCH_COMBINE_ATOMICS=exact folds integer "
                          "operations only)")
        if rmw not in FLOAT_MODES and not (rmw in EXACT_MODES and isinstance(elt, IntegerType)):
            return None, f"its {rmw} is not an associative and commutative fold"
        if op.results[0].uses:
            return None, "its old value is used"
        if op.mem_scope is not None and op.mem_scope.value.data not in ("cta", "gpu"):
            return None, f"its scope is {op.mem_scope.value.data}"
        if not _token_users_ok(op, members, found.after):
            return None, "its token orders a later access"
        sliced, why = _slice([op.ptr, op.mask], block)
        if why is not None:
            return None, f"its address or mask differs between instances: {why}"
        found.invariant |= sliced
    for op in fn.walk():
        if op in members:
            continue
        if op.name in _SYNCING:
            return None, "the program has other atomics (an instance could wait for one the same CTA runs later)"
        sem = getattr(op, "mem_semantic", None)
        if op.name in _ORDERED and sem is not None and sem.value.data != "weak":
            return None, "the program has ordered loads or stores (an instance could wait for another)"
    found.invariant -= found.after
    return found, None


WARPS_ENV = "TILEORCH_COMBINED_WARPS"
DEFAULT_WARPS = 64


def min_ctas(threads: int, has_dot: bool) -> int | None:
    """The resident CTAs of ``threads`` threads to ask ptxas for, or None for no hint: ``TILEORCH_COMBINED_WARPS``
    resident warps an SM (default 64: as many as an SM's 2048 threads hold; 0: no hint), at most 32 CTAs; none for
    a kernel with a dot (its accumulators and staged operands need registers: a SIMT GEMM with column sums by
    atomics spilled to meet 16 CTAs).  The instance loop keeps a few more values live than the body alone, and
    ptxas then spends registers freely: sweep 15's cross entropy over 4096 columns took 31 registers as one
    instance per CTA and 48 in the loop (10 CTAs of 128 threads an SM instead of 16); asked for 16 it fits 31
    again without spilling (ptxas 13).  The launch's one wave counts the resident CTAs, so fewer would mean fewer
    rows in flight.  Where ptxas spills to meet the hint the backend drops it (as for a gather's)."""
    warps = settings.integer(WARPS_ENV)
    warps = DEFAULT_WARPS if warps is None else warps
    if threads <= 0 or warps == 0 or has_dot:
        return None
    n = min(warps * 32 // threads, MAX_CTAS_PER_SM)
    return n if n >= 2 else None


def remark(name: str, combined: int, reassociated: int) -> str:
    """The driver's remark for a kernel with :data:`ATTR`."""
    floats = (f"; {reassociated} of them float adds: the instances' terms summed in registers first, another "
              "bracketing of the same terms (the atomics' order is unspecified already; the sum keeps the "
              "(n-1)u sum|x| bound; TILEORCH_COMBINE_ATOMICS=exact: integer folds only)" if reassociated else
              " (integer folds: exact)")
    return (f"remark: @{name}: several program instances along x per CTA, one after another (the launch picks how "
            f"many: one wave of resident CTAs), their {combined} final atomic(s) folded in registers and made once "
            f"per CTA with the program's ordering{floats} (tileaa_to_simt/combined_atomics.py; "
            "TILEORCH_COMBINE_ATOMICS=auto, the default / exact; 0: one instance per CTA)")


__all__ = ["ATTR", "ENV", "MIN_CTAS_ATTR", "OFF_ATTR", "min_ctas", "EXACT_MODES", "FLOAT_MODES", "PER_CTA_ENV", "Plan", "REASSOC_ATTR", "identity", "mode",
           "plan", "remark"]
