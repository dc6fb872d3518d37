"""STD_LOWERING converts ``index`` types once: ``convert-index-to-llvm`` before the arith/cf/func-to-llvm
passes, which run with ``index-types=false`` (their patterns build no ``index`` type); after
``convert-func-to-llvm`` no ``index`` type is left anywhere (op results, block arguments, constants,
function and call types).  Each of those passes run alone (``tileorch-opt -p convert-cf-to-llvm``)
still converts them first.  Checked on a module that has index types in each of those places."""

from __future__ import annotations

import pytest
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


def test_the_pipeline_converts_index_types_once():
    names = [pipeline.pass_name(n) for n in pipeline.STD_LOWERING]
    first = names.index("convert-index-to-llvm")
    assert names[first + 1:first + 4] == ["convert-arith-to-llvm", "convert-cf-to-llvm", "convert-func-to-llvm"]
    passes = pipeline.make_passes(pipeline.STD_LOWERING)
    assert [p.index_types for p in passes[first + 1:first + 4]] == [False] * 3
    assert names.index("convert-func-to-llvm") == len(names) - 2


@pytest.mark.parametrize("name", ["convert-arith-to-llvm", "convert-cf-to-llvm", "convert-func-to-llvm"])
def test_each_pass_alone_converts_index_types(name):
    """Standalone (its default ``index-types=true``) every index type is gone after the pass; with
    ``index-types=false`` the pass leaves the ones its patterns do not rewrite."""
    ctx = make_context()
    module = Parser(ctx, PROGRAM).parse_module()
    pipeline.run_passes(ctx, module, pipeline.make_passes([name]))
    assert _index_types(module) == []
    module = Parser(ctx, PROGRAM).parse_module()
    pipeline.run_passes(ctx, module, pipeline.make_passes([name + "{index-types=false}"]))
    assert _index_types(module)


def test_no_index_type_after_func_to_llvm():
    ctx = make_context()
    module = Parser(ctx, PROGRAM).parse_module()
    assert _index_types(module)  # the input has them
    names = [pipeline.pass_name(n) for n in pipeline.STD_LOWERING]
    upto = pipeline.STD_LOWERING[: names.index("convert-func-to-llvm") + 1]
    pipeline.run_passes(ctx, module, pipeline.make_passes(upto))
    assert _index_types(module) == []
    module.verify()
