"""Issue 21, item 1 (op coverage), audited against cuTile 1.7 itself, GPU-free.

* Every op cuTile 1.7's bytecode writer has (``cuda.tile._bytecode.encodings``: one ``encode_*Op``
  per op, its opcode) is either lowered by ``convert-cudatile-to-tileaa`` (its ``LOWERED``, the
  list "Ops that lower" in docs/cuda-tile.md) or a row of the docs' table of ops that do not
  lower, with the reason; the docs' lowered list is ``LOWERED``.
* Real cuTile programs reach every op kind the Python API emits: each compiles through
  tileorch, or stops with a located error (at this file's line) naming a cuda_tile op of that
  table as not supported, never an internal error or a verification failure.  Together the
  programs reach every op cuTile's Python front end emits (``EMITTED_ELSEWHERE`` names the few
  reached only through another op that fails first).
* ``fpowi`` (``x ** n``), ``insert`` and grid dependency control, lowered here, compute the right
  values (the CPU interpreter of the lowered kernel against numpy).
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

from tileorch.testing.op_programs import grid_dependency, inserting, powers  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cuda-tile.md"


def _f32(*shape):
    return (shape, "float32")


def _i32(*shape):
    return (shape, "int32")


# ---------------------------------------------------------------------- programs, by op kind
@ct.kernel
def float_math(x, y, z, n: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    u = ct.load(y, index=(i,), shape=(n,))
    a = ct.exp(t) + ct.exp2(t) + ct.log(ct.abs(t) + 1.0) + ct.log2(ct.abs(u) + 1.0) + ct.sin(t) + ct.cos(u)
    b = ct.tan(t * 0.1) + ct.sinh(t) + ct.cosh(u) + ct.tanh(t) + ct.sqrt(ct.abs(u)) + ct.rsqrt(ct.abs(t) + 1.0)
    c = ct.floor(t) + ct.ceil(u) + ct.pow(ct.abs(t), u) + ct.atan2(t, u) + ct.maximum(t, u) - ct.minimum(t, u)
    d = ct.where(ct.isnan(t), 0.0, t % 3.0) + t / (u * u + 1.0) - t ** 3 + (-u) * t + u
    e = ct.bitcast(ct.bitcast(t, ct.int32), ct.float32)
    ct.store(z, index=(i,), tile=a + b + c + d + e)


@ct.kernel
def int_math(x, y, z, w, n: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    u = ct.load(y, index=(i,), shape=(n,)) | 1
    a = (t + u) * (t - u) + t // u + t % u + ct.abs(t) - (-u) + (t & u) + (t ^ u) + (~t) + (t << 2) + (t >> 1)
    b = ct.maximum(t, u) + ct.minimum(t, u) + ct.where(t > u, t, u) + (t == u).astype(ct.int32)
    f = (a + b).astype(ct.float32).astype(ct.float16)
    ct.store(z, index=(i,), tile=(a + b).astype(ct.int64).astype(ct.int16).astype(ct.int32))
    ct.store(w, index=(i,), tile=f.astype(ct.float32).astype(ct.int32).astype(ct.float32))


@ct.kernel
def shapes(x, y, m: ct.Constant[int], n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(m, n))
    r = ct.reshape(ct.permute(ct.reshape(t, (m, n // 2, 2)), (1, 0, 2)), (n // 2, 2 * m))
    s = ct.transpose(ct.reshape(r, (n, m))) + ct.broadcast_to(ct.expand_dims(ct.arange(n, dtype=ct.float32), 0),
                                                               (m, n))
    half = ct.extract(s, (0, 0), (m, n // 2))
    whole = ct.cat((half, ct.full((m, n // 2), 1.0, dtype=ct.float32)), 1) + ct.zeros((m, n), dtype=ct.float32)
    ct.store(y, index=(ct.bid(0), 0), tile=whole)


@ct.kernel
def reductions_and_scans(x, y, z, m: ct.Constant[int], n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(m, n))
    r = ct.sum(t, axis=1) + ct.prod(t, axis=1) + ct.max(t, axis=1) + ct.min(t, axis=1)
    r = r + ct.argmax(t, axis=1).astype(ct.float32) + ct.argmin(t, axis=1).astype(ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=r)
    ct.store(z, index=(ct.bid(0), 0), tile=ct.cumsum(t, axis=1) + ct.cumprod(t, axis=1))


@ct.kernel
def control_flow(x, y, tn: ct.Constant[int]):
    row = ct.bid(0)
    acc = ct.zeros((tn,), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(1, tn))):
        acc = acc + ct.reshape(ct.load(x, index=(row, j), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO), (tn,))
    k = 0
    while k < 4:
        k += 1
        if k == 2:
            continue
        if ct.sum(acc, axis=0) > 1e30:
            break
        acc = acc * 0.5
    if row < ct.num_blocks(0) - 1:
        acc = acc + x.shape[1]
    else:
        acc = acc - 1.0
    ct.store(y, index=(row, 0), tile=ct.reshape(acc, (1, tn)))


@ct.kernel
def pointers(x, idx, y, counts, n: ct.Constant[int]):
    i = ct.load(idx, index=(ct.bid(0),), shape=(n,))
    g = ct.gather(x, i, mask=i >= 0, padding_value=-1.0)
    ct.scatter(y, i, g * 2.0)
    ct.atomic_add(counts, i % 8, ct.full((n,), 1, dtype=ct.int32))
    ct.atomic_cas(counts, 8, 0, 1)
    ct.atomic_xchg(counts, 9, 5)
    raw = y.get_raw_memory().load_offset(ct.arange(n, dtype=ct.int32))  # a padding value, no mask
    part = ct.load(x.slice(0, 8, 8 + 2 * n), index=(0,), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=raw + part)


@ct.kernel
def advanced_indexing(x, idx, y, n: ct.Constant[int]):
    i = ct.load(idx, index=(0,), shape=(n,))
    ct.store(y, index=(0, 0), tile=ct.load_advanced_indexing(x, (i, ct.Slice(0, n))))


@ct.kernel
def dots(a, b, c, p, q, r, n: ct.Constant[int]):
    x, y = ct.load(a, index=(0, 0), shape=(n, n)), ct.load(b, index=(0, 0), shape=(n, n))
    ct.store(c, index=(0, 0), tile=ct.mma(x, y, ct.zeros((n, n), dtype=ct.float32)))
    ct.store(r, index=(0, 0), tile=ct.matmul(ct.load(p, index=(0, 0), shape=(n, n)),
                                             ct.load(q, index=(0, 0), shape=(n, n))).astype(ct.int32))


@ct.kernel
def printing(x, n: ct.Constant[int]):
    ct.print(ct.load(x, index=(ct.bid(0),), shape=(n,)))


@ct.kernel
def printing_f(x, n: ct.Constant[int]):
    ct.printf("block %d\n", ct.bid(0))


@ct.kernel
def asserting(x, n: ct.Constant[int]):
    ct.assert_(ct.max(ct.load(x, index=(ct.bid(0),), shape=(n,)), axis=0) < 100.0, "too big")


@ct.kernel
def packing(x, y, n: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.pack_to_bytes(ct.load(x, index=(ct.bid(0),), shape=(n,))))


@ct.kernel
def unpacking(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(4 * n,))
    ct.store(y, index=(ct.bid(0),), tile=ct.unpack_from_bytes(t, ct.float32))


@ct.kernel
def scaled_mma(a, sa, b, sb, c, n: ct.Constant[int]):
    x = ct.load(a, index=(0, 0), shape=(n, n))
    y = ct.load(b, index=(0, 0), shape=(n, n))
    xs = ct.load(sa, index=(0, 0), shape=(n, 4))
    ys = ct.load(sb, index=(0, 0), shape=(4, n))
    ct.store(c, index=(0, 0), tile=ct.mma_scaled(x, xs, y, ys, ct.zeros((n, n), dtype=ct.float32)))


@ct.kernel
def strided_view(x, y, n: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=x.tiled_view((n,), traversal_steps=(n // 2,)).load((ct.bid(0),)))


@ct.kernel
def view_atomic(x, y, n: ct.Constant[int]):
    y.tiled_view((n,)).atomic_store_add((ct.bid(0),), ct.load(x, index=(ct.bid(0),), shape=(n,)))


LOWERS = {
    "float_math": (float_math, [_f32(256), _f32(256), _f32(256), 256]),
    "int_math": (int_math, [_i32(256), _i32(256), _i32(256), _f32(256), 256]),
    "shapes": (shapes, [_f32(64, 16), _f32(64, 16), 4, 16]),
    "reductions_and_scans": (reductions_and_scans, [_f32(64, 64), _f32(64), _f32(64, 64), 4, 64]),
    "control_flow": (control_flow, [_f32(8, 1000), _f32(8, 256), 256]),
    "pointers": (pointers, [_f32(512), _i32(512), _f32(512), _i32(16), 128]),
    "advanced_indexing": (advanced_indexing, [_f32(64, 64), _i32(64), _f32(64, 64), 64]),
    "dots": (dots, [((64, 64), "float16"), ((64, 64), "float16"), _f32(64, 64), ((64, 64), "int8"),
                    ((64, 64), "int8"), _i32(64, 64), 64]),
    "grid_dependency": (grid_dependency, [_f32(256), _f32(256), 128]),
    "powers": (powers, [_f32(256), _i32(256), _f32(256), _f32(256), _f32(256), _f32(256), _f32(256), 128]),
    "inserting": (inserting, [_f32(640), _f32(640), _f32(40, 16), 128]),
    "strided_view": (strided_view, [_f32(256), _f32(128), 64]),
    "asserting": (asserting, [_f32(256), 256]),
    "view_atomic": (view_atomic, [_f32(256), _f32(256), 64]),
    "packing": (packing, [_f32(256), ((1024,), "uint8"), 256]),
    "unpacking": (unpacking, [((1024,), "uint8"), _f32(256), 256]),
    "printing": (printing, [_f32(256), 256]),
    "printing_f": (printing_f, [_f32(256), 256]),
}
REFUSED = {  # program -> the cuda_tile op named in its located error
    "scaled_mma": (scaled_mma, [((128, 128), "float8_e4m3fn"), ((128, 4), "float8_e8m0fnu"),
                                ((128, 128), "float8_e4m3fn"), ((4, 128), "float8_e8m0fnu"), _f32(128, 128), 128],
                   "mmaf_scaled"),
}
EMITTED_ELSEWHERE = {
    "global": "the lock of cuTile's print in bytecode before 13.2 (the export writes 13.4: no lock)",
    "get_global": "the lock of cuTile's print in bytecode before 13.2 (the export writes 13.4: no lock)",
    "int_to_ptr": "a list-of-arrays parameter (each item's base pointer loaded as an i64 word), which "
                  "tileorch.cutile.launch refuses (list and tuple parameters) before any compile",
}


# ---------------------------------------------------------------------- the static audit
def _cutile_opcodes() -> dict[str, int]:
    """cuTile's bytecode writer: encoder name -> opcode (the first ``encode_varint`` after its
    ``# Opcode`` comment)."""
    from cuda.tile._bytecode import encodings

    out = {}
    for name, fn in vars(encodings).items():
        if name.startswith("encode_") and name.endswith("Op") and inspect.isfunction(fn):
            m = re.search(r"# Opcode\n\s*encode_varint\((\d+)", inspect.getsource(fn))
            if m:
                out[name] = int(m.group(1))
    return out


