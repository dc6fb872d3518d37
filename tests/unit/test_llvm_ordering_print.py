"""An ``llvm.store`` whose ordering is not one LLVM has (3) prints as its number instead of raising
``KeyError``, and the verifier still names it: a diagnostic that prints the op must not turn into a
traceback."""
from io import StringIO

from xdsl.parser import Parser
from xdsl.printer import Printer

from tileorch.diagnostics import verify_op_located
from tileorch.registry import make_context

SOURCE = """
"builtin.module"() ({
  "llvm.func"() <{function_type = !llvm.func<void (!llvm.ptr, i32)>, sym_name = "f", linkage = #llvm.linkage<external>, CConv = #llvm.cconv<ccc>, visibility_ = 0 : i64}> ({
  ^bb0(%p: !llvm.ptr, %v: i32):
    "llvm.store"(%v, %p) <{ordering = 3 : i64, alignment = 4 : i64}> : (i32, !llvm.ptr) -> ()
    "llvm.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"""


def test_invalid_ordering_prints_as_its_number_and_fails_verification():
    module = Parser(make_context(), SOURCE).parse_module()
    out = StringIO()
    Printer(stream=out).print_op(module)
    assert "atomic 3" in out.getvalue()
    store = next(op for op in module.walk() if op.name == "llvm.store")
    assert "got 3" in (verify_op_located(store) or "")
