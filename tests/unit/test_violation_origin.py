"""Where a failed model check is reported (``tileorch check`` and ``verify-pipelines``): the op of
the violating step, else the last step's op, else the kernel."""

import dataclasses
from pathlib import Path

from tileorch.analysis.counterexample import violation_origin
from tileorch.analysis.explore import check
from tileorch.analysis.extract import load
from tileorch.diagnostics import location_str

BROKEN = Path(__file__).resolve().parents[1] / "filecheck" / "check" / "ported_kernels_broken.mlir"


def _failed(kernel):
    protocols, errors = load(str(BROKEN), kernel)
    assert not errors and len(protocols) == 1
    result = check(protocols[0], jobs=1)
    assert not result.ok
    return protocols[0], result


def _line(needle, after):
    """1-based line of the first ``needle`` after the line holding ``after``."""
    lines = BROKEN.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if after in l)
    return next(i for i in range(start, len(lines)) if lines[i].strip() == needle) + 1


def test_the_violating_op_wins():
    # the consumer's first try-wait passes for a phase that never completed
    _, result = _failed("bad_wrong_phase")
    where = location_str(violation_origin(result))
    want = _line("%ready_now = cutlass.pipeline.consumer_try_wait %q, %s", "func.func @bad_wrong_phase")
    assert where == f"{BROKEN}:{want}:11"


def test_without_a_located_violation_op_the_last_step_is_used():
    proto, result = _failed("bad_named_mismatch")
    unlocated = dataclasses.replace(result.violation, op=None)
    last = result.trace[-1].origin
    assert last is not None
    assert violation_origin(dataclasses.replace(result, violation=unlocated)) is last
    bare = dataclasses.replace(result, violation=unlocated, trace=[])
    assert violation_origin(bare, proto.origin) is proto.origin
