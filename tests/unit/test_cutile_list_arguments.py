"""List-of-arrays parameters (``As[g]`` in a kernel taking a Python list of arrays; cuTile's grouped
GEMM): found by the fifth user sweep, where ``tileorch.cutile.launch`` refused every list and
``convert-cudatile-to-tileaa`` refused ``cuda_tile.int_to_ptr`` (the list item's data pointer).

* the launcher describes a list as :class:`tileorch.launchers.cutile.ListArg` (one dtype and rank,
  cuTile's ``ListConstraint``), passes a device table of ``[ptr, shape..., strides...]`` i64 rows
  and the length (two entry parameters), and refuses what cuTile refuses (mixed dtypes / ranks, an
  empty list, non-arrays) with the argument named;
* the program compiles on the SIMT path (the tier refuses a computed base pointer, located) and
  runs on the CPU interpreter against numpy with a table built here by hand (cuTile's layout).
The GPU runs are in tests/gpu/test_user_sweep5_gpu.py."""

from __future__ import annotations

import struct

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402

from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.export import FakeDeviceArray  # noqa: E402
from tileorch.testing.user_programs5 import PROGRAMS, list_sums  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)
RNG = np.random.default_rng(5132)


def _fake(i, shape):
    return FakeDeviceArray(0x7F0000000000 + i * 0x1000000, shape)


def test_a_list_of_arrays_is_described_as_one_list_argument():
    args = ([_fake(1, (100,)), _fake(2, (37,))], _fake(3, (3,)), 64)
    d = rc.describe_arguments(list_sums, args)
    assert isinstance(d[0], rc.ListArg) and [a.shape for a in d[0].items] == [(100,), (37,)]
    assert rc.flat_parameters(d)[:2] == [(0, "list_table"), (0, "list_length")]
    words = struct.unpack("<6q", d[0].table())
    assert words == (0x7F0001000000, 100, 1, 0x7F0002000000, 37, 1)  # [ptr, shape, stride] per row
    packed = rc.pack_simt_arguments([rc.ListArg(0, "Xs", d[0].items, table_ptr=0x1234)])
    assert packed == [struct.pack("<Q", 0x1234), struct.pack("<i", 2)]
    with pytest.raises(RuntimeError, match="no device table"):
        rc.pack_simt_arguments(d)


def test_the_list_element_signature_and_its_key():
    one = rc.describe_arguments(list_sums, ([_fake(1, (100,))], _fake(3, (3,)), 64))[0]
    two = rc.describe_arguments(list_sums, ([_fake(1, (100,)), _fake(2, (37,))], _fake(3, (3,)), 64))[0]
    assert one.key() == two.key()  # the length is a run-time value, not part of the signature
    from cuda.tile import compilation

    c = rc._constraint(two, *rc._require_cutile())
    assert isinstance(c, compilation.ListConstraint) and not c.elements_may_alias
    overlapping = rc.describe_arguments(list_sums, ([_fake(1, (100,)), _fake(1, (37,))], _fake(3, (3,)), 64))[0]
    assert overlapping.elements_may_alias and overlapping.key() != two.key()


@pytest.mark.parametrize("value,match", [
    ([], "empty list"),
    ([_fake(1, (100,)), _fake(2, (4, 4))], "share one dtype and rank"),
    ([_fake(1, (100,)), 3], "item 1 is a int"),
])
def test_bad_lists_are_refused_naming_the_argument(value, match):
    with pytest.raises(TypeError, match=match) as info:
        rc.describe_arguments(list_sums, (value, _fake(3, (3,)), 64))
    assert "argument 0 ('Xs')" in str(info.value)


def test_a_tuple_argument_is_still_refused():
    with pytest.raises(TypeError, match="tuple parameters"):
        rc.describe_arguments(list_sums, ((_fake(1, (100,)),), _fake(3, (3,)), 64))


