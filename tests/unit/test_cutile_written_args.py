"""Outputs that cannot be written correctly are refused at ``tileorch.cutile.launch`` (issue 21):
a read-only array the kernel writes, an ``expand``-ed (stride-0) output written by plain stores,
an output sharing elements with another array without being the same view.  In-place updates
(the very same view), broadcast inputs, atomics into a shared element and column halves of one
buffer are launched.  The written set is the compiler's (``analysis/written_params.py`` over
the bytecode cuTile exports); the launch runs against the fake driver of test_cutile_launch.

cuTile 1.7's own launcher checks none of these (``cuda.tile._cext`` reads no read-only flag and
passes overlaps to its compiler as alias groups only)."""

from __future__ import annotations

import itertools
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cutile_launch import HAVE_CUTILE, Dev, needs_cutile, stand_in_gpu  # noqa: F401  (the fixture)

from tileorch.launchers import array_overlap as ao
from tileorch.launchers import cutile as rc

if HAVE_CUTILE:
    import cuda.tile as ct

    @ct.kernel
    def axpy(x, y, out, tile: ct.Constant[int]):
        i = ct.bid(0)
        a = ct.load(x, index=(i,), shape=(tile,))
        b = ct.load(y, index=(i,), shape=(tile,))
        ct.store(out, index=(i,), tile=a * 2.0 + b)

    @ct.kernel
    def col_sum(x, acc, tile: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0), 0), shape=(1, tile))
        ct.atomic_add(acc, (ct.arange(tile, dtype=ct.int32),), ct.reshape(t, (tile,)))

    @ct.kernel
    def fill_like(like, out, tile: ct.Constant[int]):
        """``like`` is passed for its extent only: never loaded."""
        n = like.shape[0]
        ct.store(out, index=(ct.bid(0),), tile=ct.full((tile,), 1.0, dtype=ct.float32) * n)

    @ct.kernel
    def copy2d(x, out, tn: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0), 0), shape=(1, tn))
        ct.store(out, index=(ct.bid(0), 0), tile=t)


# --------------------------------------------------------------------------- the geometry


def _bytes(ptr, shape, strides, itemsize):
    out = set()
    for idx in itertools.product(*(range(d) for d in shape)):
        x = ptr + itemsize * sum(i * s for i, s in zip(idx, strides))
        out.update(range(x, x + itemsize))
    return out


