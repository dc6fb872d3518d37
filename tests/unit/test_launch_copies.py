"""``tileorch.launchers.launch_copies``: the one scratch pool of the launcher's launch-time copies (the K-major copy,
a K vector's aligned copy, the packed scratch C, the chained padded copies) and how a launch's copies are
sequenced with its kernel.  No GPU: buffers are stand-ins.  (The copies' addressing is checked against numpy in
test_k_vector_tma.py, test_chained_padded_copies.py and test_launch_strided_batch.py; the streams' ordering in
test_stream_home.py.)"""

from __future__ import annotations

import pytest

from tileorch.launchers import launch_copies as lc


class _Buf:
    def __init__(self, nbytes):
        self.nbytes, self.ptr = nbytes, id(self)


@pytest.fixture(autouse=True)
def _empty_pools(monkeypatch):
    for role in lc.LIMITS:
        monkeypatch.setitem(lc._pools, role, type(lc.held(role))())


def test_one_buffer_per_role_layout_size_and_stream():
    """Launches of one layout on one stream share a buffer (stream order); another stream, another role (a K
    vector's copy and a chained copy of the same argument position and layout), another layout or size each get
    their own: two buffers one launch writes at once, or two streams' launches, never share one."""
    layout = (1, (2, 96, 150), (14400, 150, 1), "float16")
    first = lc.scratch("padded", layout, 4096, 0, _Buf)
    assert lc.scratch("padded", layout, 4096, 0, _Buf) is first
    others = [lc.scratch("padded", layout, 4096, 7, _Buf), lc.scratch("kvec", layout, 4096, 0, _Buf),
              lc.scratch("padded", (2, *layout[1:]), 4096, 0, _Buf), lc.scratch("padded", layout, 8192, 0, _Buf)]
    assert len({id(b) for b in [first, *others]}) == 5


def test_each_role_keeps_at_most_its_limit_and_forgets_alone():
    for i in range(lc.LIMITS["kvec"] + 3):
        lc.scratch("kvec", (i,), 256, 0, _Buf)
    kept = lc.scratch("c_scatter", (), 256, 0, _Buf)
    assert len(lc.held("kvec")) == lc.LIMITS["kvec"]
    assert [key[0] for key in lc.held("kvec")] == [(i,) for i in range(3, lc.LIMITS["kvec"] + 3)]  # (oldest gone)
    lc.forget("kvec")
    assert not lc.held("kvec") and lc.scratch("c_scatter", (), 256, 0, _Buf) is kept
    lc.forget()
    assert not any(lc.held(role) for role in lc.LIMITS)


def test_the_default_buffer_is_the_runtimes_device_buffer(monkeypatch):
    from tileorch.runtime import buffers

    monkeypatch.setattr(buffers, "DeviceBuffer", _Buf)  # (looked up at each allocation: tests stand it in)
    assert isinstance(lc.scratch("c_scatter", (), 512, 3), _Buf)


def test_a_sequence_enqueues_the_copies_then_the_launch_on_one_handle():
    seen = []

    def launch(h):
        seen.append(("kernel", h))

    assert lc.sequence([], launch) is launch  # (no copies: the launch itself)
    lc.sequence([lambda h: seen.append(("copy", h))], lambda h: seen.append(("kernel", h)))(5)
    lc.sequence([lambda h: seen.append(("b", h)), lambda h: seen.append(("a", h))],
                lambda h: seen.append(("kernel", h)))(6)
    assert seen == [("copy", 5), ("kernel", 5), ("b", 6), ("a", 6), ("kernel", 6)]


def test_a_padded_copy_of_rows_of_rows_is_one_copy_and_of_a_view_one_per_matrix():
    """K ``[2, 96, 150]`` f16 (rows of 300 bytes) stacked: one copy of its 192 rows into rows of 304 bytes; every
    other matrix of a larger array (batch stride 2 x 96 x 150): one copy per matrix, each to its packed place."""
    assert lc.padded_layout((2, 96, 150), 2) == (304, (96 * 152, 152, 1), 304 * 192)
    assert lc.padded_copies(0x1000, (2, 96, 150), (14400, 150, 1), 2, 0x9000) == [
        (0x1000, 300, 0x9000, 304, 300, 192)]
    assert lc.padded_copies(0x1000, (2, 96, 150), (28800, 150, 1), 2, 0x9000) == [
        (0x1000, 300, 0x9000, 304, 300, 96), (0x1000 + 28800 * 2, 300, 0x9000 + 96 * 304, 304, 300, 96)]