def _run_with_lists(name, lists: dict, arrays: dict):
    """Run program ``name`` on the interpreter: ``lists`` (position -> list of numpy arrays), the
    other arrays from ``arrays`` or NaN-filled; the list tables built here (i64 rows of
    [ptr, shape..., strides...]).  Returns (lists, arrays) after the run."""
    from simt_interp import Interpreter, Memory

    p = PROGRAMS[name]
    fn, threads, smem = sweep._kernel(name)
    mem, flat, placed = Memory(), [], []
    for i, s in enumerate(p.spec):
        if isinstance(s, list):
            rows = []
            for j, x in enumerate(lists[i]):
                x = np.ascontiguousarray(x)
                base = mem.place(x)
                placed.append((i, j, base, x))
                rows += [base, *x.shape, *[st // x.itemsize for st in x.strides]]
            flat += [mem.place(np.array(rows, np.int64)), len(lists[i])]
        elif isinstance(s, tuple):
            x = np.ascontiguousarray(arrays[i] if i in arrays else np.full(s[0], np.nan, sweep.NP[s[1]]))
            base = mem.place(x)
            placed.append((i, None, base, x))
            flat += [base, *x.shape, *[st // x.itemsize for st in x.strides]]
        elif not isinstance(s, (bool, int, float)) or i in arrays:
            flat.append(arrays.get(i, s))
    # constants take no parameter (every scalar of these programs is a ct.Constant)
    Interpreter(fn, mem, threads, smem).run(flat, p.grid + (1,) * (3 - len(p.grid)))
    out_lists, out = {}, {}
    for i, j, base, x in placed:
        raw, off = mem.find(base, x.nbytes)
        got = np.frombuffer(raw[off:off + x.nbytes].tobytes(), x.dtype).reshape(x.shape)
        if j is None:
            out[i] = got
        else:
            out_lists.setdefault(i, []).append(got)
    return out_lists, out


def test_list_sums_on_the_interpreter():
    xs = [RNG.standard_normal(n).astype(np.float32) for n in (100, 37, 256)]
    _, out = _run_with_lists("list_sums", {0: xs}, {})
    ref = [x.astype(np.float64).sum() for x in xs]
    np.testing.assert_allclose(out[1], [*ref, sum(ref)], rtol=1e-5, atol=1e-5)


def test_grouped_gemm_over_lists_on_the_interpreter():
    """Three groups of different M, N, K (K = 64, 96, 128: a ragged K tile in none, 64 x 64 tiles
    over 128 x 128, 64 x 64 and 192 x 64 outputs): 4 + 1 + 3 = 8 tiles in the table."""
    shapes = [(128, 64, 128), (64, 96, 64), (192, 128, 64)]
    a = [RNG.standard_normal((m, k)).astype(np.float16) for m, k, n in shapes]
    b = [RNG.standard_normal((k, n)).astype(np.float16) for m, k, n in shapes]
    c = [np.full((m, n), np.nan, np.float32) for m, k, n in shapes]
    tiles = np.array([(g, i, j) for g, (m, k, n) in enumerate(shapes) for i in range(m // 64) for j in range(n // 64)],
                     np.int32)
    assert tiles.shape == (8, 3)
    lists, _ = _run_with_lists("mm_grouped_lists", {0: a, 1: b, 2: c}, {3: tiles})
    for g in range(3):
        ref = a[g].astype(np.float64) @ b[g].astype(np.float64)
        np.testing.assert_allclose(lists[2][g], ref, rtol=1e-3, atol=2e-3)


def test_list_tables_are_uploaded_once_per_content(monkeypatch):
    """upload_list_tables (the GPU's part faked): the table's bytes go to a device buffer whose address
    becomes the list's parameter; equal tables share one buffer, which stays referenced."""
    from tileorch.runtime import buffers

    uploads = []

    class FakeBuffer:
        def __init__(self, data):
            self.data = bytes(data)
            self.ptr = 0x5000 + 0x100 * len(uploads)
            uploads.append(self)

        @classmethod
        def from_array(cls, host):
            return cls(host.tobytes())

    monkeypatch.setattr(buffers, "DeviceBuffer", FakeBuffer)
    monkeypatch.setattr(rc, "_list_tables", type(rc._list_tables)())
    d = rc.describe_arguments(list_sums, ([_fake(1, (100,)), _fake(2, (37,))], _fake(3, (3,)), 64))
    up = rc.upload_list_tables(d)
    assert up[0].table_ptr == 0x5000 and uploads[0].data == d[0].table() and up[1] is d[1]
    assert rc.pack_simt_arguments(up)[:2] == [struct.pack("<Q", 0x5000), struct.pack("<i", 2)]
    again = rc.upload_list_tables(rc.describe_arguments(list_sums, ([_fake(1, (100,)), _fake(2, (37,))],
                                                                   _fake(4, (3,)), 64)))
    assert again[0].table_ptr == 0x5000 and len(uploads) == 1  # the same table: no second upload
    other = rc.upload_list_tables(rc.describe_arguments(list_sums, ([_fake(2, (37,))], _fake(3, (3,)), 64)))
    assert other[0].table_ptr == 0x5100 and len(rc._list_tables) == 2
    assert rc.upload_list_tables(d[1:]) == d[1:]  # no list: the arguments as they are