dims = st.lists(st.tuples(st.integers(0, 4), st.integers(-6, 9)), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(dims, dims, st.integers(0, 40), st.integers(0, 40), st.sampled_from([1, 2, 4]), st.sampled_from([1, 2, 4]))
def test_elements_overlap_is_exact(a, b, pa, pb, ia, ib):
    """Against the sets of bytes each array addresses."""
    (sa, ta), (sb, tb) = zip(*a), zip(*b)
    expected = bool(_bytes(pa, sa, ta, ia) & _bytes(pb, sb, tb, ib))
    assert ao.elements_overlap(pa, sa, ta, ia, pb, sb, tb, ib) is expected


@settings(max_examples=300, deadline=None)
@given(dims)
def test_shared_element_is_exact(a):
    shape, strides = zip(*a)
    starts = [sum(i * s for i, s in zip(idx, strides)) for idx in itertools.product(*(range(d) for d in shape))]
    assert (ao.shared_element(shape, strides) is not None) is (len(starts) != len(set(starts)))


def test_views_of_one_matrix():
    """Column halves interleave their byte ranges but share no element; a copy one row down does."""
    assert ao.elements_overlap(0, (4096, 4096), (8192, 1), 2, 8192, (4096, 4096), (8192, 1), 2) is False
    assert ao.elements_overlap(0, (4096, 8192), (8192, 1), 2, 16384, (4096, 8192), (8192, 1), 2) is True
    assert ao.shared_element((4096, 8192), (1, 4096)) is None
    assert "stride 0 on dimension 1" in ao.shared_element((3, 5), (5, 0))


# --------------------------------------------------------------------------- the written set


def _written(text: str) -> dict:
    from tileorch.analysis.written_params import module_written_parameters
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    return module_written_parameters(load(text.encode(), "w.mlir", make_context()))


def test_written_parameters_follow_addresses_not_indices():
    """A scatter through indices loaded from another array writes the base's parameter only; a pointer
    carried through a loop is traced to its source; an atomic-only output is marked as such."""
    found = _written("""cuda_tile.module @m {
  entry @k(%base: tile<ptr<f32>>, %idx: tile<ptr<i32>>, %acc: tile<ptr<f32>>) {
    %i = iota : tile<16xi32>
    %ib = reshape %idx : tile<ptr<i32>> -> tile<1xptr<i32>>
    %ibb = broadcast %ib : tile<1xptr<i32>> -> tile<16xptr<i32>>
    %ip = offset %ibb, %i : tile<16xptr<i32>>, tile<16xi32> -> tile<16xptr<i32>>
    %k, %t0 = load_ptr_tko weak %ip : tile<16xptr<i32>> -> tile<16xi32>, token
    %b1 = reshape %base : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bb = broadcast %b1 : tile<1xptr<f32>> -> tile<16xptr<f32>>
    %c0 = constant <i32: 0> : tile<i32>
    %c4 = constant <i32: 4> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %p = for %n in (%c0 to %c4, step %c1) : tile<i32> iter_values(%q = %bb) -> (tile<16xptr<f32>>) {
      %q2 = offset %q, %k : tile<16xptr<f32>>, tile<16xi32> -> tile<16xptr<f32>>
      continue %q2 : tile<16xptr<f32>>
    }
    %v = constant <f32: 1.0> : tile<16xf32>
    %t1 = store_ptr_tko weak %p, %v : tile<16xptr<f32>>, tile<16xf32> -> token
    %one = constant <f32: 1.0> : tile<f32>
    %o, %t2 = atomic_rmw_tko relaxed device %acc, addf, %one : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    return
  }
}""")
    assert set(found) == {0, 2} and found[0][0] is True and found[2][0] is False
    assert found[0][1].startswith("w.mlir:18:")  # the store_ptr_tko


# --------------------------------------------------------------------------- the launch


@pytest.fixture
def written_gpu(stand_in_gpu, monkeypatch):
    """``stand_in_gpu`` whose compiled programs carry the written set the driver records
    and the parameters they load from (``tileorch.driver._written`` / ``_read`` of the exported bytecode)."""
    import tileorch.driver as frontend
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode

    plain = frontend.compile_program

    def compile_program(data, name, *args, **kwargs):
        program = plain(data, name, *args, **kwargs)
        module = read_bytecode(data)
        program.written, program.read = frontend._written(module), frontend._read(module)
        return program

    monkeypatch.setattr(frontend, "compile_program", compile_program, raising=False)
    return stand_in_gpu


F4 = 4


@needs_cutile
def test_an_output_overlapping_an_input_is_refused_naming_both(written_gpu):
    drv = written_gpu
    x = Dev(0x10000, (1024,), "<f4")
    shifted = Dev(0x10000 + 256 * F4, (1024,), "<f4")  # out = x[256:]: program 0 writes what program 1 reads
    with pytest.raises(ValueError, match=r"argument 2 \('out'\) shares memory with argument 0 \('x'\) without "
                                         r"being the same view.*writes 'out' \(first at .*test_cutile_written_args"):
        rc.launch(0, (4,), axpy, (x, Dev(0x90000, (1024,), "<f4"), shifted, 256))
    assert not drv.launches


@needs_cutile
@pytest.mark.parametrize("kernel", ["axpy", "copy2d"])
def test_in_place_is_launched_and_re_pointed_onto_in_place_calls_only(written_gpu, kernel):
    """``out`` given as ``x`` (the same view) is an in-place update: launched, and at other addresses re-pointed
    (no argument analysis); arrays overlapping shifted at new addresses have the same byte-range overlaps but
    not one address: never re-pointed onto the in-place launch, the full path refuses them.  Three arrays
    (``cutile_bound._overlaps``) and two (the generated two-pointer range test)."""
    drv = written_gpu

    def call(x, out):
        if kernel == "axpy":
            rc.launch(0, (4,), axpy, (x, Dev(0x90000, (1024,), "<f4"), out, 256))
        else:
            rc.launch(0, (4,), copy2d, (x, out, 256))

    shape = (1024,) if kernel == "axpy" else (4, 256)
    for base in (0x100000, 0x200000, 0x300000):
        x = Dev(base, shape, "<f4")
        call(x, x)
        assert drv.launches[-1]["params"][0] == drv.launches[-1]["params"][6 if kernel == "axpy" else 5]
        assert drv.launches[-1]["params"][0] == struct.pack("<Q", base)
    assert len(drv.described) == 1 and len(drv.launches) == 3
    for base in (0x400000, 0x500000):  # x[1:]-like: 16 bytes on
        with pytest.raises(ValueError, match=r"\('out'\) shares memory with argument 0"):
            call(Dev(base, shape, "<f4"), Dev(base + 16, shape, "<f4"))
    assert len(drv.launches) == 3


@needs_cutile
def test_an_output_overlapping_an_array_passed_for_its_extents_only_is_launched(written_gpu):
    """The kernel never loads from ``like`` (its extent only): an ``out`` overlapping it shifted is launched."""
    drv = written_gpu
    rc.launch(0, (4,), fill_like, (Dev(0x10000, (1024,), "<f4"), Dev(0x10000 + 64, (1024,), "<f4"), 256))
    assert len(drv.launches) == 1


@needs_cutile
def test_an_expanded_output_is_refused_an_expanded_input_is_not(written_gpu):
    drv = written_gpu
    dense = Dev(0x10000, (1024,), "<f4")
    bcast = Dev(0x50000, (1024,), "<f4", strides=(0,))  # torch.zeros(1).expand(1024)
    with pytest.raises(ValueError, match=r"argument 2 \('out'\) has elements that share memory \(stride 0 on "
                                         r"dimension 0 of extent 1024"):
        rc.launch(0, (4,), axpy, (dense, Dev(0x20000, (1024,), "<f4"), bcast, 256))
    rc.launch(0, (4,), axpy, (bcast, Dev(0x20000, (1024,), "<f4"), Dev(0x30000, (1024,), "<f4"), 256))
    assert len(drv.launches) == 1


@needs_cutile
def test_atomics_into_shared_elements_are_launched(written_gpu):
    """Atomic adds into an expanded accumulator are well defined: launched."""
    drv = written_gpu
    rc.launch(0, (8,), col_sum, (Dev(0x10000, (8, 64), "<f4"), Dev(0x50000, (64,), "<f4", strides=(0,)), 64))
    assert len(drv.launches) == 1


@needs_cutile
def test_column_halves_of_one_buffer_are_launched(written_gpu):
    """out = buf[:, :64], x = buf[:, 64:]: byte ranges interleave, no element is shared."""
    drv = written_gpu
    row = 128 * F4
    rc.launch(0, (16,), copy2d, (Dev(0x10000 + 64 * F4, (16, 64), "<f4", strides=(row, F4)),
                                 Dev(0x10000, (16, 64), "<f4", strides=(row, F4)), 64))
    assert len(drv.launches) == 1


@needs_cutile
def test_a_shifted_overlap_after_column_halves_is_refused(written_gpu):
    """Review (session 39): the column halves' launch kept its layout for re-pointing with the two arrays' byte
    ranges overlapping, so a later call with x shifted by 32 columns (same shapes, strides, alignment; elements
    shared with out) was re-pointed onto it unchecked.  A layout whose arrays overlap other than at one address is
    not kept: the shifted call takes the full path and is refused."""
    drv = written_gpu
    row = 128 * F4
    out = Dev(0x10000, (16, 64), "<f4", strides=(row, F4))
    rc.launch(0, (16,), copy2d, (Dev(0x10000 + 64 * F4, (16, 64), "<f4", strides=(row, F4)), out, 64))
    rc.launch(0, (16,), copy2d, (Dev(0x10000 + 64 * F4, (16, 64), "<f4", strides=(row, F4)), out, 64))
    assert len(drv.launches) == 2
    with pytest.raises(ValueError, match="shares memory"):
        rc.launch(0, (16,), copy2d, (Dev(0x10000 + 32 * F4, (16, 64), "<f4", strides=(row, F4)), out, 64))
    assert len(drv.launches) == 2


class ReadOnly(Dev):
    def __init__(self, ptr, shape, typestr="<f4", strides=None):
        super().__init__(ptr, shape, typestr, strides)
        self.__cuda_array_interface__["data"] = (ptr, True)


@needs_cutile
def test_a_read_only_output_is_refused_on_every_route(written_gpu):
    """Refused at the first call, and after a writable array of the same facts was launched and bound
    (the key marks a read-only array, so no bound launch answers for it); a read-only input is launched."""
    drv = written_gpu
    x, y = Dev(0x10000, (1024,), "<f4"), Dev(0x20000, (1024,), "<f4")
    rc.launch(0, (4,), axpy, (ReadOnly(0x40000, (1024,)), y, Dev(0x30000, (1024,), "<f4"), 256))
    for _ in range(2):
        rc.launch(0, (4,), axpy, (x, y, Dev(0x30000, (1024,), "<f4"), 256))  # bound, then hot
    launched = len(drv.launches)
    for out in (ReadOnly(0x30000, (1024,)), ReadOnly(0x70000, (1024,))):  # the bound address, another one
        with pytest.raises(ValueError, match=r"argument 2 \('out'\) is read-only \(its __cuda_array_interface__ "
                                             r"'data' says read-only\) and kernel 'axpy' writes it"):
            rc.launch(0, (4,), axpy, (x, y, out, 256))
    assert len(drv.launches) == launched == 3


@needs_cutile
def test_a_writable_alias_of_read_only_memory_is_refused(written_gpu):
    """``out`` writable but the same memory as ``x``, which its producer flags read-only: refused, naming x."""
    drv = written_gpu
    with pytest.raises(ValueError, match=r"argument 0 \('x'\) is read-only .* shares memory with argument 2 "
                                         r"\('out'\), which kernel 'axpy' writes"):
        rc.launch(0, (4,), axpy, (ReadOnly(0x40000, (1024,)), Dev(0x20000, (1024,), "<f4"),
                                  Dev(0x40000, (1024,), "<f4"), 256))
    assert not drv.launches


@needs_cutile
def test_a_read_only_dlpack_array_is_flagged(monkeypatch):
    """A DLPack 1.0 producer's read-only flag (numpy's, host memory standing in for device memory)."""
    import tileorch.runtime.buffers as buffers

    monkeypatch.setattr(buffers, "_KDL_CUDA", 1)
    host = np.zeros(1024, np.float32)
    frozen = host.copy()
    frozen.flags.writeable = False
    args = rc.describe_arguments(axpy, (host, host, frozen, 256))
    assert args[0].read_only == "" and args[2].read_only == "its DLPack capsule is flagged read-only"
    written = [[i, 1, ""] for i, (pos, role) in enumerate(rc.flat_parameters(args)) if pos == 2 and role == "ptr"]
    with pytest.raises(ValueError, match=r"argument 2 \('out'\) is read-only \(its DLPack capsule"):
        rc.check_written_arguments(axpy, args, written)


def test_the_written_set_survives_the_disk_cache(tmp_path, monkeypatch):
    """A relaunch in a new process reads the program record from the disk cache: its written set too (a
    record without one reads as unknown)."""
    from types import SimpleNamespace

    from tileorch.launchers import cutile_programs as cp

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEORCH_CACHE", "1")
    for written, read in (([[6, 1, "k.py:12:8"], [9, 0, "k.py:14:8"]], [0, 3]), (None, None)):
        prog = SimpleNamespace(kind="simt", ptx="// ptx", cubin=None, kernel="k", threads=128, gemm_config=None,
                               gemm_args=None, seconds=0.1, written=written, read=read)
        cp._write_cached(f"written-{bool(written)}", prog)
        back = cp._read_cached(f"written-{bool(written)}")
        assert back is not None and back.written == written and back.read == read


def test_a_pointer_read_from_a_table_names_the_table_not_the_row_index():
    """A store through ``int_to_ptr`` of a word loaded from a table (cuTile's list arguments) writes the
    table's parameter; the index array that picked the row is read only."""
    found = _written("""cuda_tile.module @m {
  entry @k(%table: tile<ptr<i64>>, %rows: tile<ptr<i32>>) {
    %r1 = reshape %rows : tile<ptr<i32>> -> tile<1xptr<i32>>
    %row, %t0 = load_ptr_tko weak %r1 : tile<1xptr<i32>> -> tile<1xi32>, token
    %t1 = reshape %table : tile<ptr<i64>> -> tile<1xptr<i64>>
    %at = offset %t1, %row : tile<1xptr<i64>>, tile<1xi32> -> tile<1xptr<i64>>
    %word, %t2 = load_ptr_tko weak %at : tile<1xptr<i64>> -> tile<1xi64>, token
    %w0 = reshape %word : tile<1xi64> -> tile<i64>
    %p = int_to_ptr %w0 : tile<i64> -> tile<ptr<f32>>
    %v = constant <f32: 1.0> : tile<f32>
    %t3 = store_ptr_tko weak %p, %v : tile<ptr<f32>>, tile<f32> -> token
    return
  }
}""")
    assert set(found) == {0} and found[0][0] is True