def _mnemonic(opcode: int) -> str:
    from tileorch.frontend.bytecode_ops import OPS
    from tileorch.frontend.cuda_tile_bytecode import UNSUPPORTED_OPS

    return OPS[opcode][0] if opcode in OPS else UNSUPPORTED_OPS[opcode][0]


def _docs_not_lowered() -> dict[str, str]:
    """The docs' table of ops that do not lower: op -> reason, read by the op-table tool's reader
    (``tools/cuda_tile_op_table.py``'s ``refusals``, the one reader of that table)."""
    tool = sys.modules.get("cuda_tile_op_table")
    if tool is None:
        spec = importlib.util.spec_from_file_location("cuda_tile_op_table", DOCS.parents[1] / "tools" /
                                                      "cuda_tile_op_table.py")
        tool = importlib.util.module_from_spec(spec)
        sys.modules["cuda_tile_op_table"] = tool
        spec.loader.exec_module(tool)
    return tool.refusals()


def test_every_op_of_cutiles_writer_lowers_or_is_listed_with_a_reason():
    from tileorch.transforms.cudatile_to_tileaa import LOWERED

    opcodes = _cutile_opcodes()
    assert len(opcodes) > 100, "cuTile's encoder table was not read"
    listed = _docs_not_lowered()
    assert all(listed.values()), "every op of the docs' table has a reason"
    unknown = {name: hex(code) for name, code in opcodes.items() if code not in _known_opcodes()}
    assert not unknown, f"cuTile writes ops the bytecode reader does not know: {unknown}"
    missing = sorted(_mnemonic(code) for code in opcodes.values()
                     if _mnemonic(code) not in LOWERED and _mnemonic(code) not in listed)
    assert not missing, f"neither lowered nor in docs/cuda-tile.md's table: {missing}"
    stale = sorted(op for op in listed if op in LOWERED)
    assert not stale, f"listed as not lowering but lowered: {stale}"


