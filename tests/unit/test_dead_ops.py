"""tileorch.transforms.dead_ops answers as xDSL's dead-code test, with fewer effect queries; the
greedy applier built on it rewrites as xDSL's; the memoized type conversion converts as xDSL's."""

from pathlib import Path

from xdsl.dialects import arith, func, llvm, memref, scf, test
from xdsl.dialects.builtin import (ArrayAttr, DictionaryAttr, FunctionType, IntegerAttr, ModuleOp, StringAttr, f32,
                                   i1, i32, i64)
from xdsl.ir import Attribute
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, TypeConversionPattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead as xdsl_is_trivially_dead

from tileorch.transforms import dead_ops
from tileorch.transforms.dead_ops import GreedyApplier, is_trivially_dead

ROOT = Path(__file__).resolve().parents[2]


def _const(v: int, t=i32):
    return arith.ConstantOp(IntegerAttr(v, t))


def _store(value, ref):
    """A write (``memref.store`` has xDSL's ``MemoryWriteEffect``; ``llvm.store`` has no effect trait)."""
    return memref.StoreOp.get(value, ref, [])


def _if(cond, body):
    return scf.IfOp(cond, [], [*body, scf.YieldOp()])


def _module():
    """Ops of every kind the test distinguishes: pure (used, unused), writes, unknown effects,
    ops with regions whose bodies are pure, write (first, last, nested deep) or are unknown."""
    ptr_op = test.TestOp(result_types=[memref.MemRefType(i32, [])])  # an op of unknown effects
    ptr = ptr_op.results[0]
    cond = _const(1, i1)
    a, b = _const(1), _const(2)
    used = arith.AddiOp(a, b)
    unused = arith.MuliOp(a, b)
    store = _store(used.result, ptr)
    pure_if = _if(cond, [_const(3), arith.AddiOp(a, b)])
    store_first_if = _if(cond, [_store(a.result, ptr), test.TestOp()])  # a write, then unknown effects
    store_last_if = _if(cond, [_const(4), arith.AddiOp(a, b), _store(b.result, ptr)])
    deep = _if(cond, [_const(5), _if(cond, [_const(6), _if(cond, [_store(a.result, ptr)])])])
    deep_pure = _if(cond, [_if(cond, [_if(cond, [_const(7)])])])
    unknown_if = _if(cond, [_const(8), test.TestOp()])
    read_if = _if(cond, [memref.LoadOp.get(ptr, [])])  # reads only: dead
    body = [ptr_op, cond, a, b, used, unused, store, pure_if, store_first_if, store_last_if, deep, deep_pure,
            unknown_if, read_if, func.ReturnOp()]
    fn = func.FuncOp("f", FunctionType.from_lists([], []))
    fn.body.block.add_ops(body)
    named = dict(used=used, unused=unused, store=store, pure_if=pure_if, store_first_if=store_first_if,
                 store_last_if=store_last_if, deep=deep, deep_pure=deep_pure, unknown_if=unknown_if,
                 read_if=read_if, fn=fn, ret=body[-1])
    return ModuleOp([fn]), named


def test_same_answer_as_xdsl_on_every_kind_of_op():
    module, named = _module()
    answers = [(op.name, is_trivially_dead(op)) for op in module.walk()]
    assert answers == [(op.name, xdsl_is_trivially_dead(op)) for op in module.walk()]
    dead = {name for name, op in named.items() if is_trivially_dead(op)}
    assert dead == {"unused", "pure_if", "deep_pure", "read_if"}


def test_a_write_ends_the_walk_of_the_body(monkeypatch):
    """The body after the first write is not asked for its effects (xDSL collects them all)."""
    cond = _const(1, i1)
    ptr_op = test.TestOp(result_types=[memref.MemRefType(i32, [])])
    a = _const(1)
    tail = [arith.AddiOp(a, a) for _ in range(50)]
    if_op = _if(cond, [_store(a.result, ptr_op.results[0]), *tail])
    ModuleOp([ptr_op, cond, a, if_op])
    asked = []
    real = dead_ops._only_local_effects
    monkeypatch.setattr(dead_ops, "_only_local_effects", lambda root, op: asked.append(op.name) or real(root, op))
    assert not is_trivially_dead(if_op) and not xdsl_is_trivially_dead(if_op)
    assert asked == ["scf.if", "memref.store"]


