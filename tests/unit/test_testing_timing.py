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
