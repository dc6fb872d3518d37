"""Repeated ``tileorch.cutile.launch`` calls: the key of a call and the launches kept bound under it.

:func:`call_key` reads, in one pass and without building any argument description, what the
full launch path derives everything from: the kernel object, the grid and the options as given,
and per argument

* a torch tensor: its data pointer, shape, strides, dtype and device (a tensor of a subclass
  likewise; its class is part of the key),
* an object with ``__cuda_array_interface__``: the pointer, shape, strides (``None`` when
  contiguous) and typestr of that interface (with ``"read-only"`` in a tuple when its ``data[1]``
  says so: the full path refuses such an array where the kernel writes it, so its calls never
  share a key with a writable array's),
* a Python ``int``, ``bool`` or ``float``: its type and value (a float zero with its sign:
  ``0.0 == -0.0`` but their parameter bytes differ).

The kernel variant (the signature: element types, ranks, the stride classes, alignment and
aliasing of the arrays; the constants), the grid, block and cluster the launch uses and the
parameter bytes are all functions of these facts, so a call with an equal key can re-enqueue
the launch bound for the earlier one (:data:`bound_launches`): a key can only be equal when the dtypes,
ranks, shapes, strides, pointers, devices, scalar types and values and the grid are.  Any other
argument (a DLPack-only array, a list, a numpy scalar) gives no key, and such a call takes the
full path every time (where the errors for wrong arguments are raised).

:func:`reader` gives the function that computes a kernel's keys: :func:`call_key` itself, or,
once a bound call of the kernel was seen (:func:`learn`), a function generated for that
pattern of argument classes (:func:`pattern_reader`) that unpacks the tuple and reads each
argument's facts in straight-line code; for arguments of other classes it returns what
:func:`call_key` returns, so the two always agree.

:func:`hot_launcher` gives the function ``tileorch.cutile.launch`` calls first: the same key
(the learnt pattern's straight-line reads, the pointers first), compared with the kernel's last
call's (no hashing when the call repeats); a call differing from it in the arrays' addresses only
(same alignments, same overlaps) is enqueued through the layout's pointer launcher (the pointers
written into a pooled parameter buffer: nothing bound, kept or made per call); else the key is
looked up in :data:`bound_launches` and the layout in ``_layouts`` (else re-pointed by
:func:`rebound`); on a hit it enqueues the launch on the stream's handle itself.  Where the compiled launcher module
builds (:mod:`tileorch.runtime.c_launch`) and the pattern has a generated reader, the kernel's hot
launcher is a ``c_launch.Memo`` in front of the generated one: a repeat of
the last call the generated one launched through a bound launch (which it records) is checked and
launched in C, anything else is the generated one's.

Nothing here touches the GPU or imports torch.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

BOUND_MAX = 256  # launches kept bound; the oldest bound one is dropped first

# the bound launches by key (each takes the stream handle); the caller looks a key up itself
bound_launches: dict[tuple, Callable[[int], None]] = {}  # a plain dict: the hit path's lookup
_tensor: Any = None  # torch.Tensor, once an argument was one (torch is never imported here)
# the key reader of each kernel's last learnt argument pattern, and the readers by pattern
_readers: dict[Any, Callable[..., tuple | None]] = {}
_pattern_readers: dict[tuple[Any, tuple[type, ...]], Callable[..., tuple | None]] = {}
# the hot launcher of each kernel with a learnt reader (hot_launcher), and their makers by pattern
hot_launchers: dict[Any, Callable[..., Any]] = {}
# [(kernel, its hot launcher)] of the last kernel launch() found one for (an identity test instead
# of a hash when the same kernel is launched again); learn() and clear() keep it current.  One
# tuple, read and replaced whole: another thread never sees one kernel with another's launcher
last_hot: list[tuple[Any, Any]] = [(None, None)]
_hot_makers: dict[tuple[Any, tuple[type, ...]], Callable[[Any], Callable[..., Any]]] = {}
READERS_MAX = 256  # kernels with a learnt reader; the oldest is forgotten first
# bound launches that can be re-pointed, by layout key (see layout_of); the oldest is dropped first
# (repoint, extents, overlaps, go, the bound pointers, two arrays' overlap range): see keep_layout
_layouts: OrderedDict[tuple, tuple[Callable[[tuple[int, ...]], Callable[[int], None]], tuple, frozenset, Any]] = \
    OrderedDict()


def call_key(kernel: Any, grid: Any, args: Any, arch: str, schedule: str, tiles: str) -> tuple | None:
    """The key of a ``launch(stream, grid, kernel, args, ...)`` call (the stream is not part of
    it), or None when an argument is of a kind the key does not read (see the module's doc).

    Per argument a tag, then its facts: the tag (the argument's class, or ``"cai"``) fixes how
    many facts follow, so equal keys come from arguments of the same kinds with equal facts."""
    if type(args) is not tuple or not plain_grid(grid):
        return None
    key = [kernel, grid, arch, schedule, tiles]
    tensor = _tensor
    for a in args:
        t = type(a)
        if t is tensor:
            key += (t, a.data_ptr(), a.shape, a.stride(), a.dtype, a.device)
        elif t is float:
            key += (t, a if a else str(a))  # keeps the sign of a zero
        elif t is int or t is bool:
            key += (t, a)
        else:
            other = _array_key(a, t)
            if other is None:
                return None
            key += other
    return tuple(key)


def plain_grid(grid: Any) -> bool:
    """Whether ``grid`` is an ``int`` or a tuple of ``int`` s (no ``bool``, no numpy integer: those
    compare and hash equal to ints, so a key holding one would match a call bound for the ints,
    while the full path refuses them, as ``cuda.tile.launch`` refuses numpy integers)."""
    t = type(grid)
    if t is tuple:
        for g in grid:
            if type(g) is not int:
                return False
        return True
    return t is int


def _array_key(a: Any, t: type) -> tuple | None:
    """:func:`call_key`'s tag and facts of an argument that is no Python scalar nor, as far as
    :data:`_tensor` knows, a torch tensor (the first tensor passed sets :data:`_tensor`)."""
    global _tensor
    torch = sys.modules.get("torch")
    tensor = getattr(torch, "Tensor", None) if torch is not None else None
    if tensor is not None and isinstance(a, tensor):  # read as the full path reads a torch tensor
        if t is tensor:
            _tensor = tensor
        return (t, a.data_ptr(), a.shape, a.stride(), a.dtype, a.device)
    cai = getattr(a, "__cuda_array_interface__", None)
    if type(cai) is not dict:
        return None
    try:
        strides = cai.get("strides")
        data = cai["data"]  # (a read-only array: its typestr with a mark, so never a writable one's key)
        return ("cai", data[0], tuple(cai["shape"]), None if strides is None else tuple(strides),
                (cai["typestr"], "read-only") if data[1] else cai["typestr"])
    except (KeyError, TypeError, IndexError):
        return None


def reader(kernel: Any) -> Callable[..., tuple | None]:
    """The function computing ``kernel``'s call keys (same arguments as :func:`call_key`, same
    result).  Raises TypeError for an unhashable kernel."""
    return _readers.get(kernel, call_key)


def learn(kernel: Any, args: Any) -> None:
    """Read ``kernel``'s later calls with :func:`pattern_reader` for the classes of ``args`` (a
    tuple), and launch its bound calls through the :func:`hot_launcher` of that pattern; a call
    whose pattern has no reader leaves the kernel's reader and hot launcher as they are."""
    if type(args) is not tuple or len(args) > 64:
        return
    pattern = tuple(type(a) for a in args)
    torch = sys.modules.get("torch")
    by = (getattr(torch, "Tensor", None) if torch is not None else None, pattern)  # see pattern_reader
    read = _pattern_readers.get(by)
    if read is None:
        generated = _generate(pattern)
        if generated is None:
            return
        read, _hot_makers[by] = generated
        _pattern_readers[by] = read
    try:
        _readers[kernel] = read
    except TypeError:  # an unhashable kernel: its calls never have a bound launch either
        return
    hot = hot_launchers[kernel] = _hot(by, pattern, kernel)  # a new hot launcher: no last call yet
    if last_hot[0][0] is kernel:
        last_hot[0] = (kernel, hot)
    while len(_readers) > READERS_MAX:
        del _readers[next(iter(_readers))]
    while len(hot_launchers) > READERS_MAX:
        del hot_launchers[next(iter(hot_launchers))]


