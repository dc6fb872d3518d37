"""The key under which ``tileorch.cutile.launch`` keeps a launch bound
(:func:`tileorch.launchers.cutile_bound.call_key`): every fact the full launch path derives the
kernel variant, the grid and the parameter bytes from must tell two calls apart (dtype, rank,
shape, strides, pointer, device, scalar type and value, grid, kernel, options); equal facts from
other objects give the same key; arguments the key cannot read give none.  No GPU, no cuTile."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tileorch.launchers import cutile_bound as cb


class FakeTensor:
    """What the key reads of a torch tensor."""

    def __init__(self, dtype="torch.float16", shape=(4, 6), strides=(6, 1), ptr=0x7000, device="cuda:0"):
        self.dtype, self.shape, self._strides, self._ptr, self.device = dtype, shape, strides, ptr, device

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr


class SubTensor(FakeTensor):
    """A tensor subclass (torch.nn.Parameter, say)."""


class Dev:
    def __init__(self, ptr=0x9000, shape=(8,), typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape, "typestr": typestr,
                                         "strides": strides, "version": 3}


@pytest.fixture(autouse=True)
def fake_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(Tensor=FakeTensor, __name__="torch"))
    monkeypatch.setattr(cb, "_tensor", None)
    cb.clear()
    yield
    cb.clear()


KERNEL = object()


def key(*args, grid=(4,), kernel=KERNEL, arch="sm_90a", schedule="auto", tiles="auto"):
    return cb.call_key(kernel, grid, args, arch, schedule, tiles)



def call(t=None, d=None, alpha=2.0, n=16, **options):
    return key(FakeTensor(**(t or {})), Dev(**(d or {})), alpha, n, **options)


@pytest.mark.parametrize("change", [
    dict(t=dict(dtype="torch.bfloat16")),  # dtype
    dict(d=dict(typestr="<f2")),
    dict(t=dict(shape=(4, 6, 1), strides=(6, 1, 1))),  # rank
    dict(d=dict(shape=(8, 1))),
    dict(t=dict(shape=(4, 7), strides=(7, 1))),  # shape (and the grid/config it selects)
    dict(d=dict(shape=(9,))),
    dict(t=dict(strides=(1, 4))),  # strides class: column-major, the same extents
    dict(t=dict(strides=(12, 2))),
    dict(d=dict(strides=(8,))),
    dict(d=dict(strides=(-4,))),
    dict(t=dict(ptr=0x7002)),  # pointer (alignment, aliasing, the parameter bytes)
    dict(d=dict(ptr=0x9004)),
    dict(t=dict(device="cuda:1")),  # device
    dict(t=dict(device="cpu")),
    dict(alpha=3.0), dict(alpha=2), dict(n=17), dict(n=16.0), dict(n=True),  # scalar value and type
    dict(grid=(8,)), dict(grid=(4, 2)), dict(kernel=object()),
    dict(arch="sm_100a"), dict(schedule="streamk"), dict(tiles="program"),
])
def test_every_fact_of_the_call_is_in_the_key(change):
    assert call() == call() is not None
    assert call(**change) != call()


def test_a_float_zero_keeps_its_sign():
    """``0.0 == -0.0`` (and their hashes agree) but a kernel sees other parameter bytes."""
    assert key(0.0) != key(-0.0) and key(0.0) == key(0.0) and key(1.5) == key(1.5)
    assert key(1) != key(True) and key(0) != key(False) and key(1) != key(1.0)


def test_positions_and_kinds_are_not_confused():
    t = FakeTensor()
    assert key(t, 1) != key(1, t)
    assert key(SubTensor()) != key(FakeTensor())  # the class is part of a tensor's key
    assert key(Dev(), 1) != key(1, Dev()) and key(2, 1) != key(1, 2)
    assert key(t) != key(t, 1) and key() != key(1)


def test_a_tensor_subclass_is_read_as_a_tensor():
    """torch's ``__cuda_array_interface__`` raises RuntimeError for a tensor that requires grad
    (an ``nn.Parameter``): a subclass is read through the tensor's accessors, never through it."""

    class Parameter(FakeTensor):
        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad")

    assert key(Parameter()) == key(Parameter()) != key(FakeTensor())
    assert key(Parameter(ptr=0x7100)) != key(Parameter())


def test_equal_facts_from_other_objects_give_the_same_key():
    """The key is a function of the facts, not of the objects: a new tensor at the same address
    (the allocator reusing memory) launches with the same bytes."""
    first = key(FakeTensor(), Dev(), 2.0, 16)  # reads the tensor through the subclass-aware path
    assert cb._tensor is FakeTensor
    assert key(FakeTensor(), Dev(), 2.0, 16) == first  # ... and now through the exact-type one
    assert key(SubTensor(), 1) == key(SubTensor(), 1)


