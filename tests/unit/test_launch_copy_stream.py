"""The launch-time K-major copy runs on torch's own object for the launch's stream
(``launchers.cutile.torch_stream_for``): the current stream or the default stream when the handle
is theirs, an ``ExternalStream`` only for a foreign handle.  ``ExternalStream(0)`` let the copy run
unordered with the default stream's work (wrong or NaN GEMM columns under load on the H200:
benchmarks/stress_launch_copies.py; the GPU test is tests/gpu/test_launch_copy_ordering_gpu.py)."""

from types import SimpleNamespace

from tileorch.launchers.cutile import torch_stream_for


class _Stream:
    def __init__(self, handle, label):
        self.cuda_stream, self.label = handle, label


def _fake_torch(current, default):
    made = []

    def external(handle, device=None):
        made.append((handle, device))
        return _Stream(handle, "external")

    cuda = SimpleNamespace(current_stream=lambda device=None: current, default_stream=lambda device=None: default,
                           ExternalStream=external)
    return SimpleNamespace(cuda=cuda), made


def test_the_current_streams_handle_gives_the_current_stream():
    torch, made = _fake_torch(_Stream(0x5000, "current"), _Stream(0, "default"))
    assert torch_stream_for(torch, 0x5000, "cuda:0").label == "current"
    assert made == []


def test_handle_zero_gives_the_default_stream_not_an_external_one():
    torch, made = _fake_torch(_Stream(0x5000, "current"), _Stream(0, "default"))
    assert torch_stream_for(torch, 0, "cuda:0").label == "default"
    assert made == []


def test_handle_zero_while_the_default_stream_is_current():
    torch, made = _fake_torch(_Stream(0, "current"), _Stream(0, "default"))
    assert torch_stream_for(torch, 0, "cuda:0").label == "current"
    assert made == []


def test_a_foreign_handle_is_wrapped():
    torch, made = _fake_torch(_Stream(0, "current"), _Stream(0, "default"))
    s = torch_stream_for(torch, 0x7000, "cuda:1")
    assert (s.label, s.cuda_stream) == ("external", 0x7000)
    assert made == [(0x7000, "cuda:1")]