def _memo_kinds(pattern: tuple[type, ...]) -> bytes | None:
    """The kinds :class:`tileorch.runtime.c_launch` ``Memo`` reads the arguments of ``pattern`` as
    (``T`` a torch tensor, ``c`` an array read through ``__cuda_array_interface__``, ``f`` a float,
    ``i`` an int or bool), or None for a pattern with a scalar subclass (no generated reader)."""
    kinds = []
    for t in pattern:
        if t is float:
            kinds.append("f")
        elif t is int or t is bool:
            kinds.append("i")
        elif _tensor_class(t):
            kinds.append("T")
        elif issubclass(t, (int, float)):  # a scalar subclass: no generated reader either
            return None
        else:  # read through __cuda_array_interface__, as the generated reader reads it
            kinds.append("c")
    return "".join(kinds).encode()


def _hot(by: tuple, pattern: tuple[type, ...], kernel: Any) -> Callable[..., Any]:
    """A new hot launcher of ``kernel`` for ``pattern``: the generated Python one, behind the
    compiled launcher module's ``Memo`` where that module is there and reads the pattern (a
    repeat of the last call the Python one launched through a bound launch is checked and
    launched in C; anything else goes to the Python one, which records what it launches)."""
    kinds = _memo_kinds(pattern)
    c = None
    if kinds is not None:
        from tileorch.runtime import c_launch

        c = c_launch.module()
    if c is None:
        return _hot_makers[by](kernel)
    memo = c.Memo(pattern, kinds, _TORCH_STREAM_TYPES)
    hot = _hot_makers[by](kernel, memo.record)
    memo.attach(hot)
    memo.python = hot
    return memo