@pytest.mark.parametrize("args", [
    ([1, 2],), (np.float32(1.0),), (object(),), (SimpleNamespace(__dlpack__=lambda: None),),
    (SimpleNamespace(__cuda_array_interface__={"shape": (3,)}),),
])
def test_arguments_the_key_cannot_read_give_no_key(args):
    assert key(*args) is None


def test_grid_and_argument_containers_the_key_takes():
    assert cb.call_key(KERNEL, (4,), [1, 2], "sm_90a", "auto", "auto") is None  # args must be a tuple
    assert cb.call_key(KERNEL, [4], (1,), "sm_90a", "auto", "auto") is None  # as the full path needs it
    assert key(1, grid=4) is not None and key(1, grid=4) != key(1, grid=(4,))
    # equal to ints and hashed alike, but refused by the full path: no key, so never a bound launch's
    for grid in ((True,), (4, False), (np.int64(4),), (4, np.int32(1)), True, np.int64(4), (4.0,)):
        assert key(1, grid=grid) is None, grid


def test_a_hot_launcher_never_launches_a_grid_of_bools_or_numpy_integers():
    calls = _hot_calls()
    cb.learn(KERNEL, calls[0]["args"])
    hot = cb.hot_launchers[KERNEL]
    ran = []
    for grid in ((1,), (1, 1)):
        cb.keep(cb.call_key(**(calls[0] | dict(grid=grid))), ran.append)
        assert hot(5, **options(calls[0] | dict(grid=grid))) is True  # now the last call
        for bad in ((True,), (np.int64(1),), (1, True), (np.int8(1), 1)):
            assert hot(6, **options(calls[0] | dict(grid=bad))) is None
    assert ran == [5, 5]


def test_bound_launches_are_kept_by_key_and_the_oldest_goes_first(monkeypatch):
    monkeypatch.setattr(cb, "BOUND_MAX", 2)
    ran = []
    for i in range(3):
        cb.keep(key(i), lambda stream, i=i: ran.append((i, stream)))
    assert key(0) not in cb.bound_launches and len(cb.bound_launches) == 2
    cb.bound_launches[key(2)](7)
    assert ran == [(2, 7)]
    unhashable = key(FakeTensor(device=["cuda", 0]))
    assert unhashable is not None
    cb.keep(unhashable, print)  # not kept (the launcher's lookup of such a key takes the full path)
    assert len(cb.bound_launches) == 2


# --------------------------------------------------------------------------- learnt key readers

_CHANGES = [dict(), dict(t=dict(dtype="torch.bfloat16")), dict(t=dict(shape=(4, 7), strides=(7, 1))),
            dict(t=dict(strides=(1, 4))), dict(t=dict(ptr=0x7002)), dict(t=dict(device="cuda:1")),
            dict(t=dict(device="cpu")), dict(alpha=3.0), dict(alpha=0.0), dict(alpha=-0.0), dict(alpha=2),
            dict(n=17), dict(n=True), dict(n=16.0), dict(grid=(8,)), dict(grid=4), dict(grid=[4]),
            dict(kernel=object()), dict(arch="sm_100a"), dict(schedule="streamk"), dict(tiles="program")]


def plain_call(t=None, alpha=2.0, n=16, u=None, grid=(4,), kernel=KERNEL, **options):
    """The arguments of a call of torch tensors and Python scalars, and its options."""
    args = (FakeTensor(**(t or {})), alpha, n, SubTensor(**(u or {})))
    return dict(kernel=kernel, grid=grid, args=args, arch="sm_90a", schedule="auto", tiles="auto") | options


@pytest.mark.parametrize("change", _CHANGES)
def test_a_learnt_reader_gives_call_keys_of_its_pattern(change):
    """The reader generated for the classes of a call's arguments computes the same key as
    :func:`call_key` for calls of that pattern, whatever fact changed (or the same None)."""
    cb.learn(KERNEL, plain_call()["args"])
    read = cb.reader(KERNEL)
    assert read is not cb.call_key
    for call in (plain_call(), plain_call(**change), plain_call(u=dict(ptr=0x7100), **change)):
        assert read(**call) == cb.call_key(**call)
    assert (read(**plain_call(**change)) == read(**plain_call())) == (change == {})


