"""``nv_tileaa.print`` on the SIMT path: the PTX system call ``vprintf``.

One thread per tile block prints (thread 0 of the CTA, the lane 0 of a warp program): the
tiles it does not hold whole are first written to the scratch (``FunctionLowering._stage``,
between barriers), then it makes the calls :mod:`print_plan` chose, each
``vprintf(format, buffer)`` with ``format`` a constant string and ``buffer`` the arguments laid
out as CUDA's printf reads them: each at an offset aligned to its size, integers of 32 bits or
fewer as 4 bytes (``i1`` zero-extended, ``i8``/``i16`` sign-extended: the IR's integers carry
no sign, tileiras extends them so too), 64-bit integers and floats as 8 bytes (every float
promoted to ``double``; f16/bf16/fp8 exactly).  An integer conversion with length ``l``/``ll``
reads 8 bytes and the others 4: the value is sign-extended or truncated to what its conversion
reads (so ``%d`` of an i64 prints its low 32 bits, as the C call would).

A print of more than one call holds a lock (a module global ``i32``: compare-and-swap 0 -> 1
with acquire, exchange to 0 with release, at GPU scope) around its calls, so that the prints of
different tile blocks do not interleave (tileiras takes such a lock for every print).  The
strings, the lock and the declaration of ``vprintf`` are module globals (:func:`add_globals`);
ptxas resolves ``vprintf`` itself: the kernel stays a whole program."""

from __future__ import annotations

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import (DictionaryAttr, Float16Type, Float32Type, Float64Type, IntegerAttr,
                                   IntegerType, ModuleOp, StringAttr, f64, i1, i32, i64)
from xdsl.ir import Block, Operation, Region, SSAValue

from tileorch.dialects import llvm_ext
from tileorch.transforms.bound_waits import SPIN_SITE
from tileorch.dialects.nv_tileaa.print_format import Conversion, parse
from tileorch.transforms.tileaa_to_simt import PRINT_LOCK_ATTR as LOCK_ATTR  # (the lowering tests for both)
from tileorch.transforms.tileaa_to_simt import PRINT_STRINGS_ATTR as STRINGS_ATTR
from tileorch.transforms.tileaa_to_simt import print_plan
from tileorch.transforms.tileaa_to_simt.emit import GLOBAL_PTR, Tile, cmpi, position, reg_type

VPRINTF = "vprintf"
LOCK = "__tileorch_print_lock"
BUFFER_BYTES = 8 * print_plan.MAX_ARGS
PTR = llvm.LLVMPointerType()
i8 = IntegerType(8)


def _cstring(text: str) -> str:
    return text.replace("\0", " ") + "\0"


def _string(lowering, b, text: str) -> SSAValue:
    """The address of the constant string ``text`` (one global per distinct text)."""
    key = _cstring(text)
    name = lowering.print_strings.get(key)
    if name is None:
        name = lowering.print_strings[key] = f"__tileorch_fmt_{lowering.fn.sym_name.data}_{len(lowering.print_strings)}"
    return b.v(llvm.AddressOfOp(name, PTR))


def _buffer(lowering) -> SSAValue:
    """The kernel's argument buffer (``BUFFER_BYTES`` of local memory, 8-byte aligned), one
    alloca in the entry block shared by every call."""
    if lowering.print_buffer is None:
        entry = lowering.entry_block
        n = arith.ConstantOp(IntegerAttr(print_plan.MAX_ARGS, i32))
        alloca = llvm.AllocaOp(n, i64, alignment=8)
        first = entry.first_op
        for new in (n, alloca):
            if first is None:
                entry.add_op(new)
            else:
                entry.insert_op_before(new, first)
        lowering.print_buffer = alloca.results[0]
    return lowering.print_buffer


def _argument(b, v: SSAValue, conv: Conversion) -> SSAValue:
    """``v`` (a register value) as the argument ``conv`` reads: double, or i32 / i64."""
    t = v.type
    if isinstance(t, Float16Type | Float32Type):
        return b.v(arith.ExtFOp(v, f64))
    if isinstance(t, Float64Type):
        return v
    width = t.width.data
    if width < 32:
        v = b.v(arith.ExtUIOp(v, i32) if t == i1 else arith.ExtSIOp(v, i32))
        width = 32
    if conv.wide and width == 32:
        return b.v(arith.ExtSIOp(v, i64))
    if not conv.wide and width == 64:
        return b.v(arith.TruncIOp(v, i32))
    return v