def _tensor_class(t: type) -> bool:
    torch = sys.modules.get("torch")
    tensor = getattr(torch, "Tensor", None) if torch is not None else None
    return isinstance(tensor, type) and issubclass(t, tensor)


def pattern_reader(pattern: tuple[type, ...]) -> Callable[..., tuple | None] | None:
    """A function computing :func:`call_key` for calls whose arguments are of the classes of
    ``pattern``, by generated straight-line code: torch tensors (subclasses included) and
    ``float``, ``int``, ``bool`` read in place, any other class as :func:`_array_key` reads an
    array that is no torch tensor (its ``__cuda_array_interface__``, inlined: None when it has
    none or a malformed one, as :func:`call_key` gives); a call of any other shape is handed to
    :func:`call_key`.  None for a pattern of scalar subclasses (an ``IntEnum``, a numpy scalar):
    :func:`call_key` alone reads those.  A class that is no torch tensor class now never becomes
    one (the readers are kept per torch tensor class, :func:`learn`)."""
    generated = _generate(pattern)
    return None if generated is None else generated[0]


def hot_launcher(kernel: Any, pattern: tuple[type, ...]) -> Callable[..., Any] | None:
    """``hot(stream, grid, args, arch, schedule, tiles)`` for ``kernel``'s calls with arguments of
    the classes of ``pattern`` (None where :func:`pattern_reader` gives none).  It computes the
    call's key as :func:`pattern_reader`'s function does (a call of another shape: as
    :func:`generic_hot` does) and then

    * the key equal to that of the last call it launched (tuple equality, no hash): that launch,
    * the key differing from it in the arrays' pointers only, of the alignments and overlaps of
      a layout with a pointer launcher (:func:`keep_layout`'s ``go``): that launch with these
      pointers, nothing bound (:func:`_hot_found`),
    * else the launch bound under the key (:data:`bound_launches`), the layout's pointer launcher,
      or a launch re-pointed for it (:func:`rebound`; the split of the key into layout and
      pointers generated for the pattern), which becomes the last call's,

    enqueued on ``stream``'s handle (:func:`stream_handle`), and returns True; otherwise it
    launches nothing and returns the key (None: no key, or an unhashable one)."""
    generated = _generate(pattern)
    return None if generated is None else generated[1](kernel)