@pytest.mark.parametrize("args", [
    (), (FakeTensor(),), (1, FakeTensor()), (FakeTensor(), 2.0, 16), (FakeTensor(), 2.0, 16, SubTensor(), 1),
    (FakeTensor(), 2, 16, SubTensor()), (FakeTensor(), 2.0, 16, FakeTensor()), (Dev(), 2.0, 16, SubTensor()),
    (FakeTensor(), 2.0, np.int32(16), SubTensor()), (FakeTensor(), 2.0, [16], SubTensor()),
])
def test_a_learnt_reader_hands_other_patterns_to_call_key(args):
    """Another number or other classes of arguments, or a list of arguments, give exactly what
    :func:`call_key` gives (a key, or None for arguments it cannot read)."""
    cb.learn(KERNEL, plain_call()["args"])
    read = cb.reader(KERNEL)
    for container in (args, list(args)):
        call = plain_call() | dict(args=container)
        assert read(**call) == cb.call_key(**call)


@pytest.mark.parametrize("change", [dict(), dict(ptr=0x9004), dict(shape=(9,)), dict(typestr="<f2"),
                                    dict(strides=(8,)), dict(strides=(-4,))])
def test_a_learnt_reader_reads_array_interfaces_as_call_key_does(change):
    cb.learn(KERNEL, (Dev(), 2.0, 16))
    read = cb.reader(KERNEL)
    assert read is not cb.call_key
    for args in [(Dev(**change), 2.0, 16), (Dev(), 2.0, 16), (SimpleNamespace(__cuda_array_interface__={}), 2.0, 16),
                 (FakeTensor(), 2.0, 16), (Dev(**change), 2.0, np.int64(16))]:
        call = plain_call() | dict(args=args)
        assert read(**call) == cb.call_key(**call)
    bad = plain_call() | dict(args=(Dev(), 2.0, 16))
    bad["args"][0].__cuda_array_interface__ = {"shape": (3,)}  # no data pointer: no key
    assert read(**bad) is None is cb.call_key(**bad)


def test_readers_are_learnt_per_kernel_for_tensors_and_python_scalars():
    other = object()
    assert cb.reader(KERNEL) is cb.call_key and cb.reader(other) is cb.call_key
    cb.learn(KERNEL, (np.float64(1.0), 1.0))  # a float subclass (numpy's float64): call_key keeps it
    cb.learn(KERNEL, [FakeTensor(), 1.0])  # not a tuple
    assert cb.reader(KERNEL) is cb.call_key
    cb.learn(KERNEL, (FakeTensor(), 1.0))
    cb.learn(other, (FakeTensor(), 2.5))
    assert cb.reader(KERNEL) is cb.reader(other) is not cb.call_key  # one reader per pattern
    cb.learn(other, (True, FakeTensor()))
    assert cb.reader(other) is not cb.reader(KERNEL)
    cb.learn([], (1,))  # an unhashable kernel: nothing is learnt (its calls take the full path)
    with pytest.raises(TypeError):
        cb.reader([])
    cb.clear()
    assert cb.reader(KERNEL) is cb.call_key


def test_a_float_zero_keeps_its_sign_in_a_learnt_reader():
    cb.learn(KERNEL, (1.0,))
    read = cb.reader(KERNEL)
    assert read(KERNEL, (4,), (0.0,), "sm_90a", "auto", "auto") != read(KERNEL, (4,), (-0.0,), "sm_90a", "auto", "auto")
    assert read(KERNEL, (4,), (1,), "sm_90a", "auto", "auto") != read(KERNEL, (4,), (1.0,), "sm_90a", "auto", "auto")


# --------------------------------------------------------------------------- re-pointed launches


def test_the_layout_of_a_key_is_the_key_with_alignments_for_pointers():
    layout, pointers = cb.layout_of(call(t=dict(ptr=0x7000), d=dict(ptr=0x9008)))
    assert pointers == (0x7000, 0x9008)
    assert layout == cb.layout_of(call(t=dict(ptr=0x17000), d=dict(ptr=0x19008)))[0]  # other addresses
    assert layout == cb.layout_of(call(t=dict(ptr=0), d=dict(ptr=0x8)))[0]  # a null pointer: 16-byte aligned
    for change in (dict(t=dict(ptr=0x7008)), dict(d=dict(ptr=0x9004)), dict(t=dict(shape=(4, 7), strides=(7, 1))),
                   dict(t=dict(dtype="torch.bfloat16")), dict(d=dict(typestr="<f2")), dict(t=dict(device="cuda:1")),
                   dict(alpha=3.0), dict(alpha=-0.0), dict(n=17), dict(grid=(8,)), dict(schedule="streamk")):
        base = dict(t=dict(ptr=0x7000), d=dict(ptr=0x9008))
        changed = base | change | {side: base[side] | change[side] for side in ("t", "d") if side in change}
        assert cb.layout_of(call(**changed))[0] != layout, change
    assert cb.layout_of(key(2.0, 16, True)) is None  # no arrays: nothing to re-point


