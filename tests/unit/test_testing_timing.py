"""tileorch.testing.timing.best_batch_ms (the memory-bound benchmarks' timer, shared by
benchmarks/memory_bound.py and benchmarks/embedding_gather_probe.py) against a stand-in torch whose
CUDA events report chosen times: one warm-up call, ``batches`` batches of ``iters`` calls, the best
batch's mean per call."""

from __future__ import annotations

import sys
import types

from tileorch.testing.timing import best_batch_ms


def _fake_torch(batch_ms: list[float], log: list[str]):
    """A torch module whose events give the batches the times ``batch_ms`` (in order)."""
    times = iter(batch_ms)

    class Event:
        def __init__(self, enable_timing=False):
            assert enable_timing

        def record(self):
            log.append("record")

        def synchronize(self):
            log.append("sync")

        def elapsed_time(self, end):
            return next(times)

    cuda = types.SimpleNamespace(Event=Event, synchronize=lambda: log.append("device-sync"))
    return types.SimpleNamespace(cuda=cuda)


def test_best_batch_ms_is_the_best_batch_mean(monkeypatch):
    log: list[str] = []
    monkeypatch.setitem(sys.modules, "torch", _fake_torch([50.0, 20.0, 35.0], log))
    calls = []
    assert best_batch_ms(lambda: calls.append(1), iters=10) == 2.0  # 20 ms / 10 calls
    assert len(calls) == 1 + 3 * 10
    assert log[0] == "device-sync" and log.count("record") == 6 and log.count("sync") == 3


def test_best_batch_ms_batches(monkeypatch):
    log: list[str] = []
    monkeypatch.setitem(sys.modules, "torch", _fake_torch([9.0, 8.0, 7.0, 6.0, 12.0], log))
    calls = []
    assert best_batch_ms(lambda: calls.append(1), iters=4, batches=5) == 1.5
    assert len(calls) == 1 + 5 * 4


class _Tensor:
    """The few tensor methods time_variant's error check calls, on one float."""

    def __init__(self, v: float):
        self.v = v

    def float(self):
        return self

    def __sub__(self, other):
        return _Tensor(self.v - other.v)

    def __truediv__(self, other):
        return _Tensor(self.v / other.v)

    def norm(self):
        return _Tensor(abs(self.v))

    def item(self):
        return self.v


def test_time_variant_records_the_spills_its_launch_warned_of(monkeypatch):
    """A launch that warns of ptxas spills (the launcher's PerformanceWarning, beside another warning): the row
    names them under the variant; a launch without the warning leaves no ``_spills`` entry; every warning is
    still shown."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning
    from tileorch.testing import timing

    log: list[str] = []
    fake = _fake_torch([10.0] * 8, log)
    fake.cuda.current_stream = lambda: "stream"
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, iters: 1.5)
    spill = ("warning: ptxas spilled registers of k_simt_I64: 3768 B stores, 4168 B loads (168 registers)")

    def spilling(stream, grid, kernel, args):
        warnings.warn(f"cuTile kernel k: remark: slow; {spill}", PerformanceWarning)
        warnings.warn("unrelated", UserWarning)

    shown = []
    monkeypatch.setattr(warnings, "showwarning", lambda message, *rest: shown.append(str(message)))
    row: dict = {}
    timing.time_variant(row, "simt", spilling, None, (1, 1, 1), (), _Tensor(2.0), _Tensor(4.0), 3)
    timing.time_variant(row, "other", lambda *a: None, None, (1, 1, 1), (), _Tensor(2.0), _Tensor(4.0), 3)
    assert row["simt_spills"] == [spill[len("warning: "):]], row
    assert "other_spills" not in row and row["other_ms"] == 1.5 and row["simt_rel_err"] == 0.5, row
    assert len(shown) == 2 and "unrelated" in shown[1], shown