def _generate(pattern: tuple[type, ...]) -> tuple[Callable[..., tuple | None], Callable[[Any], Any]] | None:
    """(:func:`pattern_reader`'s function, the maker of :func:`hot_launcher`'s functions) for
    ``pattern``, from one generated source: both compute the key with the same expression."""
    names = [f"a{i}" for i in range(len(pattern))]
    facts, tests, cais, pointers = [], [], [], []  # pointers: the key's positions of array pointers
    for i, (name, t) in enumerate(zip(names, pattern)):
        tests.append(f"type({name}) is T{i}")
        if t is float:
            facts += [f"T{i}", f"{name} if {name} else str({name})"]  # call_key's float facts
        elif t is int or t is bool:
            facts += [f"T{i}", name]
        elif _tensor_class(t):
            pointers.append(5 + len(facts) + 1)
            facts += [f"T{i}", f"{name}.data_ptr()", f"{name}.shape", f"{name}.stride()", f"{name}.dtype",
                      f"{name}.device"]
        elif issubclass(t, (int, float)):
            return None
        else:  # _array_key's facts of an array with __cuda_array_interface__
            cais.append(i)
            pointers.append(5 + len(facts) + 1)
            # a tuple shape or strides taken as they are (tuple() of a tuple is the tuple itself: the
            # same key, without the call)
            facts += ['"cai"', f'c{i}["data"][0]', f'(h{i} if type(h{i} := c{i}["shape"]) is tuple else tuple(h{i}))',
                      f'None if s{i} is None else s{i} if type(s{i}) is tuple else tuple(s{i})',
                      f'((c{i}["typestr"], "read-only") if c{i}["data"][1] else c{i}["typestr"])']
    key = f"(kernel, grid, arch, schedule, tiles{''.join(', ' + f for f in facts)})"

    def body(indent: str, found: str, missing: str, compute: Callable[[str], str] | None = None) -> str:
        """The statements computing ``key`` (or what ``compute(indent)`` gives) for a call of the
        pattern, then ``found`` (None when an array interface is malformed: ``missing``)."""
        if compute is None:
            compute = lambda ind: f"{ind}key = {key}\n"  # noqa: E731
        if not cais:
            return compute(indent) + found
        # the attribute read in place (no getattr call); a missing one is what getattr's None
        # gives (no key), any other exception of the read propagates as it does from getattr
        return (f"{indent}try:\n"
                + "".join(f'{indent}    c{i} = a{i}.__cuda_array_interface__\n' for i in cais)
                + f"{indent}except AttributeError:\n"
                + f"{indent}    {missing}\n"
                + f"{indent}if {' and '.join(f'type(c{i}) is dict' for i in cais)}:\n"
                + f"{indent}    try:\n"
                + "".join(f'{indent}        s{i} = c{i}.get("strides")\n' for i in cais)
                + compute(indent + "        ")
                + f"{indent}    except (KeyError, TypeError, IndexError):\n"
                + f"{indent}        {missing}\n"
                + f"{indent}else:\n"
                + f"{indent}    {missing}\n"
                + found)

    unpack = f"{', '.join(names)}{',' if len(names) == 1 else ''} = args" if names else "pass"
    head = f"if type(args) is tuple and len(args) == {len(pattern)} and plain_grid(grid):"
    # the hot launcher: the grid object of the last launched call's key was checked then
    hot_head = (f"if type(args) is tuple and len(args) == {len(pattern)} and "
                "(grid is entry[2] or plain_grid(grid)):")
    test = " and ".join(tests) or "True"
    if pointers:
        ps = [f"p{j}" for j in range(len(pointers))]
        split = ("def split(key):\n"
                 + "".join(f"    {p} = key[{pos}]\n" for pos, p in zip(pointers, ps))
                 + f"    if {' or '.join(f'type({p}) is not int' for p in ps)}:\n"
                 + "        return layout_of(key)\n"
                 + "    layout = list(key)\n"
                 + "".join(f"    layout[{pos}] = 16 if not {p} & 15 else {p} & -{p}\n"
                           for pos, p in zip(pointers, ps))
                 + f"    return tuple(layout), ({', '.join(ps)},)\n")
    else:
        split = "split = layout_of\n"
    source = (
        "def read(kernel, grid, args, arch, schedule, tiles):\n"
        f"    {head}\n"
        f"        {unpack}\n"
        f"        if {test}:\n"
        + body("            ", "            return key\n", "return None")
        + "    return call_key(kernel, grid, args, arch, schedule, tiles)\n"
        + split
        + "def make(kernel, record=None):\n"
        "    # the last call launched (one tuple: read whole): its hk (_hot_facts), its launch, its grid\n"
        "    # (checked then), its layout's launch through pointers (keep_layout's go), the layout's\n"
        "    # alignments and what checks the arrays' overlaps (_hot_found)\n"
        "    last = ((None,) * 65, None, NO_GRID, None, None, None, None, None, None)\n"
        "\n"
        "    # the last torch stream object launched on and its handle (one tuple: read whole); a torch\n"
        "    # stream's handle is fixed for its life, which the reference held here extends\n"
        "    streamed = (None, 0)\n"
        "\n"
        "    def hot(stream, grid, args, arch, schedule, tiles):\n"
        "        nonlocal last, streamed\n"
        "        entry = last\n"
        f"        {hot_head}\n"
        f"            {unpack}\n"
        f"            if {test}:\n"
        + body("                ", _hot_found(5 + len(facts), pointers, "                "), "return None",
               lambda ind: _hot_facts(key, facts, pointers, ind))
        + "        return generic_hot(kernel, stream, grid, args, arch, schedule, tiles)\n"
        "\n"
        "    return hot\n"
    )
    namespace: dict[str, Any] = {f"T{i}": t for i, t in enumerate(pattern)}
    namespace.update(call_key=call_key, layout_of=layout_of, bound_get=bound_launches.get, module=sys.modules[__name__],
                     generic_hot=generic_hot,
                     plain_grid=plain_grid, NO_GRID=object(),
                     stream_types=_TORCH_STREAM_TYPES, stream_handle=stream_handle, layouts_get=_layouts.get,
                     overlaps=_overlaps, masks=_masks)
    exec(compile(source, f"<cutile_bound key reader {len(pattern)} arguments>", "exec"), namespace)
    return namespace["read"], namespace["make"]


def streamed_source(indent: str) -> str:
    """The generated statements setting ``handle`` to ``stream``'s handle (an int as it is; the
    last torch stream's handle held in ``streamed``, read by :func:`stream_handle` (its device checked)
    when the stream object changes; :func:`stream_handle` otherwise)."""
    return (f"{indent}if type(stream) is int:\n"
            f"{indent}    handle = stream\n"
            f"{indent}else:\n"
            f"{indent}    held = streamed\n"
            f"{indent}    if stream is held[0]:\n"
            f"{indent}        handle = held[1]\n"
            f"{indent}    elif type(stream) in stream_types:  # (checked once per stream object: device 0)\n"
            f"{indent}        handle = stream_handle(stream)\n"
            f"{indent}        streamed = (stream, handle)\n"
            f"{indent}    else:\n"
            f"{indent}        handle = stream_handle(stream)\n")


