"""The lowering walks that pass over the ops they would leave (issue 22): ``rewrite_once``'s
``wants``, the remaining-types walk of ``convert-pipeline-to-nvvm`` (OnlyConverting, the memoized
conversion keeping unchanged attributes), ``convert-nvvm-to-llvm``'s applier, the shared
extractvalue positions.  Expected IR is xDSL's own walker's or hand-written, never our output."""

from xdsl.dialects import arith, llvm, test
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, i32, i64
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tileorch.dialects.cutlass.types import PipelineStateType
from tileorch.transforms.pipeline_to_nvvm import LowerRemainingTypes
from tileorch.transforms.pipeline_to_nvvm.emit import STATE_TYPE
from tileorch.transforms.pipeline_to_nvvm.types import OnlyConverting
from tileorch.transforms.attr_cache import position
from tileorch.transforms.rewrite_once import rewrite_once


class _Bump(RewritePattern):
    """arith.constant 1 -> 2; records the ops it is tried on; wants only constants 1."""

    def __init__(self, with_wants: bool):
        self.tried = []
        if with_wants:
            self.wants = lambda op: isinstance(op, arith.ConstantOp) and op.value.value.data == 1

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        self.tried.append(op)
        if isinstance(op, arith.ConstantOp) and op.value.value.data == 1:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(2, i32)))


def _module():
    ones = [arith.ConstantOp(IntegerAttr(1, i32)) for _ in range(3)]
    sevens = [arith.ConstantOp(IntegerAttr(7, i32)) for _ in range(10)]
    return ModuleOp([*ones, *sevens, test.TestOp(operands=[o.result for o in ones + sevens])])


def test_rewrite_once_skips_what_the_pattern_does_not_want():
    plain, wanting = _module(), _module()
    p_plain, p_wanting = _Bump(False), _Bump(True)
    assert rewrite_once(p_plain, plain.body) and rewrite_once(p_wanting, wanting.body)
    assert str(plain) == str(wanting) and str(plain).count("2 : i32") == 3 and "1 : i32" not in str(plain)
    assert len(p_plain.tried) == 14 and len(p_wanting.tried) == 3  # 13 constants + the user; the 3 ones


def test_positions_are_shared_and_equal_to_xdsls():
    assert position(5) is position(5)
    assert position(5) == DenseArrayBase.from_list(i64, [5]) != position(4)


def test_memoized_conversion_keeps_unchanged_attributes():
    conv = LowerRemainingTypes(recursive=True)
    a, b = IntegerAttr(3, i32), IntegerAttr(3, i32)  # equal, distinct objects
    assert a is not b and conv._convert_type_rec(a) is a and conv._convert_type_rec(b) is b
    struct = llvm.LLVMStructType.from_type_list([i32, i64])
    assert conv._convert_type_rec(struct) is struct
    assert conv._convert_type_rec(PipelineStateType(4)) == STATE_TYPE
    inner = llvm.LLVMStructType.from_type_list([PipelineStateType(4), i32])  # a nested source type converts
    assert conv._convert_type_rec(inner) == llvm.LLVMStructType.from_type_list([STATE_TYPE, i32])


def test_only_converting_visits_only_ops_carrying_a_converted_type():
    state = test.TestOp(result_types=[PipelineStateType(4)])
    plain = [test.TestOp(result_types=[i32], attributes={"v": IntegerAttr(i, i32)}) for i in range(5)]
    module = ModuleOp([state, *plain, test.TestOp(operands=[state.results[0]])])
    pattern = OnlyConverting(LowerRemainingTypes(recursive=True))
    assert [pattern.wants(op) for op in module.body.block.ops] == [True] + [False] * 6
    assert rewrite_once(pattern, module.body)
    text = str(module)
    assert "cutlass.pipeline_state" not in text and "!llvm.struct<(i32, i32, i32)>" in text


def _unchanged_class_samples():
    from xdsl.dialects.builtin import (FloatAttr, IndexType, IntAttr, StringAttr, UnitAttr, f16, f32, i1)

    return [IntegerAttr(3, i32), IntegerAttr(-1, i1), IntegerAttr(7, IndexType()), IntAttr(5), FloatAttr(1.5, f32),
            FloatAttr(-0.0, f16), StringAttr("cutlass.pipeline_state"), UnitAttr(), DenseArrayBase.from_list(i64, [1, 2]),
            DenseArrayBase.from_list(i32, [])]


def test_unchanged_classes_are_what_the_conversions_leave_unchanged():
    # OnlyConverting skips the conversion of an attribute of these classes: every sample is
    # the conversion's own "unchanged" (the same object back), for both composed conversions
    from tileorch.transforms.pipeline_to_nvvm.scheduler import LowerSchedulerTypes
    from tileorch.transforms.pipeline_to_nvvm.types import LowerTypes

    samples = _unchanged_class_samples()
    assert {type(a) for a in samples} == set(LowerRemainingTypes.UNCHANGED_CLASSES)
    for conversion in (LowerRemainingTypes, LowerTypes, LowerSchedulerTypes):
        assert conversion.UNCHANGED_CLASSES == LowerRemainingTypes.UNCHANGED_CLASSES
        conv = conversion(recursive=True)
        assert all(conv._convert_type_rec(a) is a for a in samples)


