"""STD_LOWERING leaves out ``convert-index-to-llvm``: after ``convert-func-to-llvm`` no ``index``
type is left anywhere (op results, block arguments, constants, function and call types), so the
pass had nothing to convert.  Checked on a module that has index types in each of those places."""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.parser import Parser

from tileorch.backend import pipeline
from tileorch.registry import make_context

PROGRAM = """
builtin.module {
  func.func @callee(%a: index) -> index {
    %c = arith.constant 3 : index
    %s = arith.addi %a, %c : index
    func.return %s : index
  }
  func.func @k(%n: index, %p: i1) attributes {nvvm.kernel} {
    %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %r = func.call @callee(%t) : (index) -> index
    %z = arith.constant 0 : index
    cf.cond_br %p, ^a(%r : index), ^a(%z : index)
  ^a(%v: index):
    %w = scf.if %p -> (index) {
      %m = arith.muli %v, %n : index
      scf.yield %m : index
    } else {
      scf.yield %v : index
    }
    %i = arith.index_cast %w : index to i32
    func.return
  }
}
"""


def _index_types(module) -> list[str]:
    found = []
    for op in module.walk():
        types = [r.type for r in op.results] + [a.type for reg in op.regions for b in reg.blocks for a in b.args]
        value = op.properties.get("value")
        if value is not None and hasattr(value, "type"):
            types.append(value.type)
        ftype = op.properties.get("function_type")
        if ftype is not None:
            types += [*getattr(ftype, "inputs", ()), *getattr(ftype, "outputs", ()), getattr(ftype, "output", None)]
        found += [op.name for t in types if isinstance(t, IndexType)]
    return found


def test_pipeline_has_no_index_pass():
    assert "convert-index-to-llvm" not in pipeline.STD_LOWERING
    assert pipeline.STD_LOWERING.index("convert-func-to-llvm") == len(pipeline.STD_LOWERING) - 2


def test_no_index_type_after_func_to_llvm():
    ctx = make_context()
    module = Parser(ctx, PROGRAM).parse_module()
    assert _index_types(module)  # the input has them
    upto = pipeline.STD_LOWERING[: pipeline.STD_LOWERING.index("convert-func-to-llvm") + 1]
    pipeline.run_passes(ctx, module, pipeline.make_passes(upto))
    assert _index_types(module) == []
    module.verify()