def _masks(alignments: tuple[int, ...]) -> tuple[int, ...]:
    """(mask, value) per pointer alignment (as :func:`layout_of` writes it: 1, 2, 4, 8 or 16),
    flattened: a pointer ``q`` has that alignment iff ``q & mask == value`` (one ``&`` and one
    compare where computing the alignment takes four operations on a two-digit int)."""
    out: list[int] = []
    for a in alignments:
        out += (15, 0) if a == 16 else (2 * a - 1, a)
    return tuple(out)


def _hot_facts(key: str, facts: list[str], pointers: list[int], indent: str) -> str:
    """The generated statements of a hot launcher computing ``hk``, the call's key in the hot
    launcher's own order: the arrays' pointers read first (``q0``, ``q1``, ...), ``facts`` the
    key without them, ``hk`` ``(q0, q1, ..., facts)`` (the pointers first: calls with other
    arrays differ at the first item): two calls' ``hk`` are equal where their keys are, and
    their ``facts`` where their keys differ in the pointers only.  A call without
    arrays: ``hk`` is its key."""
    if not pointers:
        return f"{indent}hk = {key}\n"
    qs = [f"q{j}" for j in range(len(pointers))]
    rest = [f for k, f in enumerate(facts) if k + 5 not in pointers]
    i = indent
    return ("".join(f"{i}{q} = {facts[pos - 5]}\n" for pos, q in zip(pointers, qs))
            + f"{i}facts = (kernel, grid, arch, schedule, tiles{''.join(', ' + f for f in rest)})\n"
            + f"{i}hk = ({', '.join(qs)}, facts)\n")


