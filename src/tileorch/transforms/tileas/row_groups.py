"""Row groups of the chained tier (``TILEORCH_ATTN_ROW_GROUPS=3``, ``4`` or ``auto``, the default since session 35):
FlashAttention-3's head-dim-64 shape, three consumer warp groups over 192 rows sharing each K/V tile, for programs
written with 128-row tiles (or four over 256 rows where the key tiles are 64 wide: the 256x64 CTA of a program written
128x64).  ``auto`` (:func:`asked`) is the H100's measured rule: four groups where they fit (d64 -- or less -- with
64-wide key tiles, 1.18x at 1k and 1.29x at 4k), never three, and at a launch only where the four-group dealing's
busiest CTA runs at most :data:`SLICE_GAIN` times the default kernel's 64-row slices (:func:`launch_declines`); a
remark names the choice, ``=0`` turns it off.

A chained kernel runs each 128-row program instance on two consumer warp groups of 64 rows (``setmaxnreg`` 240)
beside a producer warp group.  Each consumer warp group already computes its 64 rows alone (the kernel has no
exchange between warp groups: a value that mixed rows of different groups would not lower), so a warp group
can as well take its 64 rows from *another* instance, provided the tiles the producer loads for the CTA are the
same for every row it serves.  With ``G = 3`` groups, CTA work unit ``u`` of a head runs the 64-row slices
``3u, 3u + 1, 3u + 2`` of that head's ``2 X`` slices (``X`` instances along grid axis 0): slice ``s`` is rows
``64 (s % 2) ..`` of instance ``s // 2``.  The producer loads one Q box of 192 rows (slices ``3u .. 3u + 2`` are
consecutive rows, since the Q tile's row index is the program id times the tile's 128 rows) and each K/V tile
once for the three groups; each group evaluates the program for its own instance (its program id) and rows, and
a group whose slice is past the head's last instance (``s // 2 >= X``) computes on what the box holds there and
computes its chain on what the box holds and stores nothing (``TILEORCH_ATTN_IDLE_SLICES=pass``: passes the unit's
tiles by, :func:`idle_pass_by`).
``cdiv(2 X, 3)`` units per head: at ``X = 8`` (sequence 1k) 6 units, one slot in 9 idle; every
head's full units are dealt before the partial ones.  With ``G = 4`` the same with four slices a unit (``X / 2``
units a head when ``X`` is even: none idle).

Per row nothing changes: every row runs the same ops in the same order as in the kernel of 128-row CTAs (the
results are bit-identical).  What changes is the CTA: 512 threads, 160 registers per consumer thread (FA3's
split, :func:`~tileorch.transforms.tileas.chained_dots.consumer_regs` of three groups), three consumer warps per
SM sub-partition instead of two, and a third fewer K/V loads per row.

Conditions (:func:`refusal`, each a remark when asked for and not met): a persistent kernel of 128-row tiles
without a heavy-first axis; no ping-pong, no ``NEXT_S``, no Q or K prologue, no program branch around the
chain, no work loop of the program, one A tile; the trip count and every producer load except Q independent of
program id ``x`` (:func:`pid_free`); the Q load's row index program id ``x`` itself; S, the packed P and the
carried tiles within the consumer's registers (160 for three groups, 112 for four; :data:`MARGIN` left for the
rest)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch import settings

ROW_GROUPS_ENV = "TILEORCH_ATTN_ROW_GROUPS"
IDLE_SLICE_ATTR = "tileorch.idle_slice"
"""The consumer's ``scf.if`` on its slice's instance existing: the chain, its Q release and stores, or else the
idle slice's pass-by (wait for the unit's Q and each K/V tile, release each; :mod:`tileorch.analysis.extract_chained`
checks that side's form and proves the other)."""

GROUPS = (3, 4)
"""The consumer warp group counts built: three of 160 registers (FA3's d64 shape: S, P and O of a 128-wide key
tile fit), four of 112 (64-wide key tiles at head dim 64: the 256x64 CTA of a program written 128x64)."""

