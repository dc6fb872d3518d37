"""The C check of a repeated ``tileorch.cutile.launch`` call (``c_launch.Memo`` in front of the
generated hot launcher, :func:`tileorch.launchers.cutile_bound.learn`): a call whose facts equal
the last one the Python launcher launched through a bound launch is launched in C; a call that
differs in any fact the key holds (pointer, shape, strides, dtype, device, a scalar's value, type
or zero sign, the grid, the options), a stream object it cannot read, keyword arguments, a read
that raises, all go to the Python launcher, which launches what is bound under
:func:`call_key`'s key or returns that key, as without the memo.  No GPU, no cuTile, no torch
(stand-in tensors)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from tileorch.launchers import cutile_bound as cb
from tileorch.runtime import c_launch

def _built() -> str:
    """'' where the C launcher builds here (its build waited for), else why not (asked for with =1, its
    warning where it does not build is not this check's)."""
    import warnings

    from tileorch import settings

    with settings.overridden(c_launch.ENV, "1"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c_launch.wait()
        return c_launch.why_not()


pytestmark = pytest.mark.skipif(bool(_built()), reason=f"no C launcher: {_built()}")


class FakeTensor:
    def __init__(self, dtype="torch.float16", shape=(4, 6), strides=(6, 1), ptr=0x7000, device="cuda:0"):
        self.dtype, self.shape, self._strides, self._ptr, self.device = dtype, shape, strides, ptr, device

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr


class SubTensor(FakeTensor):
    pass


class Stream:
    """A stand-in torch stream class (registered as torch.cuda.Stream)."""

    def __init__(self, handle, device_index=0):
        self.cuda_stream, self.device_index = handle, device_index


@pytest.fixture(autouse=True)
def fake_torch(monkeypatch):
    monkeypatch.delenv(c_launch.ENV, raising=False)  # unset: the default (the C launcher where it builds)
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(Tensor=FakeTensor, __name__="torch"))
    monkeypatch.setitem(sys.modules, "torch.cuda", SimpleNamespace(Stream=Stream, ExternalStream=None))
    monkeypatch.setattr(cb, "_tensor", None)
    cb.clear()
    yield
    cb.clear()


KERNEL = object()


def call(t=None, alpha=2.0, n=16, u=None, flag=True, **options):
    args = (FakeTensor(**(t or {})), alpha, n, SubTensor(**(u or {"ptr": 0xB000})), flag)
    return dict(kernel=KERNEL, grid=(4,), args=args, arch="sm_90a", schedule="auto", tiles="auto") | options


def positional(c):
    return c["grid"], c["args"], c["arch"], c["schedule"], c["tiles"]


CHANGES = [dict(t=dict(ptr=0x7100)), dict(t=dict(dtype="torch.bfloat16")), dict(t=dict(strides=(1, 4))),
           dict(t=dict(shape=(4, 7), strides=(7, 1))), dict(t=dict(device="cuda:1")), dict(u=dict(ptr=0xB100)),
           dict(alpha=-0.0), dict(alpha=0.0), dict(alpha=2.5), dict(n=17), dict(flag=False),
           dict(grid=(8,)), dict(grid=4), dict(grid=(4, 1)), dict(schedule="streamk"), dict(tiles="program"),
           dict(arch="sm_100a")]


def memo_with_counter():
    """The kernel's hot launcher (a Memo) and the list that counts the calls its Python launcher takes."""
    hot = cb.hot_launchers[KERNEL]
    assert type(hot).__name__ == "Memo"
    python, taken = hot.python, []
    hot.attach(lambda *a, **k: taken.append(1) or python(*a, **k))
    return hot, taken


def test_a_repeat_launches_in_c_and_every_changed_fact_goes_to_the_python_launcher():
    calls = [call()] + [call(**change) for change in CHANGES]
    keys = [cb.call_key(**c) for c in calls]
    assert len(set(keys)) == len(keys)  # every change is a change of the key
    ran = []
    for i, key in enumerate(keys):
        cb.keep(key, lambda stream, i=i: ran.append((i, stream)))
    cb.learn(KERNEL, calls[0]["args"])
    hot, taken = memo_with_counter()
    for i, c in enumerate(calls):
        assert hot(5, *positional(c)) is True and ran[-1] == (i, 5)
        before = len(taken)
        assert hot(6, *positional(c)) is True and ran[-1] == (i, 6)  # a repeat on another int stream: in C
        assert len(taken) == before, c
        following = calls[(i + 1) % len(calls)]
        assert hot(5, *positional(following)) is True and len(taken) == before + 1, following  # a change: Python
        hot(5, *positional(c))  # back (Python: it launched the other one last)
    assert hot(7, *positional(calls[0])) is True and ran[-1] == (0, 7)
    # not launched in C: keyword arguments, a grid of bools (refused by the key: no launch at all)
    before = len(taken)
    assert hot(5, grid=(4,), args=calls[0]["args"], arch="sm_90a", schedule="auto", tiles="auto") is True
    assert hot(5, (True,), *positional(calls[0])[1:]) is None
    assert len(taken) == before + 2


def test_the_same_objects_changed_in_place_are_read_again():
    c = call()
    t = c["args"][0]
    ran = []
    cb.keep(cb.call_key(**c), lambda stream: ran.append("first"))
    cb.learn(KERNEL, c["args"])
    hot, taken = memo_with_counter()
    assert hot(1, *positional(c)) is True and hot(1, *positional(c)) is True and ran == ["first"] * 2
    assert len(taken) == 1
    t._ptr = 0x7400  # the tensor re-pointed in place (set_): nothing bound for it
    assert hot(1, *positional(c)) == cb.call_key(**c) and ran == ["first"] * 2 and len(taken) == 2
    t._ptr, t.shape = 0x7000, (4, 5)  # a shape changed in place (resize_)
    assert hot(1, *positional(c)) == cb.call_key(**c) and len(taken) == 3
    t.shape = (4, 6)
    assert hot(1, *positional(c)) is True and ran == ["first"] * 3


def test_torch_stream_objects_are_read_in_c_only_on_device_0():
    c = call()
    ran = []
    cb.keep(cb.call_key(**c), ran.append)
    cb.learn(KERNEL, c["args"])
    hot, taken = memo_with_counter()
    first = Stream(0x51)
    assert hot(first, *positional(c)) is True and ran == [0x51] and len(taken) == 1
    assert hot(first, *positional(c)) is True and hot(Stream(0x52), *positional(c)) is True
    assert ran == [0x51, 0x51, 0x52] and len(taken) == 1  # the same class, device 0: in C
    with pytest.raises(ValueError, match="is on cuda:1"):
        hot(Stream(0x53, device_index=1), *positional(c))
    assert hot(SimpleNamespace(cuda_stream=0x54), *positional(c)) is True and ran[-1] == 0x54  # another class
    assert hot(None, *positional(c)) is True and ran[-1] == 0  # the legacy default stream
    assert len(taken) == 4 and ran.count(0x53) == 0


def test_a_read_that_raises_is_raised_by_the_python_launcher():
    class Flaky(FakeTensor):
        fail = False

        def data_ptr(self):
            if self.fail:
                raise RuntimeError("the tensor's storage was freed")
            return self._ptr

    args = (Flaky(), 2.0)
    c = dict(kernel=KERNEL, grid=(4,), args=args, arch="sm_90a", schedule="auto", tiles="auto")
    ran = []
    cb.keep(cb.call_key(**c), ran.append)
    cb.learn(KERNEL, args)
    hot, taken = memo_with_counter()
    assert hot(3, *positional(c)) is True and hot(3, *positional(c)) is True and len(taken) == 1
    args[0].fail = True
    with pytest.raises(RuntimeError, match="storage was freed"):
        hot(3, *positional(c))
    assert ran == [3, 3] and len(taken) == 2


def test_patterns_the_memo_does_not_read_and_the_switch_keep_the_python_launcher(monkeypatch):
    import numpy as np

    cb.learn(KERNEL, (FakeTensor(), np.float64(1.0)))  # a float subclass: no generated reader, no memo
    assert KERNEL not in cb.hot_launchers
    cb.learn(KERNEL, (FakeTensor(), True, 1.0))
    assert type(cb.hot_launchers[KERNEL]).__name__ == "Memo"
    for switch, memo in (("0", False), ("", True), ("1", True), ("0", False)):  # off; unset (the default: on); on
        monkeypatch.setenv(c_launch.ENV, switch)
        cb.learn(KERNEL, (FakeTensor(), 1.0))
        assert type(cb.hot_launchers[KERNEL]).__name__ == ("Memo" if memo else "function"), switch
    monkeypatch.delenv(c_launch.ENV)
    with pytest.raises(ValueError, match="kind"):
        c_launch.module().Memo((int,), b"f", set())


def _run_sequence(monkeypatch, memo: bool):
    """A sequence of calls with arrays at other addresses (the same layout, other alignments,
    overlapping, null) against one bound launch with a pointer launcher: what each call launched
    (and the hot launcher's answer), and how many calls the Python launcher took."""
    monkeypatch.setenv(c_launch.ENV, "1" if memo else "0")
    cb.clear()
    ran = []
    first = call(t=dict(ptr=0x10000), u=dict(ptr=0x20000))
    key = cb.call_key(**first)
    cb.keep(key, lambda stream: ran.append(("bound", stream)))
    cb.keep_layout(key, lambda pointers: (lambda stream: ran.append(("rebound", stream, pointers))),
                   ((0, 48), (0, 48)), lambda stream, pointers: ran.append(("go", stream, pointers)))
    cb.learn(KERNEL, first["args"])
    hot = cb.hot_launchers[KERNEL]
    taken = []
    if memo:
        hot, taken = memo_with_counter()
    answers = []
    sequence = [first, first] + [call(t=dict(ptr=p), u=dict(ptr=q)) for p, q in [
        (0x30000, 0x40000), (0x30000, 0x40000), (0x50000, 0x20000), (0x10000, 0x20000),  # moved, moved back
        (0x30008, 0x40000),  # another alignment
        (0x30000, 0x30010),  # overlapping
        (0, 0x40000),  # a null pointer
        (0x60000, 0x70000)]] + [call(t=dict(ptr=0x80000), u=dict(ptr=0x90000), alpha=3.0), first]
    for i, c in enumerate(sequence):
        answer = hot(i, *positional(c))
        answers.append(answer if answer is True or answer is None else "key")
    return ran, answers, len(taken)


def test_arrays_at_other_addresses_are_re_pointed_in_c_as_the_python_launcher_re_points_them(monkeypatch):
    python_ran, python_answers, _ = _run_sequence(monkeypatch, memo=False)
    ran, answers, taken = _run_sequence(monkeypatch, memo=True)
    assert (ran, answers) == (python_ran, python_answers)
    assert ("go", 2, (0x30000, 0x40000)) in ran and ("go", 9, (0x60000, 0x70000)) in ran
    assert answers[6:9] == ["key", "key", "key"]  # another alignment, an overlap, a null pointer: nothing bound
    # the Python launcher took the first call, the calls of another alignment, overlap or null pointer and the
    # other scalar (nothing bound: it answers the key); C the repeat, the moves of the layout (re-pointed) and
    # the first call again (still the one recorded)
    assert taken == 5, (taken, answers)


def _in_place_sequence(monkeypatch, memo: bool):
    """One bound in-place launch (both arrays at one address) with a pointer launcher, then calls at other
    addresses: in place again, and overlapping shifted (the same byte-range overlap, not one address)."""
    monkeypatch.setenv(c_launch.ENV, "1" if memo else "0")
    cb.clear()
    ran = []
    first = call(t=dict(ptr=0x10000), u=dict(ptr=0x10000))
    key = cb.call_key(**first)
    cb.keep(key, lambda stream: ran.append(("bound", stream)))
    cb.keep_layout(key, lambda pointers: (lambda stream: ran.append(("rebound", stream, pointers))),
                   ((0, 48), (0, 48)), lambda stream, pointers: ran.append(("go", stream, pointers)))
    cb.learn(KERNEL, first["args"])
    hot = cb.hot_launchers[KERNEL]
    if memo:
        hot, _ = memo_with_counter()
    answers = []
    for i, (p, q) in enumerate([(0x10000, 0x10000), (0x30000, 0x30000), (0x50000, 0x50010), (0x50010, 0x50000),
                                (0x60000, 0x60000)]):
        answer = hot(i, *positional(call(t=dict(ptr=p), u=dict(ptr=q))))
        answers.append(answer if answer is True or answer is None else "key")
    return ran, answers


def test_an_in_place_launch_is_re_pointed_onto_in_place_calls_only_in_c_as_in_python(monkeypatch):
    """Session 39: an output given as its input is launched (the full path checks it); arrays overlapping
    shifted at new addresses overlap as the in-place pair did by byte ranges, but are not at one address: they
    are never re-pointed onto the in-place launch (C and Python alike), the full path refuses them where the
    kernel writes one."""
    python = _in_place_sequence(monkeypatch, memo=False)
    ran, answers = _in_place_sequence(monkeypatch, memo=True)
    assert (ran, answers) == python
    assert answers == [True, True, "key", "key", True]
    assert ("go", 1, (0x30000, 0x30000)) in ran and ("go", 4, (0x60000, 0x60000)) in ran


def test_a_call_recorded_while_the_memo_reads_makes_it_miss():
    """A read that runs Python code which records another call (another thread's launch, say) leaves
    the memo's answer to the Python launcher: the launch read then is no longer the compared facts'."""
    hooks = []

    class Hooked(FakeTensor):
        def data_ptr(self):
            for hook in hooks:
                hook()
            return self._ptr

    args = (Hooked(), 2.0)
    c = dict(kernel=KERNEL, grid=(4,), args=args, arch="sm_90a", schedule="auto", tiles="auto")
    ran = []
    cb.keep(cb.call_key(**c), ran.append)
    cb.learn(KERNEL, args)
    hot, taken = memo_with_counter()
    assert hot(3, *positional(c)) is True and hot(3, *positional(c)) is True and len(taken) == 1
    hooks.append(hot.forget)  # the memo changes while it compares
    assert hot(3, *positional(c)) is True and len(taken) == 2 and ran == [3, 3, 3]


class Dev:
    def __init__(self, ptr=0x9000, shape=(8,), typestr="<f4", strides=None, data=None):
        self.__cuda_array_interface__ = {"data": data or (ptr, False), "shape": shape, "typestr": typestr,
                                         "strides": strides, "version": 3}


def test_array_interfaces_are_read_in_c_as_the_key_reads_them(monkeypatch):
    """``__cuda_array_interface__`` arrays (cupy, numba): a repeat in C, every changed fact (pointer,
    shape given as a list, strides, typestr, the read-only flag) and a malformed interface to the Python launcher, which
    answers as without the memo; moves of the layout re-pointed in C as it re-points them."""
    def run(memo):
        monkeypatch.setenv(c_launch.ENV, "1" if memo else "0")
        cb.clear()
        base = dict(kernel=KERNEL, grid=(4,), arch="sm_90a", schedule="auto", tiles="auto")
        calls = [(Dev(), Dev(ptr=0xA000), 2.0), (Dev(), Dev(ptr=0xA000), 2.0), (Dev(shape=[8]), Dev(ptr=0xA000), 2.0),
                 (Dev(strides=(8,)), Dev(ptr=0xA000), 2.0), (Dev(typestr="<f2"), Dev(ptr=0xA000), 2.0),
                 (Dev(ptr=0x19000), Dev(ptr=0x1A000), 2.0), (Dev(ptr=0x29000), Dev(ptr=0x2A000), 2.0),
                 (Dev(ptr=0x29004), Dev(ptr=0x2A000), 2.0), (Dev(data=[0x39000]), Dev(ptr=0x3A000), 2.0),
                 (Dev(data=(None, False)), Dev(ptr=0x3A000), 2.0), (SimpleNamespace(__cuda_array_interface__=3),
                                                                     Dev(), 2.0),
                 (Dev(data=(0x9000, True)), Dev(ptr=0xA000), 2.0)]  # calls[0]'s facts, read-only: not its launch
        ran = []
        first = cb.call_key(**base, args=calls[0])
        cb.keep(first, lambda stream: ran.append(("bound", stream)))
        cb.keep(cb.call_key(**base, args=calls[2]), lambda stream: ran.append(("list shape", stream)))
        cb.keep_layout(first, lambda pointers: (lambda stream: ran.append(("rebound", stream, pointers))),
                       ((0, 32), (0, 32)), lambda stream, pointers: ran.append(("go", stream, pointers)))
        cb.learn(KERNEL, calls[0])
        hot = cb.hot_launchers[KERNEL]
        taken = []
        if memo:
            hot, taken = memo_with_counter()
        answers = []
        for i, args in enumerate(calls + calls[:2]):
            try:
                answer = hot(i, *positional(base | dict(args=args)))
            except Exception as exc:  # noqa: BLE001 - the same error either way
                answer = type(exc).__name__
            answers.append(answer if answer in (True, None) or isinstance(answer, str) else "key")
        return ran, answers, len(taken)

    python = run(memo=False)
    ran, answers, taken = run(memo=True)
    assert (ran, answers) == python[:2]
    assert ("go", 6, (0x29000, 0x2A000)) in ran and ("list shape", 2) in ran and answers[7] == "key"
    assert answers[11] == "key" and not [r for r in ran if r[1] == 11]  # the read-only array: the full path
    assert taken < len(answers) - 2, (taken, answers)  # some calls were answered in C


def test_the_front_launches_a_repeat_through_the_memo_and_hands_everything_else_to_python():
    """``c_launch.Front`` (``tileorch.cutile.launch`` where the launcher is built at import): four arguments by
    position, the kernel launched last and its Memo: the Memo's launch, None returned, the Python function not
    called; keywords, other arities, the native route on, another kernel, a hot launcher that is no Memo, a
    call the Memo does not launch: the Python function's, with the call as given; the Memo's exception raised."""
    c = call()
    ran, python_calls = [], []
    cb.keep(cb.call_key(**c), ran.append)
    cb.learn(KERNEL, c["args"])
    hot, taken = memo_with_counter()

    def python(*args, **kwargs):
        python_calls.append((args, kwargs))
        return "python's"

    last, native = [(KERNEL, hot)], [False]
    front = c_launch.module().Front(python, last, native, ("sm_90a", "auto", "auto"))
    args = (5, (4,), KERNEL, c["args"])
    assert front(*args) is None and front(*args) is None and ran == [5, 5] and python_calls == []
    assert len(taken) == 1  # the first call: the Memo's Python launcher (which recorded it), the second in C
    for other in [dict(args=args, kwargs=dict(tiles="auto")), dict(args=args + ("sm_90a",), kwargs={}),
                  dict(args=args[:3], kwargs={}), dict(args=(5, (4,), object(), c["args"]), kwargs={})]:
        python_calls.clear()
        assert front(*other["args"], **other["kwargs"]) == "python's"
        assert python_calls == [(other["args"], other["kwargs"])] and ran == [5, 5]
    native[0] = True  # TILEORCH_CUTILE_NATIVE=1: the Python function's route
    python_calls.clear()
    assert front(*args) == "python's" and len(python_calls) == 1 and ran == [5, 5]
    native[0] = False
    last[0] = (KERNEL, lambda *a: True)  # a hot launcher that is no Memo: the Python function reads it
    python_calls.clear()
    assert front(*args) == "python's" and len(python_calls) == 1
    last[0] = (KERNEL, hot)
    changed = (5, (8,), KERNEL, c["args"])  # nothing bound for it: the Memo's answer is a key, not True
    python_calls.clear()
    assert front(*changed) == "python's" and python_calls == [(changed, {})] and ran == [5, 5]

    def fails(stream):
        raise RuntimeError("launch failed")

    cb.clear()
    cb.keep(cb.call_key(**c), fails)
    cb.learn(KERNEL, c["args"])
    last[0] = (KERNEL, cb.hot_launchers[KERNEL])
    with pytest.raises(RuntimeError, match="launch failed"):
        front(*args)
    with pytest.raises(ValueError):
        c_launch.module().Front(python, last, native, ("sm_90a", "auto"))


def test_the_launcher_modules_name_is_the_digest_of_its_source():
    """The built file is found by name without the source (a relaunch imports no hashlib): the digest in
    c_launch must follow every edit of c_launch_build.SOURCE."""
    from tileorch.runtime import c_launch_build

    assert c_launch.DIGEST == c_launch_build.digest() and c_launch.name().endswith(c_launch.DIGEST)