def test_same_answer_on_a_lowered_gemm_after_every_pass():
    """Every op of examples/gemm_sm90.mlir, then of the module after each lowering pass."""
    from tileorch.backend import pipeline
    from tileorch.backend.compile import parse_text
    from tileorch.registry import make_context

    ctx = make_context()
    module = parse_text(ctx, (ROOT / "examples" / "gemm_sm90.mlir").read_text(), "gemm_sm90.mlir")
    compared = 0
    for p in [None, *pipeline.make_passes(pipeline.PIPELINE)]:
        if p is not None:
            pipeline.apply_pass(ctx, module, p)
        for op in module.walk():
            assert is_trivially_dead(op) == xdsl_is_trivially_dead(op), (p and p.name, op.name)
            compared += 1
    assert compared > 10_000


def test_greedy_applier_rewrites_as_xdsls():
    """Dead ops erased to a fixpoint (a chain of them, a dead pure if) and the others kept: the
    same IR as xDSL's applier leaves."""
    def build():
        module, _ = _module()
        block = next(op for op in module.walk() if isinstance(op, func.FuncOp)).body.block
        x = _const(9)
        block.insert_ops_before([x, arith.AddiOp(x, x)], block.last_op)  # a chain: both dead in turn
        return module

    ours, theirs = build(), build()
    PatternRewriteWalker(GreedyApplier([]), apply_recursively=True).rewrite_module(ours)
    PatternRewriteWalker(GreedyRewritePatternApplier([]), apply_recursively=True).rewrite_module(theirs)
    assert str(ours) == str(theirs)
    assert "arith.muli" not in str(ours) and "memref.store" in str(ours) and "9 : i32" not in str(ours)


def test_memoized_type_conversion_converts_as_xdsl():
    """i32 -> i64 everywhere: inside arrays, dictionaries and parametrized types, as xDSL's
    recursive conversion does it."""
    from tileorch.transforms.pipeline_to_nvvm.types import MemoizedTypeConversion

    class Ours(MemoizedTypeConversion):
        def convert_type(self, typ: Attribute) -> Attribute | None:
            return i64 if typ == i32 else None

    class Theirs(TypeConversionPattern):
        def convert_type(self, typ: Attribute) -> Attribute | None:
            return i64 if typ == i32 else None

    cases = [i32, f32, ArrayAttr([i32, f32, ArrayAttr([i32])]), DictionaryAttr({"a": i32, "b": StringAttr("x")}),
             llvm.LLVMStructType.from_type_list([i32, f32]), FunctionType.from_lists([i32], [i32, f32]),
             llvm.LLVMArrayType(4, i32)]
    for recursive in (True, False):
        ours, theirs = Ours(recursive=recursive), Theirs(recursive=recursive)
        for typ in cases:
            assert ours._convert_type_rec(typ) == theirs._convert_type_rec(typ), (recursive, typ)
    assert Ours(recursive=True)._convert_type_rec(ArrayAttr([i32])) == ArrayAttr([i64])


def test_class_facts_follow_a_trait_added_later():
    """The per-class facts are read again when the class's traits change (``add_trait``)."""
    from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def
    from xdsl.traits import NoMemoryEffect

    @irdl_op_definition
    class LateOp(IRDLOperation):
        name = "test_dead_ops.late"
        res = result_def(i32)

    op = LateOp.create(result_types=[i32])
    assert not is_trivially_dead(op) and not xdsl_is_trivially_dead(op)  # unknown effects
    LateOp.traits.add_trait(NoMemoryEffect())
    assert is_trivially_dead(op) and xdsl_is_trivially_dead(op)