def test_only_converting_with_unchanged_classes_answers_as_without():
    # the same wants on ops carrying such attributes, beside ones that do convert (a property
    # holding a source type, a result of one), as the conversion answers with the skip off
    state = PipelineStateType(4)
    ops = [test.TestOp(result_types=[i32], attributes={"a": a}, properties={"p": a}) for a in _unchanged_class_samples()]
    ops += [test.TestOp(result_types=[state]), test.TestOp(properties={"t": state}),
            test.TestOp(attributes={"s": llvm.LLVMStructType.from_type_list([state, i32])})]
    fast = OnlyConverting(LowerRemainingTypes(recursive=True))

    class NoSkip(LowerRemainingTypes):
        UNCHANGED_CLASSES = frozenset()

    slow = OnlyConverting(NoSkip(recursive=True))
    assert [fast.wants(op) for op in ops] == [slow.wants(op) for op in ops] == [False] * 10 + [True] * 3


def test_integer_attributes_are_shared_but_bools_are_not_folded_into_ints():
    from xdsl.dialects.builtin import IntegerAttr, i1

    from tileorch.transforms.attr_cache import integer

    assert integer(7, i32) is integer(7, i32) and integer(7, i32) == IntegerAttr(7, i32)
    assert integer(7, i32) is not integer(7, i64) and integer(-1, i1) == IntegerAttr(-1, i1)
    assert integer(1, 64) == IntegerAttr(1, i64)
    one = integer(1, i1)
    assert integer(True, i1) is not one and integer(True, i1) == IntegerAttr(True, i1)


CF = """func.func @f(%x: i32, %c: i1) -> i32 {
  cf.switch %x : i32, [
    default: ^d(%x : i32),
    1: ^a,
    5: ^b(%x : i32)
  ]
^a:
  cf.cond_br %c, ^d(%x : i32), ^b(%x : i32)
^b(%y: i32):
  cf.br ^d(%y : i32)
^d(%z: i32):
  func.return %z : i32
}
"""


def test_cf_to_llvm_one_walk_same_ir_as_one_walk_per_pattern():
    """convert-cf-to-llvm's single walk (LowerCf) leaves the IR the two walks it replaces
    (LowerSwitch over the module, then LowerBranches) leave, and no cf op."""
    from tileorch.backend.compile import parse_text, print_module
    from tileorch.registry import make_context
    from tileorch.transforms.cf_to_llvm import ConvertCfToLLVM, LowerBranches, LowerSwitch
    from tileorch.transforms.index_to_llvm import convert_index_types

    ctx = make_context()
    ours, theirs = parse_text(ctx, CF, "cf.mlir"), parse_text(ctx, CF, "cf.mlir")
    ConvertCfToLLVM().apply(ctx, ours)
    convert_index_types(theirs)
    for pattern in (LowerSwitch, LowerBranches):
        rewrite_once(pattern(), theirs.body)
    text = print_module(ours)
    assert text == print_module(theirs)
    assert "cf." not in text and text.count("llvm.cond_br") == 3 and "llvm.icmp" in text


def test_drop_host_functions_from_a_census_taken_before_folding():
    """drop_host_functions given the module's ops from before fold_static_queries drops the
    functions the walk of each function would (ops the fold erased are not counted)."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp

    from tileorch.transforms.pipeline_to_nvvm import scheduler

    def module():
        host = test.TestOp()
        host_fn = func.FuncOp("host", ((), ()))
        host_fn.body.block.add_ops([_named(scheduler.HOST_ONLY[0]), func.ReturnOp()])
        folded_fn = func.FuncOp("folded", ((), ()))
        gone = _named(scheduler.HOST_ONLY[1])
        folded_fn.body.block.add_ops([gone, func.ReturnOp()])
        dev_fn = func.FuncOp("device", ((), ()))
        dev_fn.body.block.add_ops([host, func.ReturnOp()])
        return ModuleOp([host_fn, folded_fn, dev_fn]), gone

    walked, gone_w = module()
    census_mod, gone_c = module()
    census = list(census_mod.walk())
    for m, gone in ((walked, gone_w), (census_mod, gone_c)):  # what folding a query does to it
        gone.detach()
        gone.erase()
    scheduler.drop_host_functions(walked)
    scheduler.drop_host_functions(census_mod, census)
    names = [[fn.sym_name.data for fn in m.body.block.ops] for m in (walked, census_mod)]
    assert names[0] == names[1] == ["folded", "device"]


def _named(name: str):
    """A test op answering to ``name`` (all drop_host_functions reads of it)."""
    return type("HostOnly", (test.TestOp,), {"name": name})()