def bind(k, extents=((0, 48), (0, 32))):
    """keep ``k``'s launch and let its layout be re-pointed; returns the re-pointings asked for."""
    asked = []
    cb.keep(k, lambda stream: None)
    cb.keep_layout(k, lambda pointers: asked.append(pointers) or (lambda stream: ("launch", pointers, stream)),
                   extents)
    return asked


def test_a_call_differing_in_addresses_only_re_points_the_bound_launch():
    asked = bind(call(t=dict(ptr=0x7000), d=dict(ptr=0x9000)))
    moved = call(t=dict(ptr=0x27000), d=dict(ptr=0x39000))
    again = cb.rebound(moved)
    assert asked == [(0x27000, 0x39000)] and again(5) == ("launch", (0x27000, 0x39000), 5)
    assert cb.bound_launches[moved] is again  # the next equal call is a plain hit
    assert cb.rebound(call(t=dict(ptr=0x27008), d=dict(ptr=0x39000))) is None  # another alignment
    assert cb.rebound(call(t=dict(ptr=0x27000), d=dict(ptr=0x39000), alpha=5.0)) is None  # another value
    assert cb.rebound(key(2.0, 16)) is None and len(asked) == 1


def test_arrays_that_come_to_overlap_or_part_are_not_re_pointed():
    """Overlapping arrays share an alias group in the kernel's signature: a call whose arrays
    overlap where the bound one's did not (or the reverse) needs another kernel variant."""
    bind(call(t=dict(ptr=0x7000), d=dict(ptr=0x9000)), extents=((0, 48), (0, 32)))
    assert cb.rebound(call(t=dict(ptr=0x20000), d=dict(ptr=0x20010))) is None  # [0x20000, +48) meets [0x20010, +32)
    assert cb.rebound(call(t=dict(ptr=0x20000), d=dict(ptr=0x20030))) is not None  # adjacent, apart
    cb.clear()
    bind(call(t=dict(ptr=0x7000), d=dict(ptr=0x7000)), extents=((0, 48), (0, 32)))  # bound in place
    assert cb.rebound(call(t=dict(ptr=0x20000), d=dict(ptr=0x30000))) is None
    assert cb.rebound(call(t=dict(ptr=0x20000), d=dict(ptr=0x20000))) is not None
    cb.clear()
    assert cb.rebound(call(t=dict(ptr=0x20000), d=dict(ptr=0x20000))) is None


@pytest.mark.parametrize("cai", [
    {"data": (), "shape": (8,), "typestr": "<f4"},  # no pointer in data: IndexError
    {"data": (0x9000, False), "shape": None, "typestr": "<f4"},  # shape not iterable: TypeError
    {"data": (0x9000, False), "shape": (8,)},  # no typestr: KeyError
    {"data": (0x9000, False), "shape": (8,), "typestr": "<f4", "strides": 4},  # strides not iterable
    [("data", (0x9000, False))],  # no dict
])
def test_a_learnt_reader_of_two_arrays_gives_no_key_for_a_malformed_interface(cai):
    """The generated reader reads every array's interface inline: one malformed interface,
    first or second, gives None as call_key does, and the well-formed calls still their key."""
    cb.learn(KERNEL, (Dev(), Dev(ptr=0xA000), 2.0))
    read = cb.reader(KERNEL)
    for args in ((Dev(), Dev(ptr=0xA000), 2.0), (Dev(ptr=0x9100), Dev(ptr=0xA100, shape=(3,)), 1.0)):
        call = plain_call() | dict(args=args)
        assert read(**call) == cb.call_key(**call) is not None
    for position in (0, 1):
        args = [Dev(), Dev(ptr=0xA000), 2.0]
        args[position].__cuda_array_interface__ = cai
        call = plain_call() | dict(args=tuple(args))
        assert read(**call) is None is cb.call_key(**call)


def test_readers_are_kept_per_torch_tensor_class(monkeypatch):
    """A class read through its array interface while torch's Tensor was another class is read
    as a tensor once it is torch's Tensor (the generated readers are kept per tensor class)."""
    cb.learn(KERNEL, (Dev(), 2.0))
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(Tensor=Dev, __name__="torch"))
    cb.learn(KERNEL, (Dev(), 2.0))
    call = plain_call() | dict(args=(Dev(), 2.0))
    call["args"][0].data_ptr = lambda: 0x9000
    call["args"][0].shape, call["args"][0].dtype, call["args"][0].device = (8,), "torch.float32", "cuda:0"
    call["args"][0].stride = lambda: (1,)
    assert cb.reader(KERNEL)(**call) == cb.call_key(**call) == (KERNEL, (4,), "sm_90a", "auto", "auto", Dev,
                                                                   0x9000, (8,), (1,), "torch.float32", "cuda:0",
                                                                   float, 2.0)