MARGIN = 12
"""Registers of a consumer thread left beside S, the packed P and the carried tiles (as the four-group kernel's
:data:`~tileorch.transforms.tileas.chained_dots.FOUR_GROUP_MARGIN`)."""

_LAYOUT = ("nv_tileaa.assume", "arith.index_cast", "arith.extsi", "arith.extui", "arith.trunci",
           "nv_tileas.convert_layout")


IDLE_ENV = "TILEORCH_ATTN_IDLE_SLICES"


def idle_pass_by() -> bool:
    """Whether an idle slice passes its unit's tiles by (``TILEORCH_ATTN_IDLE_SLICES=pass``: a warp-uniform branch
    on the warp group's slice around the chain, its condition broadcast from lane 0 with ``shfl.sync.idx``) instead
    of computing a chain it does not store (``compute``, the default: the form the H100 ran and tested).  ptxas 13.0
    spills the same 24 B in the 128x128 d64 kernel either way (140 B with a branch on the lanes' own values)."""
    return settings.value(IDLE_ENV) == "pass"


def setting() -> str:
    """``TILEORCH_ATTN_ROW_GROUPS`` as set (``0``, ``3``, ``4`` or ``auto``, the default; read at each compile, part
    of the disk-cache key)."""
    return settings.value(ROW_GROUPS_ENV) or "auto"


def explicit() -> bool:
    """Whether ``TILEORCH_ATTN_ROW_GROUPS`` is set (by the environment or :class:`tileorch.settings.overridden`)
    rather than the default ``auto``: a kernel the default rule declines says why only where its tiles are the
    rule's (:func:`rule_shape`), one the user asked for always."""
    return settings.asked(ROW_GROUPS_ENV) is not None


RULE = ("the measured rule: four groups where their 112 registers hold S, the packed P and the carried tiles (head dim "
        "64 with 64-wide key tiles: H100 339 -> 400 TFLOP/s at 1k, 368 -> 475 at 4k), never three (0.90x at d64 1k)")
"""Why ``auto`` chooses what it does (the session-34 A/B, ``benchmarks/results/attention_s34_rowgroups_*``)."""


def asked() -> tuple[int, ...]:
    """The consumer warp group counts to try, in order (none: off).  ``auto`` (the default since session 35) is the
    cost rule of the H100's session-34 A/B (``benchmarks/session34_attn1k.sh``, one process): four groups wherever
    their 112 registers hold S, the packed P and the carried tiles (head dim 64 -- or less -- with 64-wide key tiles:
    the 128x64 program 339 -> 400 TFLOP/s at 1k, 368 -> 475 at 4k), never three (d64 128x128 0.90x at 1k and 0.955x
    at 4k; d128 128x64 0.90x at 1k, 1.04x at 4k); the kernel of 128-row instances elsewhere, and at a launch whose
    four-group dealing would give the busiest CTA more than :data:`SLICE_GAIN` times the default kernel's 64-row
    slices (:func:`launch_declines`).  ``0`` turns row groups off."""
    v = setting()
    return (4,) if v == "auto" else (int(v),) if v != "0" else ()


def rule_shape(ck, regs: int) -> bool:
    """Whether the chained kernel ``ck``'s tiles are those the ``auto`` rule regroups: 128-row program tiles whose S,
    packed P and carried tiles fit the ``regs`` registers of a consumer thread of four groups (a refusal for another
    reason is then worth a remark under the default)."""
    return ck.tm == 128 and not ck.tile_rows and register_need(ck) <= regs - MARGIN


def register_need(ck) -> int:
    """Registers per consumer thread of S (fp32), the packed P (16-bit pairs) and the carried tiles of ``ck``."""
    return ck.sn // 2 + ck.tn // 4 + sum(2 if x == 1 else x // 2 for _, x in ck.carried)