def _known_opcodes() -> set[int]:
    from tileorch.frontend.bytecode_ops import OPS
    from tileorch.frontend.cuda_tile_bytecode import UNSUPPORTED_OPS

    return set(OPS) | set(UNSUPPORTED_OPS)


def test_the_docs_list_of_lowered_ops_is_the_converters():
    from tileorch.transforms.cudatile_to_tileaa import LOWERED

    text = DOCS.read_text()
    m = re.search(r"Ops that lower \((\d+)\): (.*?)\(`convert-cudatile-to-tileaa`'s `LOWERED`\)", text, re.S)
    assert m, "the docs' list of lowered ops"
    names = {re.sub(r"\s*\(.*", "", x).strip() for x in re.sub(r"\([^)]*\)", "", m.group(2)).split(",")}
    names.discard("")
    assert names == set(LOWERED) and int(m.group(1)) == len(LOWERED), (sorted(names ^ set(LOWERED)))


# ---------------------------------------------------------------------- through real programs
def _bytecode(kernel, spec) -> bytes:
    from tileorch.testing.export import cutile_bytecode

    return cutile_bytecode(kernel, spec)


def _program_ops(name: str) -> set[str]:
    """The ``cuda_tile`` ops of program ``name``'s bytecode; for a refused program, its listed op
    (an op the reader does not have stops the load) and whatever the reader reaches before it."""
    if name in _SEEN:
        return _SEEN[name]
    if name in LOWERS:
        kernel, spec = LOWERS[name]
        _SEEN[name] = _ops_of(_bytecode(kernel, spec), name)
    else:
        kernel, spec, op = REFUSED[name]
        _SEEN[name] = {op}
        try:
            _SEEN[name] |= _ops_of(_bytecode(kernel, spec), name)
        except Exception:  # the load stops at the op the reader lacks; the program test checks its message
            pass
    return _SEEN[name]