# --------------------------------------------------------------------------- hot launchers


def options(call):
    """A call's arguments as the hot launcher takes them (its kernel is the launcher's own)."""
    return {k: v for k, v in call.items() if k != "kernel"}


def _hot_calls():
    """Calls of one pattern (a tensor, an array interface, a float, an int, a tensor subclass),
    each differing from the first in one fact, and calls of other shapes."""
    def args(t=None, d=None, alpha=2.0, n=16, u=None):
        return (FakeTensor(**(t or {})), Dev(**(d or {})), alpha, n, SubTensor(**(u or {"ptr": 0xB000})))

    base = dict(kernel=KERNEL, grid=(4,), args=args(), arch="sm_90a", schedule="auto", tiles="auto")
    calls = [base]
    for change in (dict(t=dict(ptr=0x7100)), dict(t=dict(dtype="torch.bfloat16")), dict(t=dict(strides=(1, 4))),
                   dict(d=dict(ptr=0x9004)), dict(d=dict(strides=(-4,))), dict(d=dict(typestr="<f2")),
                   dict(alpha=-0.0), dict(alpha=0.0), dict(n=17), dict(u=dict(ptr=0xB100)), dict(t=dict(device="cpu"))):
        calls.append(base | dict(args=args(**change)))
    calls += [base | dict(grid=(8,)), base | dict(grid=4), base | dict(schedule="streamk"),
              base | dict(tiles="program"),
              base | dict(args=args()[:4]), base | dict(args=list(args())), base | dict(args=(1.0, *args()[1:]))]
    return calls


def test_a_hot_launcher_launches_what_is_bound_under_the_call_key():
    """The hot launcher of a learnt pattern finds the launch bound under :func:`call_key`'s key
    of each call (of the pattern or not), enqueues it on the stream's handle and returns True; a
    call with nothing bound launches nothing and returns its key (None: no key)."""
    calls = _hot_calls()
    cb.learn(KERNEL, calls[0]["args"])
    hot = cb.hot_launchers[KERNEL]
    ran = []
    for call in calls:  # nothing bound yet
        assert hot(5, **options(call)) == cb.call_key(**call)
    assert sum(cb.call_key(**call) is None for call in calls) == 1  # the list of arguments
    calls = [call for call in calls if cb.call_key(**call) is not None]
    for i, call in enumerate(calls):
        cb.keep(cb.call_key(**call), lambda stream, i=i: ran.append((i, stream)))
    for stream in (5, 7):
        for i, call in enumerate(calls):  # each twice in a row: the last-call comparison, then the lookup
            assert hot(stream, **options(call)) is True and hot(stream + 1, **options(call)) is True
            assert ran[-2:] == [(i, stream), (i, stream + 1)], (i, call)
    bad = calls[0] | dict(args=(FakeTensor(), Dev(), 2.0, np.int32(16), SubTensor()))
    assert hot(5, **options(bad)) is None is cb.call_key(**bad)


def test_a_hot_launcher_takes_stream_objects_and_refuses_unhashable_keys():
    import tileorch.launchers.cutile_bound as bound_module

    calls = _hot_calls()
    cb.learn(KERNEL, calls[0]["args"])
    hot = cb.hot_launchers[KERNEL]
    ran = []
    cb.keep(cb.call_key(**calls[0]), ran.append)
    assert hot(SimpleNamespace(cuda_stream=42), **options(calls[0])) is True and ran == [42]
    assert hot(None, **options(calls[0])) is True and ran == [42, 0]
    with pytest.raises(TypeError, match="stream must be a CUDA stream"):
        hot(object(), **options(calls[0]))
    assert bound_module.stream_handle is cb.stream_handle
    unhashable = calls[0] | dict(args=(FakeTensor(device=["cuda", 0]),) + calls[0]["args"][1:])
    assert hot(5, **options(unhashable)) is None and cb.call_key(**unhashable) is not None  # the full path decides
    cb.clear()
    assert KERNEL not in cb.hot_launchers