def reads_pid(v: SSAValue, axis: int = 0, limit: int = 4096) -> bool:
    """Whether ``v`` is computed from program id ``axis`` (through any ops, their regions included)."""
    stack, seen = [v], set()
    while stack and len(seen) < limit:
        x = stack.pop()
        if id(x) in seen or not isinstance(x.owner, Operation):
            continue
        seen.add(id(x))
        for o in x.owner.walk():
            if o.name == "nv_tileaa.get_program_id" and (o.operands or o.properties["axis"].value.data == axis):
                return True
            stack.extend(o.operands)
    return len(seen) >= limit  # (too deep to tell: as if it did)


def is_pid(v: SSAValue, axis: int = 0) -> bool:
    """Whether ``v`` is program id ``axis`` itself (through casts and ``assume``)."""
    for _ in range(16):
        owner = v.owner
        if not isinstance(owner, Operation):
            return False
        if owner.name == "nv_tileaa.get_program_id":
            return not owner.operands and owner.properties["axis"].value.data == axis
        if owner.name not in _LAYOUT or not owner.operands:
            return False
        v = owner.operands[0]
    return False


def pid_free(ck) -> str | None:
    """Why the tiles the producer loads for a work unit would differ between its slices (``None``: they do not):
    the trip count or a K/V load's index computed from program id ``x``, or a Q tile whose rows are not the
    program id's 128-row tile."""
    if reads_pid(ck.loop.ub) or reads_pid(ck.loop.lb) or reads_pid(ck.loop.step):
        return "the key loop's trip count depends on program id x (every row of a CTA shares the K/V tiles)"
    for op in [ck.b1, *ck.b1s, ck.b2]:
        for k, ix in enumerate(op.load.indices):
            if reads_pid(ix):
                return f"the K/V tile's index {k} depends on program id x (the three groups share each K/V tile)"
    a0 = ck.a0
    rows_dim = a0.view_dim(a0.rows_dim if a0.rows_dim >= 0 else a0.rank - 2)
    tile = [int(t) for t in _tile(a0.load)]
    for k, ix in enumerate(a0.load.indices):
        if k == rows_dim:
            if not is_pid(ix) or tile[k] != ck.tm:
                return "the Q tile's row index is not program id x (consecutive slices must be consecutive rows)"
        elif reads_pid(ix):
            return f"the Q tile's index {k} depends on program id x"
    return None


def _tile(load: Operation) -> list[int]:
    from tileorch.dialects.nv_tileaa.attrs import ints

    return ints(load.view.type.tile)


ASKED_OFF = (("TILEORCH_ATTN_ROW_DIV", "the row division's quotients beside the accumulator exceed four groups' "
                                      "registers"),
             ("TILEORCH_ATTN_Q_REGS", "the Q fragment beside the loop's registers exceeds four groups' 112"))
"""Switches four row groups refuse for their registers: set explicitly to ``1``, ``auto`` keeps two groups (the user's
switch wins over the default rule; a remark says so), where ``ROW_GROUPS=4`` keeps four without them."""


def loop_extra(ck, s_ahead: bool, late_pack: bool) -> tuple[int, str]:
    """(registers per consumer thread, what) the consumer loop's asked-for forms hold beside :func:`register_need`:
    ``TILEORCH_ATTN_S_AHEAD`` a second S and a second packed P (``sn / 2 + tn / 4``), ``TILEORCH_ATTN_LATE_PACK`` P
    in f32 beside the packed one (``tn / 2``).  With four groups' 112 registers ptxas 13.0 serialized the WGMMAs of
    the S-ahead MLP chain at d64 128x64 (C7512) and spilled 40 B in the late-pack attention kernel (where ``tn / 4``
    more would have fit the 100)."""
    extra, what = 0, []
    if s_ahead:
        extra += ck.sn // 2 + ck.tn // 4
        what.append("the S issued ahead (TILEORCH_ATTN_S_AHEAD)")
    if late_pack:
        extra += ck.tn // 2
        what.append("P in f32 (TILEORCH_ATTN_LATE_PACK)")
    return extra, " and ".join(what)


