"""``verify-pipelines``: run the pipeline model checker on every kernel of the module and report
the first violated property of each as a located error at the offending op (the op of the
violating step, else the kernel)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileorch.analysis.counterexample import violation_origin
from tileorch.analysis.explore import StateSpaceTooLarge, check
from tileorch.analysis.extract import MAX_ITERATIONS, extract
from tileorch.diagnostics import LocatedError


@dataclass(frozen=True)
class VerifyPipelines(ModulePass):
    """Fail with ``file:line:col: error: <property>: <message>`` on the first violation."""

    name = "verify-pipelines"

    iterations: int = 0

    def __post_init__(self) -> None:
        # -1 checked no trip count at all (exit 0: a check that could not fail); 10**8 ran for ever
        if not 0 <= self.iterations <= MAX_ITERATIONS:
            raise ValueError(f"verify-pipelines: iterations must be in [0, {MAX_ITERATIONS}] (0: the default "
                             f"1..2*stages+1, which covers every larger trip count), got {self.iterations}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for proto in extract(op, iterations=self.iterations or None):
            try:
                result = check(proto)
            except StateSpaceTooLarge as exc:
                raise LocatedError(proto.origin, f"{proto.name}: not checked: the search passed {exc.max_states} "
                                                 "states without finishing (tileorch check --max-states bounds it)"
                                   ) from None
            if result.ok:
                continue
            v = result.violation
            where = violation_origin(result, proto.origin)
            agent = f" ({v.agent})" if v.agent else ""
            raise LocatedError(where, f"{proto.name}: {v.prop}{agent}: {v.message}")