def _hot_found(n: int, pointers: list[int], indent: str) -> str:
    """The generated statements of a hot launcher once ``hk`` is known (:func:`_hot_facts`;
    ``n``: the key's length, the pointers at the positions ``pointers``):

    * the last call's ``hk``: its launch;
    * its facts (one tuple compare), int pointers (not the bound call's) of the alignments and
      overlaps the last call's layout had (two arrays at p and q overlap iff ``lo0 - hi1 < q - p < hi0 - lo1``:
      one chained compare) and a launch through pointers for that layout: that launch with the
      call's pointers written into a parameter buffer (keep_layout's ``go``: nothing bound or
      kept per call);
    * otherwise the key (:func:`call_key`'s order) built from the facts and pointers, looked up
      in :data:`bound_launches`, the layout in :data:`_layouts`: the bound launch, or the
      layout's launch through pointers, or one re-pointed by :func:`rebound`, which becomes the
      last call's; none: the launcher returns the key (None for an unhashable one).

    Then the launch on the stream's handle, and the launcher returns True."""
    i = indent
    stream = streamed_source(i)
    if not pointers:
        return (f"{i}if hk == entry[0]:\n"
                f"{i}    launch = entry[1]\n"
                f"{i}    fresh = False\n"
                f"{i}else:\n"
                f"{i}    fresh = True\n"
                f"{i}    key = hk\n"
                f"{i}    try:\n"
                f"{i}        launch = bound_get(key)\n"
                f"{i}    except TypeError:\n"
                f"{i}        return None\n"
                f"{i}    if launch is None:\n"
                f"{i}        launch = module.rebound(key, split)\n"  # read at the call: tests replace it
                f"{i}        if launch is None:\n"
                f"{i}            return key\n"
                f"{i}    last = (hk, launch, grid, None, None, None, None, None, None)\n"
                + stream + f"{i}if fresh and record is not None:  # (the C memo of this call, c_launch.Memo)\n"
                f"{i}    record(stream, grid, args, arch, schedule, tiles, launch, stream if stream is streamed[0] else None, "
                "handle, None)\n" + f"{i}launch(handle)\n{i}return True\n")
    qs = [f"q{j}" for j in range(len(pointers))]
    # (a null pointer never takes a re-pointed launch: the full path refuses it for a non-empty array)
    ints = " and ".join(f"type({q}) is int and {q}" for q in qs)
    alignments = "(" + "".join(f"(16 if not {q} & 15 else {q} & -{q}), " for q in qs) + ")"
    if len(qs) == 2:
        same = "(entry[4] < q1 - q0 < entry[5]) is entry[6]"
        found_same = "((pair := found[5])[0] < q1 - q0 < pair[1]) is pair[2]"
        moved = "found[3], pair[0], pair[1], pair[2], masks(al), found[4]"
    elif len(qs) == 1:
        same, found_same, moved = "True", "True", "found[3], None, None, None, masks(al), found[4]"
    else:
        same = f"overlaps(({', '.join(qs)},), entry[4]) == entry[5]"
        found_same = f"overlaps(({', '.join(qs)},), found[1]) == found[2]"
        moved = "found[3], found[1], found[2], None, masks(al), found[4]"
    key_items, layout_items, k = [], [], 0
    for pos in range(n):
        if pos in pointers:
            q = qs[pointers.index(pos)]
            key_items.append(q)
            layout_items.append(f"al[{pointers.index(pos)}]")
        else:
            key_items.append(f"facts[{k}]")
            layout_items.append(f"facts[{k}]")
            k += 1
    ptrs = f"({', '.join(qs)},)"
    return (f"{i}if hk == entry[0]:\n"
            f"{i}    launch = entry[1]\n"
            f"{i}    fresh = False\n"
            f"{i}else:\n"
            f"{i}    fresh = True\n"
            f"{i}    if (entry[3] is not None and facts == entry[0][{len(qs)}] and {ints}\n"
            f"{i}            and {' and '.join(f'{q} & (mv := entry[7])[{2 * j}] == mv[{2 * j + 1}]' if j == 0 else f'{q} & mv[{2 * j}] == mv[{2 * j + 1}]' for j, q in enumerate(qs))}\n"
            f"{i}            and {same} and (ptrs := {ptrs}) != entry[8]):\n"
            + streamed_source(i + "        ")
            + f"{i}        entry[3](handle, ptrs)\n"
            f"{i}        return True\n"
            f"{i}    key = ({', '.join(key_items)})\n"
            f"{i}    try:\n"
            f"{i}        launch = bound_get(key)\n"
            f"{i}    except TypeError:\n"
            f"{i}        return None\n"
            f"{i}    found = None\n"
            f"{i}    if {ints}:\n"
            f"{i}        al = {alignments}\n"
            f"{i}        try:\n"
            f"{i}            found = layouts_get(({', '.join(layout_items)}))\n"
            f"{i}        except TypeError:\n"
            f"{i}            pass\n"
            f"{i}        if found is not None and (found[3] is None or not {found_same}):\n"
            f"{i}            found = None\n"
            f"{i}    if launch is not None:\n"
            f"{i}        last = ((hk, launch, grid, None, None, None, None, None, None) if found is None else\n"
            f"{i}                (hk, launch, grid, {moved}))\n"
            f"{i}    elif found is not None:\n"
            f"{i}        last = (({'None, ' * len(qs)}facts), None, grid, {moved})\n"  # equal to no call's hk
            + streamed_source(i + "        ")
            + f"{i}        if record is not None:  # (the C memo of this call: launched through its layout)\n"
            f"{i}            record(stream, grid, args, arch, schedule, tiles, None, "
            "stream if stream is streamed[0] else None, handle, found)\n"
            + f"{i}        found[3](handle, {ptrs})\n"
            f"{i}        return True\n"
            f"{i}    else:\n"
            f"{i}        launch = module.rebound(key, split)\n"  # read at the call: tests replace it
            f"{i}        if launch is None:\n"
            f"{i}            return key\n"
            f"{i}        last = (hk, launch, grid, None, None, None, None, None, None)\n"
            + stream
            + f"{i}if fresh and record is not None:  # (the C memo of this call and its layout, c_launch.Memo)\n"
                f"{i}    record(stream, grid, args, arch, schedule, tiles, launch, stream if stream is streamed[0] else None, "
                "handle, found)\n"
            + f"{i}launch(handle)\n"
            f"{i}return True\n")


def _lookup(key: tuple, split: Callable[[tuple], tuple | None] | None = None) -> Callable[[int], None] | None | bool:
    """The launch bound under ``key``, or re-pointed for it (:func:`rebound`); None when there is
    none, False for an unhashable key."""
    try:
        launch = bound_launches.get(key)
    except TypeError:
        return False
    return launch if launch is not None else rebound(key, split)


def generic_hot(kernel: Any, stream: Any, grid: Any, args: Any, arch: str, schedule: str, tiles: str) -> Any:
    """:func:`hot_launcher`'s contract for a kernel without a learnt pattern, through
    :func:`call_key` and :data:`bound_launches` (no last call)."""
    key = call_key(kernel, grid, args, arch, schedule, tiles)
    if key is None:
        return None
    launch = _lookup(key)
    if not launch:
        return key if launch is None else None
    if type(stream) is int:
        launch(stream)
        return True
    held = _generic_streamed[0]
    if stream is held[0]:
        launch(held[1])
        return True
    handle = stream_handle(stream)  # a new stream object: its device checked (device 0), once
    if type(stream) in _TORCH_STREAM_TYPES:  # a torch stream's handle is fixed for its life
        _generic_streamed[0] = (stream, handle)
    launch(handle)
    return True