def test_the_generated_split_of_a_key_is_its_layout():
    """The split generated for a pattern gives exactly :func:`layout_of` (non-integer pointers
    in an array interface included); a re-pointing through the hot launcher uses it."""
    calls = _hot_calls()
    cb.learn(KERNEL, calls[0]["args"])
    hot = cb.hot_launchers[KERNEL]
    asked = []
    first = cb.call_key(**calls[0])
    cb.keep(first, lambda stream: None)
    cb.keep_layout(first, lambda pointers: asked.append(pointers) or (lambda stream: asked.append(stream)),
                   ((0, 48), (0, 32), (0, 48)))
    moved = calls[0] | dict(args=(FakeTensor(ptr=0x17000), Dev(ptr=0x19000), 2.0, 16, SubTensor(ptr=0x1B000)))
    assert hot(3, **options(moved)) is True and asked == [(0x17000, 0x19000, 0x1B000), 3]
    assert cb.bound_launches[cb.call_key(**moved)] is not None
    splits = []
    real = cb.rebound
    try:
        cb.rebound = lambda key, split=None: splits.append((key, split)) or None
        for call in calls + [calls[0] | dict(args=(FakeTensor(), Dev(ptr=np.int64(0x9000)), 2.0, 16, SubTensor()))]:
            hot(3, **options(call))
    finally:
        cb.rebound = real
    # every call but the bound first one and the one with a list of arguments (no key), plus the extra one
    assert len(splits) == len(calls) - 1
    for k, split in splits:
        assert split is None or split(k) == cb.layout_of(k), k


@pytest.mark.parametrize("p,q,lo0,hi0,lo1,hi1", [
    (0x1000, 0x1000, 0, 16, 0, 16), (0x1000, 0x1010, 0, 16, 0, 16), (0x1000, 0x100F, 0, 16, 0, 16),
    (0x1010, 0x1000, 0, 16, 0, 17), (0x1000, 0x2000, -0x1000, 4, 0, 4), (0x1000, 0x2000, -0xFFC, 4, 0, 4),
    (0x1000, 0x1000, 0, 0, 0, 16), (0x1000, 0x1000, 0, 1, 0, 1)])
def test_two_arrays_overlap_as_their_byte_ranges_do(p, q, lo0, hi0, lo1, hi1):
    """The two-array case of _overlaps against set intersection of the byte addresses, and (session 39) the
    pair at one address marked ``("same", 0, 1)`` (an in-place layout is re-pointed onto in-place calls only)."""
    meets = bool(set(range(p + lo0, p + hi0)) & set(range(q + lo1, q + hi1)))
    want = ({(0, 1)} if meets else set()) | ({("same", 0, 1)} if p == q else set())
    assert cb._overlaps((p, q), ((lo0, hi0), (lo1, hi1))) == frozenset(want)
    three = cb._overlaps((p, q, 0x100000), ((lo0, hi0), (lo1, hi1), (0, 8)))  # the generic loops
    assert three == cb._overlaps((p, q), ((lo0, hi0), (lo1, hi1)))


def test_the_last_hot_launcher_stays_the_kernels_own():
    """``last_hot`` (launch()'s one-entry cache by kernel identity) always holds the kernel's
    current hot launcher: a pattern learnt anew replaces it there too, clear() empties it."""
    other = object()
    cb.learn(KERNEL, (FakeTensor(), 1.0))
    cb.learn(other, (FakeTensor(), 1.0))
    cb.last_hot[0] = (KERNEL, cb.hot_launchers[KERNEL])
    cb.learn(other, (1.0, FakeTensor()))
    assert cb.last_hot[0] == (KERNEL, cb.hot_launchers[KERNEL])
    cb.learn(KERNEL, (FakeTensor(), 2, 1.0))
    assert cb.last_hot[0][0] is KERNEL and cb.last_hot[0][1] is cb.hot_launchers[KERNEL]
    ran = []
    cb.keep(cb.call_key(KERNEL, (4,), (FakeTensor(), 2, 1.0), "sm_90a", "auto", "auto"), ran.append)
    assert cb.last_hot[0][1](9, (4,), (FakeTensor(), 2, 1.0), "sm_90a", "auto", "auto") is True and ran == [9]
    cb.clear()
    assert cb.last_hot == [(None, None)]


def test_a_call_overtaken_during_its_key_comparison_launches_its_own_launch():
    """The last call's key and launch are one tuple, read once: another call (another thread's)
    that replaces them while this call's key is being compared with the last key does not hand
    this call the other's launch.  The other call is made from inside the comparison (a tensor's
    dtype whose ``__eq__`` makes it), where a thread switch could fall."""
    class DType(str):
        overtake = None

        def __eq__(self, other):
            if DType.overtake is not None:
                overtake, DType.overtake = DType.overtake, None
                overtake()
            return str(self) == str(other)

        __hash__ = str.__hash__

    mine, theirs = plain_call(t=dict(dtype=DType("f16"))), plain_call(alpha=5.0)
    cb.learn(KERNEL, mine["args"])
    hot = cb.hot_launchers[KERNEL]
    launched = []
    cb.keep(cb.call_key(**mine), lambda stream: launched.append(("mine", stream)))
    cb.keep(cb.call_key(**theirs), lambda stream: launched.append(("theirs", stream)))
    assert hot(1, **options(mine)) is True  # now the last call
    DType.overtake = lambda: hot(2, **options(theirs))
    again = plain_call(t=dict(dtype=DType("f16")))  # an equal dtype, another object: its __eq__ runs
    assert hot(1, **options(again)) is True
    assert launched == [("mine", 1), ("theirs", 2), ("mine", 1)]