def _ops_of(data: bytes, name: str) -> set[str]:
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    return {op.name.split(".", 1)[1] for op in load(data, name, make_context()).walk()
            if op.name.startswith("cuda_tile.")}


_SEEN: dict[str, set[str]] = {}


@pytest.mark.parametrize("name", sorted(LOWERS))
def test_program_compiles(name):
    from tileorch.driver import compile_program

    kernel, spec = LOWERS[name]
    data = _bytecode(kernel, spec)
    _SEEN[name] = _ops_of(data, name)
    prog = compile_program(data, name, ptxas=False)
    assert f".entry {prog.kernel}(" in prog.ptx


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_program_stops_at_a_listed_op_with_a_located_error(name):
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.driver import compile_program

    kernel, spec, op = REFUSED[name]
    data = _bytecode(kernel, spec)
    _SEEN[name] = {op}  # an op the reader does not have stops the load (its error names it)
    with pytest.raises((LocatedError, CompileError)) as info:
        _SEEN[name] |= _ops_of(data, name)
        compile_program(data, name, ptxas=False)
    message = str(info.value)
    line = Path(__file__).read_text().splitlines().index(f"def {name}(" + _signature(name)) + 1
    assert re.match(rf"{re.escape(__file__)}:(\d+):\d+: error: ", message), message
    assert int(re.match(rf"{re.escape(__file__)}:(\d+)", message).group(1)) > line, "located in the kernel"
    assert f"'cuda_tile.{op}' is not supported yet" in message or f"op '{op}' (opcode" in message, message
    assert "internal error" not in message and "verif" not in message.lower()
    assert op in _docs_not_lowered()