_TORCH_STREAM_TYPES: set[type] = set()  # torch.cuda.Stream and ExternalStream, once seen
# generic_hot's last torch stream object and its handle (one tuple, read and replaced whole): the same
# object again is not read (nor its device checked) again; a new one goes through stream_handle
_generic_streamed: list[tuple[Any, int]] = [(None, 0)]


def _require_stream_on_device_0(stream: Any) -> None:
    """Kernels run on device 0 (as its arrays must be): a stream object that says it belongs to
    another device (torch's ``device_index``, cupy's ``device_id``, or a ``device`` with an ``index`` or a
    ``device_id``: cuda.core's) is refused with a
    ValueError; the driver would reject the launch into another context's stream, or order it
    after nothing the user meant.  Objects that do not say (ints, CUstreams) pass."""
    index = getattr(stream, "device_index", None)  # torch
    if index is None:
        index = getattr(stream, "device_id", None)  # cupy
    if index is None:
        device = getattr(stream, "device", None)  # a device object: torch's index, cuda.core's / cupy's device_id
        index = device if isinstance(device, int) else getattr(device, "index", None)
        if index is None:
            index = getattr(device, "device_id", None)
    if isinstance(index, int) and not isinstance(index, bool) and index != 0:
        raise ValueError(f"stream {stream!r} is on cuda:{index}; tileorch.cutile.launch runs kernels on device 0 "
                         "(cuda:0): launch on a stream of device 0 (torch.cuda.current_stream(0)), or make the GPU "
                         "device 0 with CUDA_VISIBLE_DEVICES")