def test_a_hot_launcher_reads_a_torch_streams_handle_once_per_stream_object(monkeypatch):
    """A torch stream's handle is fixed for its life: the hot launcher keeps the last stream
    object it launched on (alive) with its handle; another object, or an int, is read anew."""
    reads = []

    class Stream:  # stands in for torch.cuda.Stream
        def __init__(self, h):
            self.h = h

        @property
        def cuda_stream(self):
            reads.append(self.h)
            return self.h

    monkeypatch.setattr(cb, "_TORCH_STREAM_TYPES", {Stream})
    cb.clear()
    calls = _hot_calls()
    cb.learn(KERNEL, calls[0]["args"])
    hot = cb.hot_launchers[KERNEL]
    ran = []
    cb.keep(cb.call_key(**calls[0]), ran.append)
    s1, s2 = Stream(0x11), Stream(0x22)
    for stream in (s1, s1, s2, s2, 3, s2, s1, s1):
        assert hot(stream, **options(calls[0])) is True
    assert ran == [0x11, 0x11, 0x22, 0x22, 3, 0x22, 0x11, 0x11] and reads == [0x11, 0x22, 0x11]


class _Shape(tuple):
    """A tuple subclass (torch.Size is one)."""


class _Gone:
    """An array whose interface property raises AttributeError (what ``getattr(a, name, None)``
    turns into None)."""

    @property
    def __cuda_array_interface__(self):
        raise AttributeError("no interface")


class _Broken:
    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("cannot export")


@pytest.mark.parametrize("spelling", [
    dict(shape=[8], strides=[4]), dict(shape=_Shape((8,)), strides=_Shape((4,))), dict(shape=(8,), strides=(4,)),
    dict(shape=[8], strides=None), dict(shape=range(8, 9)),
])
def test_a_learnt_reader_gives_call_key_s_key_for_every_spelling_of_shape_and_strides(spelling):
    """A list, a tuple subclass or a tuple shape/strides: the generated reader's key equals
    call_key's (a tuple), so the spellings share one bound launch."""
    cb.learn(KERNEL, (Dev(), Dev(ptr=0xA000), 2.0))
    read = cb.reader(KERNEL)
    call = plain_call() | dict(args=(Dev(**spelling), Dev(ptr=0xA000), 2.0))
    got = read(**call)
    assert got == cb.call_key(**call) is not None
    assert all(type(f) is tuple for f in got[7:9] if f is not None)
    assert got == read(**(plain_call() | dict(args=(Dev(shape=(8,), strides=spelling.get("strides") and (4,)),
                                                    Dev(ptr=0xA000), 2.0))))


def test_a_learnt_reader_treats_an_interface_that_raises_as_call_key_does():
    """An interface property raising AttributeError gives no key (as getattr's default does);
    any other exception it raises propagates from both."""
    cb.learn(KERNEL, (Dev(), 2.0))
    read = cb.reader(KERNEL)
    for cls in (_Gone, _Broken):
        cb.learn(KERNEL, (cls(), 2.0))  # a pattern whose first class is this one
        read = cb.reader(KERNEL)
        assert read is not cb.call_key
        call = plain_call() | dict(args=(cls(), 2.0))
        if cls is _Gone:
            assert read(**call) is None is cb.call_key(**call)
        else:
            with pytest.raises(RuntimeError):
                read(**call)
            with pytest.raises(RuntimeError):
                cb.call_key(**call)


@pytest.mark.parametrize("ptr", [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 0x7000, 0x7002, 0x7004, 0x7008, 0x7010,
                                 0x7E0000000000, 0x7E0000000008, (1 << 47) + 4])
def test_a_pointer_s_alignment_in_a_layout_is_its_largest_power_of_two_divisor_up_to_16(ptr):
    """Both the generated split and :func:`layout_of` put in a pointer's place the largest power
    of two (at most 16) that divides it, 16 for a null pointer (computed here by trial division)."""
    expected = 16 if ptr == 0 else max(a for a in (1, 2, 4, 8, 16) if ptr % a == 0)
    k = call(t=dict(ptr=ptr), d=dict(ptr=0x9000))
    cb.learn(KERNEL, (FakeTensor(), Dev(), 2.0, 16))
    layout, pointers = cb.layout_of(k)
    assert pointers == (ptr, 0x9000) and layout[6] == expected and layout[12] == 16
    cb.keep(k, lambda stream: None)
    asked = []
    cb.keep_layout(k, lambda ps: asked.append(ps) or (lambda stream: None), ((0, 48), (0, 32)))
    other = ptr + 0x100000  # 0x100000 is a multiple of 16: the same alignment
    assert cb.hot_launchers[KERNEL](0, (4,), (FakeTensor(ptr=other), Dev(), 2.0, 16), "sm_90a", "auto", "auto")
    assert asked == [(other, 0x9000)]