def refusal(ck, *, groups: int, persistent: bool, heavy, work_items, guards, pingpong: bool, next_s: bool,
            regs: int, s_ahead: bool = False, late_pack: bool = False) -> str | None:
    """Why the chained kernel ``ck`` does not run as ``groups`` row groups (``None``: it does); ``regs`` the
    consumer's ``setmaxnreg`` with ``groups`` consumer warp groups; ``s_ahead`` / ``late_pack``: the consumer loop's
    forms asked for (:func:`loop_extra`)."""
    if groups not in GROUPS:
        return f"{groups} groups ({' or '.join(map(str, GROUPS))} are built)"
    if ck.tm != 128 or ck.tile_rows:
        return f"{ck.rows}-row tiles (row groups regroup 128-row tiles)"
    if not persistent:
        return "not a persistent kernel"
    if heavy is not None:
        return "the trip count grows with a program id (a heavy-first axis: causal)"
    if work_items is not None:
        return "the program's own work loop sets the instances"
    if guards:
        return "a program branch around the chain"
    if pingpong or next_s:
        return "the ping-pong's turns" if pingpong else "TILEORCH_ATTN_NEXT_S"
    if ck.q_prologue is not None or ck.b_prologue is not None:
        return "a Q or K prologue"
    if ck.a0.gathered is not None:
        return "query rows gathered (each consumer warp group reads its own rows)"
    if ck.own_a or ck.a0.group_dim >= 0 or len(ck.seconds) > 1 or ck.row_loads or ck.k1 > 1:
        return ("first dots of their own A tiles" if ck.own_a else "a group of query heads in the Q tile's rows"
                if ck.a0.group_dim >= 0 else "several second dots" if len(ck.seconds) > 1 else
                "several first dots" if ck.k1 > 1 else "loop tiles read per row")
    if setting() == "auto":  # a switch the user set that four groups cannot honour: the rule steps aside
        for env, why in ASKED_OFF:
            if settings.asked(env) == "1":
                return f"{env}=1 is set ({why})"
    extra, what = loop_extra(ck, s_ahead, late_pack)
    need = register_need(ck) + extra
    if need > regs - MARGIN:
        return (f"S, the packed P{', ' + what + ',' if what else ''} and the carried tiles need {need} registers per "
                f"thread, more than {regs - MARGIN} of {groups} consumer warp groups' {regs}")
    return pid_free(ck)


def busiest_slices(x: int, heads: int, groups: int, ctas: int, pass_by: bool = True) -> tuple[int, int, int, int]:
    """The dealing of a row-groups launch (``x`` instances along grid axis 0, ``heads`` = grid y z, ``ctas``
    persistent CTAs): (full units, partial units, slices of a partial unit, the most 64-row slices one CTA runs).
    Units ``w < F heads`` are full (``groups`` slices), the rest partial (``2x % groups``); CTA ``b`` runs ``w = b,
    b + ctas, ..`` (the kernel's :meth:`~tileorch.transforms.tileas.chained_dots._WorkTiles.unit_coords`).  Without
    ``pass_by`` (:func:`idle_pass_by`) a partial unit's idle slices are computed: it counts ``groups`` slices."""
    slices = 2 * x
    full, rest = slices // groups * heads, slices % groups
    partial = heads if rest else 0

    def below(n: int, b: int) -> int:  # CTA b's units w < n
        return (n - b + ctas - 1) // ctas if b < n else 0

    weight = rest if pass_by else groups
    most = max((below(full, b) * groups + (below(full + partial, b) - below(full, b)) * weight
                for b in range(min(ctas, full + partial))), default=0)
    return full, partial, rest, most