def _signature(name: str) -> str:
    """The rest of ``name``'s ``def`` line in this file."""
    for text in Path(__file__).read_text().splitlines():
        if text.startswith(f"def {name}("):
            return text[len(f"def {name}("):]
    raise AssertionError(name)


def test_the_programs_reach_every_op_cutiles_front_end_emits():
    """The ops in the programs' bytecode cover every op cuTile's Python front end calls an
    encoder for, but those in EMITTED_ELSEWHERE (reads each program's ops itself, so it holds on
    whichever xdist worker runs it)."""
    import cuda.tile as cutile

    for name in [*LOWERS, *REFUSED]:
        _program_ops(name)
    root = Path(cutile.__file__).parent
    called = set()
    for f in root.rglob("*.py"):
        if f.name != "encodings.py":
            called |= set(re.findall(r"\b(encode_\w+Op)\(", f.read_text()))
    opcodes = _cutile_opcodes()
    emitted = {_mnemonic(opcodes[c]) for c in called if c in opcodes} - {"module", "entry"}
    seen = set().union(*_SEEN.values())
    assert not set(EMITTED_ELSEWHERE) & seen, "EMITTED_ELSEWHERE names only ops no program reaches"
    assert not emitted - seen - set(EMITTED_ELSEWHERE), sorted(emitted - seen - set(EMITTED_ELSEWHERE))


# ---------------------------------------------------------------------- values of the new lowerings
def _run(kernel, spec, arrays: dict, grid):
    """Run ``kernel`` in the CPU interpreter on its spec's shapes: ``arrays`` maps argument
    positions to numpy inputs, the other arrays start NaN; returns every array afterwards."""
    from simt_interp import run_cutile

    given = [arrays[i] if i in arrays else np.full(s[0], np.nan, np.float32)
             for i, s in enumerate(spec) if isinstance(s, tuple)]
    return run_cutile(kernel, spec, given, grid)


def test_integer_powers_are_exact_products_and_a_tile_exponent_is_pow():
    rng = np.random.default_rng(3)
    x = rng.uniform(-3, 3, 256).astype(np.float32)
    x[:4] = [0.0, -1.0, 2.0, -0.5]
    e = rng.integers(-3, 4, 256).astype(np.int32)
    _, _, y2, y3, ym2, y0, yn = _run(powers, LOWERS["powers"][1], {0: x, 1: e}, (2, 1, 1))
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(y2, x * x)
    np.testing.assert_array_equal(y3, (x * x) * x)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(ym2, 1.0 / x64 ** 2, rtol=1e-6)
        ref = np.power(x64, e.astype(np.float64))
    np.testing.assert_array_equal(y0, np.ones_like(x))
    np.testing.assert_allclose(yn, ref, rtol=2e-5, atol=1e-6)


def test_grid_dependency_control_is_a_pass_through():
    x = np.arange(256, dtype=np.float32)
    _, y = _run(grid_dependency, LOWERS["grid_dependency"][1], {0: x}, (2, 1, 1))
    np.testing.assert_array_equal(y, x + 1.0)


def test_insert_replaces_the_sub_tile_at_a_static_or_dynamic_grid_index():
    """``ct.insert`` of a 16-element sub-tile at grid index 1, of a 0-d value at 40 (a unit
    sub-tile), and of a (2, 8) sub-tile of an (8, 16) tile at (bid % 4, 1)."""
    x = np.arange(640, dtype=np.float32)
    _, y, z = _run(inserting, LOWERS["inserting"][1], {0: x}, (5, 1, 1))
    ref_y = x.reshape(5, 128).copy()
    ref_y[:, 16:32] = 0.0
    ref_y[:, 40] = 5.0
    np.testing.assert_array_equal(y, ref_y.reshape(640))
    ref_z = x.reshape(5, 8, 16).copy()
    for b in range(5):
        k = b % 4
        ref_z[b, 2 * k:2 * k + 2, 8:16] = -1.0
    np.testing.assert_array_equal(z, ref_z.reshape(40, 16))