@pytest.mark.parametrize("change", [dict(t=dict(ptr=0x27008)), dict(t=dict(ptr=0x27004)), dict(d=dict(ptr=0x39002)),
                                    dict(t=dict(strides=(1, 4))), dict(t=dict(strides=(12, 2))),
                                    dict(d=dict(strides=(8,))), dict(t=dict(shape=(4, 7), strides=(7, 1)))])
def test_a_hot_launcher_re_points_no_launch_for_another_stride_or_alignment(change):
    """After a bound call, a call at other addresses whose stride or an array's alignment differs
    is neither launched nor re-pointed by the kernel's hot launcher: it returns the call's key,
    and the launcher takes the full path (a kernel variant of its own)."""
    cb.learn(KERNEL, (FakeTensor(), Dev(), 2.0, 16))
    hot = cb.hot_launchers[KERNEL]
    asked = bind(call(t=dict(ptr=0x7000), d=dict(ptr=0x9000)))
    base = dict(t=dict(ptr=0x27000), d=dict(ptr=0x39000))
    moved = base | {side: base[side] | change[side] for side in ("t", "d") if side in change}
    args = (FakeTensor(**moved["t"]), Dev(**moved["d"]), 2.0, 16)
    assert hot(0, (4,), args, "sm_90a", "auto", "auto") == call(**moved)
    assert asked == [] and call(**moved) not in cb.bound_launches
    same = (FakeTensor(ptr=0x27000), Dev(ptr=0x39000), 2.0, 16)  # addresses only: re-pointed
    assert hot(0, (4,), same, "sm_90a", "auto", "auto") is True and asked == [(0x27000, 0x39000)]


@pytest.mark.parametrize("arrays", [1, 2, 3])
def test_a_hot_launcher_re_points_through_the_layout_s_pointer_launcher(arrays):
    """With a pointer launcher kept for the layout (keep_layout's ``go``), a call at other
    addresses of the same alignments and overlaps is enqueued through it with its pointers (no
    launch bound, no rebound), the call bound first through its bound launch; another alignment
    or an overlap that the layout does not have: no launch, the key returned."""
    def args(*ptrs):
        return tuple(FakeTensor(ptr=p) for p in ptrs) + (2.0, 16)

    base = [0x10000 * (i + 1) for i in range(arrays)]
    cb.learn(KERNEL, args(*base))
    hot = cb.hot_launchers[KERNEL]
    first = cb.call_key(KERNEL, (4,), args(*base), "sm_90a", "auto", "auto")
    ran, went = [], []
    cb.keep(first, lambda stream: ran.append(stream))
    cb.keep_layout(first, lambda pointers: pytest.fail("rebound used"), ((0, 48),) * arrays,
                   lambda stream, pointers: went.append((stream, pointers)))
    moved = [p + 0x100000 for p in base]
    for _ in range(2):
        assert hot(3, (4,), args(*moved), "sm_90a", "auto", "auto") is True
    assert went == [(3, tuple(moved))] * 2 and ran == []
    assert hot(5, (4,), args(*base), "sm_90a", "auto", "auto") is True and ran == [5]  # the bound call's own launch
    assert hot(3, (4,), args(*moved), "sm_90a", "auto", "auto") is True and len(went) == 3
    assert len(cb.bound_launches) == 1
    odd = [moved[0] + 8] + moved[1:]  # 8-byte aligned
    assert hot(3, (4,), args(*odd), "sm_90a", "auto", "auto") == cb.call_key(KERNEL, (4,), args(*odd), "sm_90a",
                                                                             "auto", "auto")
    if arrays > 1:
        close = [moved[0], moved[0] + 32] + moved[2:]  # the first two overlap
        assert hot(3, (4,), args(*close), "sm_90a", "auto", "auto") == cb.call_key(KERNEL, (4,), args(*close),
                                                                                   "sm_90a", "auto", "auto")
        apart = [moved[0], moved[0] + 48] + moved[2:]
        assert hot(3, (4,), args(*apart), "sm_90a", "auto", "auto") is True and went[-1] == (3, tuple(apart))
    assert len(cb.bound_launches) == 1 and len(went) == 3 + (arrays > 1)