def stream_handle(stream: Any) -> int:
    """The CUstream handle of ``stream``: an int, ``None`` (the legacy default stream), a torch or
    cupy stream, an object with ``__cuda_stream__`` or ``cuda_stream``, or a ``CUstream``."""
    if type(stream) in _TORCH_STREAM_TYPES:  # their __cuda_stream__() is (0, cuda_stream)
        _require_stream_on_device_0(stream)
        return stream.cuda_stream
    if stream is None:
        return 0
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream < 0:  # was handed to the driver after the compile (an invalid handle)
            raise ValueError(f"stream handle must be a non-negative int (0: the default stream), got {stream}")
        return stream
    if isinstance(stream, (float, bool, str, bytes)):  # int(0.5) was the default stream, silently
        raise TypeError(f"stream must be a CUDA stream (torch/cupy stream, CUstream or int handle), "
                        f"got {type(stream).__name__} {stream!r}")
    torch_cuda = sys.modules.get("torch.cuda")
    if torch_cuda is not None and type(stream) in (getattr(torch_cuda, "Stream", None),
                                                   getattr(torch_cuda, "ExternalStream", None)):
        _TORCH_STREAM_TYPES.add(type(stream))
        _require_stream_on_device_0(stream)
        return stream.cuda_stream
    _require_stream_on_device_0(stream)
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return int(proto()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise TypeError(f"stream must be a CUDA stream (torch/cupy stream, CUstream or int handle), "
                        f"got {type(stream).__name__}") from None


def keep(key: tuple, launch: Callable[[int], None]) -> None:
    """Bind ``launch`` (a callable taking the stream handle that enqueues the same launch again)
    under ``key``; past :data:`BOUND_MAX` the oldest one is dropped."""
    try:
        bound_launches[key] = launch
    except TypeError:  # an unhashable key is never looked up either
        return
    if len(bound_launches) > BOUND_MAX:  # one over after one insertion (more only from racing threads)
        del bound_launches[next(iter(bound_launches))]
        while len(bound_launches) > BOUND_MAX:
            del bound_launches[next(iter(bound_launches))]


def layout_of(key: tuple) -> tuple[tuple, tuple[int, ...]] | None:
    """``key`` (of :func:`call_key`) with each array's pointer replaced by its alignment (the
    largest power of two, at most 16, dividing it; 16 for a null pointer), and the pointers in
    argument order; None for a call without arrays.  Two calls of one layout key differ in
    their arrays' addresses only, and in nothing else the kernel variant depends on but the
    arrays' overlaps (:func:`rebound` checks those)."""
    layout, pointers = list(key[:5]), []
    i, n = 5, len(key)
    while i < n:
        tag = key[i]
        width = 2 if tag is float or tag is int or tag is bool else 5 if tag == "cai" else 6
        ptr = key[i + 1] if width > 2 else None
        if type(ptr) is not int:  # a scalar's facts
            layout += key[i:i + width]
        else:
            pointers.append(ptr)
            layout += (tag, 16 if not ptr & 15 else ptr & -ptr, *key[i + 2:i + width])  # min(16, ptr & -ptr); 0: 16
        i += width
    return (tuple(layout), tuple(pointers)) if pointers else None


_NO_PAIRS: frozenset = frozenset()
_FIRST_PAIR = frozenset({(0, 1)})
_SAME_FIRST_PAIR = frozenset({(0, 1), ("same", 0, 1)})
_SAME_ONLY = frozenset({("same", 0, 1)})


def _overlaps(pointers: tuple[int, ...], extents: tuple[tuple[int, int], ...]) -> frozenset:
    """The pairs ``(i, j)`` of arrays whose byte ranges ``[ptr + lo, ptr + hi)`` overlap, and ``("same", i, j)``
    for those at the same address: a launch bound for an in-place call (an output given as its input, which
    the full path takes) is re-pointed only onto another in-place call, never onto arrays that overlap
    shifted (which the full path refuses where the kernel writes one: ``check_written_arguments``)."""
    n = len(pointers)
    if n < 2:
        return _NO_PAIRS
    if n == 2:  # the common case, without the generic loops
        (p, q), ((lo0, hi0), (lo1, hi1)) = pointers, extents
        if p == q:
            return _SAME_FIRST_PAIR if p + lo0 < q + hi1 and q + lo1 < p + hi0 else _SAME_ONLY
        return _FIRST_PAIR if p + lo0 < q + hi1 and q + lo1 < p + hi0 else _NO_PAIRS
    ranges = [(p + lo, p + hi) for p, (lo, hi) in zip(pointers, extents)]
    return frozenset([(i, j) for i in range(n) for j in range(i + 1, n)
                      if ranges[i][0] < ranges[j][1] and ranges[j][0] < ranges[i][1]]
                     + [("same", i, j) for i in range(n) for j in range(i + 1, n) if pointers[i] == pointers[j]])


def keep_layout(key: tuple, repoint: Callable[[tuple[int, ...]], Callable[[int], None]],
                extents: tuple[tuple[int, int], ...],
                go: Callable[[int, tuple[int, ...]], None] | None = None) -> None:
    """Let calls of ``key``'s layout with other pointers re-point the launch bound under ``key``:
    ``repoint(pointers)`` gives the launch with the arrays at ``pointers`` (everything else as
    bound); ``extents``: each array's bytes ``(lo, hi)`` relative to its pointer.  ``go(stream,
    pointers)`` (optional; :meth:`~tileorch.runtime.launch.BoundLaunch.pointer_launcher`) enqueues
    that launch without binding one: the hot launchers re-point through it (nothing made or kept
    per call); without it they re-point through :func:`rebound`."""
    found = layout_of(key)
    if found is None:
        return
    layout, pointers = found
    try:
        overlaps = _overlaps(pointers, extents)
        if any(p[0] != "same" and ("same", *p) not in overlaps for p in overlaps):
            # arrays whose byte ranges overlap at different addresses (column halves of one buffer: the full
            # path took them, their elements apart): no layout kept, so a later call shifted onto shared
            # elements with the same shapes and strides takes the full path's check, never a re-pointing
            return
        pair = None
        if len(pointers) == 2:  # the pair's overlap as a range of q - p (see _moved_source)
            (lo0, hi0), (lo1, hi1) = extents
            # (one address: only q - p == 0 keeps the layout, an in-place call re-pointed onto another)
            pair = (-1, 1, True) if pointers[0] == pointers[1] else (lo0 - hi1, hi0 - lo1, bool(overlaps))
        _layouts[layout] = (repoint, extents, overlaps, go, pointers, pair)
    except TypeError:  # unhashable
        return
    while len(_layouts) > BOUND_MAX:
        _layouts.popitem(last=False)


def rebound(key: tuple, split: Callable[[tuple], tuple | None] | None = None) -> Callable[[int], None] | None:
    """The launch of a call whose key differs from a re-pointable bound one's in the arrays'
    addresses only (same alignments, same overlaps between the arrays: the same kernel variant),
    bound under ``key`` (:func:`keep`); None when there is none.  ``split``: a function giving
    what :func:`layout_of` gives for ``key`` (generated for the key's pattern, :func:`hot_launcher`)."""
    found = layout_of(key) if split is None else split(key)
    if found is None:
        return None
    layout, pointers = found
    if 0 in pointers:  # a null pointer: the full path's check (refused for a non-empty array)
        return None
    entry = _layouts.get(layout)
    if entry is None:
        return None
    repoint, extents, overlaps = entry[:3]
    if _overlaps(pointers, extents) != overlaps:  # other alias groups: another kernel variant
        return None
    launch = repoint(pointers)
    keep(key, launch)
    return launch


def clear() -> None:
    bound_launches.clear()
    _readers.clear()
    _pattern_readers.clear()
    hot_launchers.clear()
    _hot_makers.clear()
    last_hot[0] = (None, None)
    _generic_streamed[0] = (None, 0)
    _layouts.clear()