def launch_remark(x: int, heads: int, groups: int, ctas: int, pass_by: bool = True) -> str:
    """The launch remark of a row-groups kernel: its units and the busiest CTA's slices (idle ones counted unless
    ``pass_by``) beside the default kernel's (one 128-row instance, two slices, at a time on the same CTAs)."""
    full, partial, rest, most = busiest_slices(x, heads, groups, ctas, pass_by)
    default = 2 * -(-(x * heads) // ctas)
    return (f"remark: {ctas} CTAs (one per SM at most) for {full + partial} work units of {groups} 64-row slices "
            f"({full} full" + (f", {partial} of {rest}" if partial else "") + f") from {x * heads} instances: the "
            f"busiest CTA runs {most} slices" + ("" if pass_by or not partial else " (idle ones computed)")
            + f", the kernel of 128-row instances {default} ({ROW_GROUPS_ENV})")


SPILL_LIMIT = 16
"""Bytes of spill stores and loads ptxas may leave in a kernel of the default (``auto``) row groups; past them the
driver compiles the program again without row groups (``tileorch.driver._without_row_groups``).  The measured
d64 128x64 kernel spilled 8 B stores and 8 B loads (ptxas 13.0, the H100's 1.18x at 1k and 1.29x at 4k); the
natural-exp soft-capped program at d64 128x64 spilled 140 B / 284 B."""


SLICE_GAIN = 1.15
"""The time of a 64-row slice on the default kernel over its time on four row groups, as the launch rule counts it:
the H100's session-34 A/B measured 1.18 at 1k and 1.29 at 4k where both kernels' busiest CTAs run 32 slices (400.2
/ 339.2 and 475.2 / 368.1 TFLOP/s, d64 128x64), less a margin."""


def launch_declines(x: int, heads: int, groups: int, ctas: int, pass_by: bool = True) -> str | None:
    """Why the ``auto`` rule's kernel of ``groups`` row groups would lose at this launch (``None``: it does not):
    the busiest CTA of its dealing runs more 64-row slices than :data:`SLICE_GAIN` times the busiest CTA of the kernel
    of 128-row instances on the same ``ctas`` (:func:`busiest_slices`; idle slices of partial units counted unless
    ``pass_by``).  Four groups share an SM's tensor cores where two did: each slice is faster by the measured gain,
    but a grid too small to give every CTA a unit of four slices (at most one instance a CTA: 4 slices against 2)
    or a dealing whose last round is short can more than spend it."""
    _, _, _, most = busiest_slices(x, heads, groups, ctas, pass_by)
    default = 2 * -(-(x * heads) // ctas)
    if most <= default * SLICE_GAIN:
        return None
    return (f"the busiest CTA of {groups} row groups would run {most} 64-row slices against the kernel of 128-row "
            f"instances' {default} ({x * heads} instances on {ctas} CTAs; more than {SLICE_GAIN} times, the "
            "measured gain per slice less a margin)")


def remark(groups: int, regs: int, smem: int, stages: int, slots: int) -> str:
    """The remark of a kernel of row groups (under the default ``auto``: the rule and how to turn it off)."""
    why = "" if explicit() else f", the default: {RULE}; =0 turns it off"
    return (f"{groups} consumer warp groups of {regs} registers over {64 * groups} rows ({ROW_GROUPS_ENV}={setting()}"
            f"{why}): each runs a 64-row slice of a 128-row program instance, the CTA's slices consecutive rows of one "
            f"head sharing each K/V tile; {stages} K/V stages and {slots} Q slot(s) of {64 * groups} rows, {smem} "
            "bytes of shared memory")


__all__ = ["ASKED_OFF", "GROUPS", "IDLE_ENV", "IDLE_SLICE_ATTR", "MARGIN", "ROW_GROUPS_ENV", "RULE", "SLICE_GAIN",
           "SPILL_LIMIT", "asked", "busiest_slices", "explicit", "idle_pass_by", "is_pid", "launch_declines",
           "launch_remark", "loop_extra", "pid_free", "reads_pid", "refusal", "register_need", "remark", "rule_shape",
           "setting"]
