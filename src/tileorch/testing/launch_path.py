"""The path a launch ran, for the sweeps' GPU harnesses (tests/gpu/sweep_harness.gpu_run and
tests/gpu/test_user_sweep_gpu.run / check_path).

``tileorch.cutile.launch`` may run a program on another path than its compile's: a GEMM or chained program whose
arrays the tensor maps cannot address (a row stride not a multiple of 16 bytes, a batch stride of 0, ...) runs on
the SIMT path with a PerformanceWarning (once per compiled program) and a launch remark.  Checking the compiled
program's kind alone (what the harnesses did before session 41) passes such a launch.  Here the launcher's own
record of its latest full-path launch (``tileorch.launchers.cutile.last_full_launch``: kernel, grid, the path that
ran) is read instead: :func:`begin` forgets the launches kept bound (so the next launch takes the full path and
records what it ran), :func:`ran` reads the record after the launch, and :func:`check` compares the table's path, the
compiled program's kind and the launch's path.  No GPU needed to import (the CPU unit test hands it fake records)."""

from __future__ import annotations

from typing import Any

PATHS = ("gemm", "chained", "simt")


def begin() -> None:
    """Before a harness launch: the launcher's bound launches forgotten (a repeated launch of equal arguments would
    take the hot path, which records nothing) and its record cleared."""
    from tileorch.launchers import cutile as rc

    rc._forget_bound_state()
    rc.last_full_launch[0] = None


def ran(kernel: Any, grid: Any) -> str:
    """After the launch of ``kernel`` on ``grid`` (following :func:`begin`): the path it ran, from the launcher's
    record; an AssertionError when the record is of no such launch."""
    from tileorch.launchers import cutile as rc

    return path_of(rc.last_full_launch[0], kernel, rc.normalize_grid(grid))


_ran = ran  # (checked_launch's parameter ``ran`` shadows the function)


def path_of(record: Any, kernel: Any, grid3: tuple) -> str:
    """The path of the launch ``record`` (``(kernel, grid, path)`` or None), which must be the launch of ``kernel``
    on ``grid3``."""
    assert record is not None, ("the launcher recorded no full-path launch (a bound launch of the hot path, cuTile's "
                                "native launcher, or a launch that raised): the path it ran is unknown")
    got_kernel, got_grid, path = record
    assert got_kernel is kernel, f"the launcher's record is of another kernel's launch ({got_kernel!r})"
    assert tuple(got_grid) == tuple(grid3), f"the launcher's record is of a launch on grid {got_grid}, not {grid3}"
    assert path in PATHS, f"unknown path {path!r} in the launcher's record"
    return path


def check(name: str, expected: str, compiled_kind: str, launched: str, remarks: Any = (),
          ran: str | None = None) -> None:
    """Program ``name``'s table entry names path ``expected``: its compile (``compiled_kind``) must have taken it, and
    its launch (``launched``, :func:`ran`) too -- or, where the test expects this launch on another path (``ran``: a
    tier program launched on arrays its tensor maps cannot address runs the SIMT path by design, with a warning), that
    path.  A tier program whose launch ran the SIMT path unexpectedly fails here (the compile's kind alone said the
    tier)."""
    said = "\n".join(remarks or ())
    assert compiled_kind == expected, f"{name}: compiled to the {compiled_kind} path, its table names {expected}\n{said}"
    if ran is None or ran == expected:
        assert launched == expected, (f"{name}: the launch ran the {launched} path, its compile and table name "
                                      f"{expected} (a launch-time fall back)\n{said}")
    else:
        assert launched == ran, (f"{name}: the launch ran the {launched} path, its table names {expected} and the test "
                                 f"expects its launch on the {ran} path\n{said}")


def checked_launch(name: str, expected: str, kernel: Any, grid: Any, args: Any, launch: Any,
                   ran: str | None = None) -> None:
    """``launch()`` (a launch of ``kernel`` on ``grid`` with ``args`` and a synchronize) between :func:`begin` and
    :func:`ran`, then :func:`check` against the compiled program the launch used (the launcher's cache entry: no
    second compile): compiled to the table's path ``expected``, launched on it (or on ``ran`` where given)."""
    from tileorch.launchers import cutile as rc

    begin()
    launch()
    launched = _ran(kernel, grid)
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent", defer_gemm=True)
    remark = entry.launch_remarks.get(rc.normalize_grid(grid), "")
    said = list(entry.program.remarks or ()) + ([remark] if remark else [])
    check(name, expected, entry.program.kind, launched, said, ran=ran)


__all__ = ["PATHS", "begin", "check", "checked_launch", "path_of", "ran"]
