"""The sweeps' GPU harness check of the path a launch ran (tileorch.testing.launch_path), on the CPU with fake launch
records: a tier program whose launch fell back to the SIMT path fails (the compiled program's kind alone, which the
harnesses checked before session 41, passed it), as does a launch that left no record of its own (the hot path, a
record of another kernel or grid); a launch that ran its table's path passes."""

from __future__ import annotations

import types

import pytest

from tileorch.launchers import cutile as rc
from tileorch.testing import launch_path


def _kernel():
    return object()


def test_a_record_of_this_launch_gives_its_path():
    k = _kernel()
    assert launch_path.path_of((k, (3, 2, 1), "chained"), k, (3, 2, 1)) == "chained"


@pytest.mark.parametrize("record, words", [
    (None, "recorded no full-path launch"),
    ("other", "another kernel"),
    ("grid", r"not \(3, 2, 1\)"),
    ("path", "unknown path"),
])
def test_a_record_not_of_this_launch_fails(record, words):
    k = _kernel()
    rec = {None: None, "other": (_kernel(), (3, 2, 1), "gemm"), "grid": (k, (3, 1, 1), "gemm"),
           "path": (k, (3, 2, 1), "tensor cores")}[record]
    with pytest.raises(AssertionError, match=words):
        launch_path.path_of(rec, k, (3, 2, 1))


def test_a_launch_time_fall_back_fails_though_the_compile_took_the_tier():
    with pytest.raises(AssertionError, match="the launch ran the simt path.*launch-time fall back"):
        launch_path.check("gemm_x", "gemm", "gemm", "simt", ["remark: the SIMT path runs the launch: A: strided"])
    with pytest.raises(AssertionError, match="compiled to the simt path, its table names chained"):
        launch_path.check("attn_x", "chained", "simt", "simt")
    launch_path.check("gemm_x", "gemm", "gemm", "gemm")
    launch_path.check("rows_x", "simt", "simt", "simt")


def _fake_launcher(monkeypatch, kind, remark=""):
    """The launcher's cache answering one compiled program of ``kind`` (and its launch remark on grid (2, 1, 1))."""
    entry = types.SimpleNamespace(program=types.SimpleNamespace(kind=kind, remarks=["remark: compiled"]),
                                  launch_remarks={(2, 1, 1): remark} if remark else {})
    monkeypatch.setattr(rc, "compiled", lambda *a, **kw: entry)
    monkeypatch.setattr(rc, "describe_arguments", lambda kernel, args: list(args))
    monkeypatch.setattr(rc, "_forget_bound_state", lambda: None)
    monkeypatch.setattr(rc, "last_full_launch", [None])


@pytest.mark.parametrize("ran, passes", [("gemm", True), ("simt", False), (None, False)])
def test_the_harness_launch_checks_the_path_the_launch_recorded(monkeypatch, ran, passes):
    """checked_launch: the launch records ``ran`` (None: nothing, as a bound launch of the hot path); a stale
    record of the same kernel and grid left by an earlier launch is cleared first, so it cannot pass for this one."""
    k = _kernel()
    _fake_launcher(monkeypatch, "gemm", "remark: the SIMT path runs the launch: B: batch stride 0" if ran == "simt"
                   else "")
    rc.last_full_launch[0] = (k, (2, 1, 1), "gemm")  # an earlier launch's record

    def launch():
        if ran is not None:
            rc.last_full_launch[0] = (k, (2, 1, 1), ran)

    if passes:
        launch_path.checked_launch("gemm_x", "gemm", k, (2,), (), launch)
    else:
        with pytest.raises(AssertionError) as info:
            launch_path.checked_launch("gemm_x", "gemm", k, (2,), (), launch)
        assert ("batch stride 0" in str(info.value)) if ran == "simt" else "recorded no" in str(info.value)


def test_the_launcher_keeps_the_record_the_harness_reads():
    """The record's home: ``tileorch.launchers.cutile.last_full_launch``, one slot, None until a full-path launch."""
    assert isinstance(rc.last_full_launch, list) and len(rc.last_full_launch) == 1


def test_a_launch_the_test_expects_on_another_path_checks_the_compile_against_the_table(monkeypatch):
    """A tier program whose launch on these arrays runs the SIMT path by design (``ran="simt"``: a B broadcast by a
    batch stride of 0): its compile must still take the table's tier path and its launch the SIMT path -- the compiled
    kind is not compared with ``ran`` (session 41's sweep 26/28/31 twins failed so, on every such launch)."""
    k = _kernel()
    _fake_launcher(monkeypatch, "gemm", "remark: the SIMT path runs the launch: B: batch stride 0")

    def launch(path):
        return lambda: rc.last_full_launch.__setitem__(0, (k, (2, 1, 1), path))

    launch_path.checked_launch("gemm_x", "gemm", k, (2,), (), launch("simt"), ran="simt")
    with pytest.raises(AssertionError, match="the launch ran the gemm path, its table names gemm and the test expects"
                                             " its launch on the simt path"):
        launch_path.checked_launch("gemm_x", "gemm", k, (2,), (), launch("gemm"), ran="simt")
    _fake_launcher(monkeypatch, "simt")
    with pytest.raises(AssertionError, match="compiled to the simt path, its table names gemm"):
        launch_path.checked_launch("gemm_x", "gemm", k, (2,), (), launch("simt"), ran="simt")
