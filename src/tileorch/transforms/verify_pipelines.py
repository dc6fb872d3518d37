"""``verify-pipelines``: run the pipeline model checker on every kernel of the module and report
the first violated property of each as a located error at the offending op (the op of the
violating step, else the kernel)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileorch.analysis.explore import check
from tileorch.analysis.extract import extract
from tileorch.diagnostics import LocatedError


@dataclass(frozen=True)
class VerifyPipelines(ModulePass):
    """Fail with ``file:line:col: error: <property>: <message>`` on the first violation."""

    name = "verify-pipelines"

    iterations: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for proto in extract(op, iterations=self.iterations or None):
            result = check(proto)
            if result.ok:
                continue
            v = result.violation
            where = getattr(v.op, "origin", None) or proto.origin
            agent = f" ({v.agent})" if v.agent else ""
            raise LocatedError(where, f"{proto.name}: {v.prop}{agent}: {v.message}")