def _call(lowering, b, fmt: SSAValue, values: list[SSAValue]) -> None:
    """``vprintf(fmt, buffer)`` with ``values`` (i32 / i64 / f64) laid out in the buffer."""
    buf = _buffer(lowering)
    at = 0
    for v in values:
        size = 4 if v.type == i32 else 8
        at = -(-at // size) * size
        ptr = buf if at == 0 else b.gep(buf, b.const(at), i8, PTR)
        b.store(v, ptr)
        at += size
    b.add(llvm.CallOp(VPRINTF, fmt, buf, return_type=i32))


def _lock(lowering, b, take: bool) -> None:
    lowering.print_lock = True
    lock = b.v(llvm.AddressOfOp(LOCK, GLOBAL_PTR))
    if not take:  # the calls' records precede the release (LLVM emits a relaxed atom.exch for it)
        b.add(llvm_ext.FenceOp("release", "device"))
        b.v(llvm_ext.AtomicRMWOp("xchg", lock, b.const(0), "release", "device"))
        return
    before = Block()
    bb = b.nested(before)
    pair = bb.v(llvm_ext.CmpXchgOp(lock, bb.const(0), bb.const(1), "acquire", "monotonic", "device"))
    won = bb.v(llvm.ExtractValueOp(position(1), pair, i1))
    again = bb.v(arith.XOrIOp(won, bb.const(1, i1)))
    before.add_op(scf.ConditionOp(again))
    loop = b.add(scf.WhileOp([], [], Region(before), Region(Block([scf.YieldOp()]))))
    loop.attributes[SPIN_SITE] = StringAttr("the print lock (a global spin lock that orders the prints' lines)")


def lower_print(lowering, e, op: Operation) -> None:
    """Emit ``op``'s print in the kernel ``lowering`` builds (at ``e``)."""
    pieces = parse(op.format.data)
    convs = [p for p in pieces if isinstance(p, Conversion)]
    vals = [lowering.get(a) for a in op.args]
    shapes = [tuple(v.shape) if isinstance(v, Tile) else () for v in vals]
    staged = [i for i, v in enumerate(vals) if isinstance(v, Tile) and not v.replicated]
    offsets = dict(zip(staged, lowering._stage(e, [vals[i] for i in staged]))) if staged else {}
    steps = print_plan.plan(pieces, shapes)

    def element(b, arg: int, flat) -> SSAValue:
        v = vals[arg]
        if arg in offsets:
            idx = flat if isinstance(flat, SSAValue) else b.const(flat)
            x = lowering._read(b, offsets[arg], v.element, idx)
        else:
            x = v.slots[0] if isinstance(v, Tile) else v
        return _argument(b, x, convs[arg])

    def emit_all(b) -> None:
        locked = len(steps) > 1 or isinstance(steps[0], print_plan.Loop)
        if locked:
            _lock(lowering, b, True)
        for s in steps:
            if isinstance(s, print_plan.Call):
                _call(lowering, b, _string(lowering, b, s.fmt), [element(b, a, f) for a, f in s.elems])
                continue
            first = _string(lowering, b, s.body)
            variants = [_string(lowering, b, sep + s.body) for sep in s.seps]

            def body(lb, u, _carried, s=s, first=first, variants=variants):
                f = lb.mul_i(u, lb.const(s.unit))
                fmt = lb.v(llvm.SelectOp(lb.v(cmpi(u, lb.const(0), "eq")), first, variants[0]))
                for m, d in enumerate(s.divisors, start=1):
                    ends = lb.v(cmpi(lb.v(arith.RemUIOp(f, lb.const(d))), lb.const(0), "eq"))
                    nonfirst = lb.v(cmpi(u, lb.const(0), "ne"))
                    fmt = lb.v(llvm.SelectOp(lb.v(arith.AndIOp(ends, nonfirst)), variants[m], fmt))
                _call(lowering, lb, fmt, [element(lb, s.arg, lb.add_i(f, lb.const(j))) for j in range(s.unit)])
                return []

            b.for_(b.const(0), b.const(s.units), b.const(1), [], body)
        if locked:
            _lock(lowering, b, False)

    printer = e.v(cmpi(e.tid, e.const(0), "eq"))
    e.if_(printer, lambda b: (emit_all(b), None)[1])
    if staged:
        e.barrier()  # the scratch is read until the printer is done


def record(fn: Operation, lowering) -> None:
    """Keep the lowering's strings (and whether it took the lock) on the lowered kernel for
    :func:`add_globals`."""
    if lowering.print_strings:
        fn.attributes[STRINGS_ATTR] = DictionaryAttr({n: StringAttr(t) for t, n in lowering.print_strings.items()})
    if lowering.print_lock:
        fn.attributes[LOCK_ATTR] = IntegerAttr(1, i32)


def add_globals(module: ModuleOp) -> None:
    """For every kernel of ``module`` that prints: its format strings as constant globals and,
    once, ``vprintf``'s declaration and the lock; the attributes are removed."""
    block = module.body.block
    have = {op.sym_name.data for op in block.ops if isinstance(op, llvm.FuncOp | llvm.GlobalOp)}
    for fn in list(block.ops):
        strings = fn.attributes.pop(STRINGS_ATTR, None)
        lock = fn.attributes.pop(LOCK_ATTR, None)
        if strings is None:
            continue
        for name, text in strings.data.items():
            raw = text.data.encode("utf-8")
            block.insert_op_before(llvm.GlobalOp(llvm.LLVMArrayType(len(raw), i8), name, "internal", constant=True,
                                                 value=StringAttr(text.data), alignment=1), fn)
        if VPRINTF not in have:
            block.insert_op_before(llvm.FuncOp(VPRINTF, llvm.LLVMFunctionType([PTR, PTR], i32),
                                               linkage=llvm.LinkageAttr("external")), fn)
            have.add(VPRINTF)
        if lock is not None and LOCK not in have:
            block.insert_op_before(llvm.GlobalOp(i32, LOCK, "internal", addr_space=1, value=IntegerAttr(0, i32),
                                                 alignment=4), fn)
            have.add(LOCK)


__all__ = ["LOCK", "VPRINTF", "add_globals", "lower_print", "record"]
