"""``tileorch.dataclass_code``: the code of the methods ``dataclasses`` generates, compiled once
and kept in a file.  A class made with the table behaves as one made without it; a text the
file holds is not compiled again; a missing, foreign or corrupt file is an empty table; the
file is written only where bytecode may be (or when forced), and ``dataclasses`` gets the
builtin ``exec`` back."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from tileorch import dataclass_code


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A fresh table in ``tmp_path``; uninstalled afterwards, whatever the test did."""
    dataclass_code.uninstall()
    monkeypatch.setattr(dataclass_code, "cache_path", lambda: tmp_path / "dc.marshal")
    yield tmp_path / "dc.marshal"
    dataclass_code.uninstall()


def make_point():
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2

    return Point


def test_classes_behave_as_without_the_table(table):
    plain = make_point()
    assert dataclass_code.install()
    cached = make_point()
    assert dataclass_code.stats()["compiled"] > 0  # __init__, __repr__, __eq__, __hash__, __setattr__ ...
    for cls in (plain, cached):
        p = cls(1)
        assert (repr(p), p == cls(1, 2), p == cls(1, 3), hash(p) == hash(cls(1))) == ("make_point.<locals>.Point(x=1, y=2)",
                                                                                        True, False, True)
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 3
        with pytest.raises(TypeError):
            cls()


def test_a_saved_text_is_not_compiled_again(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert dataclass_code.install()
    make_point()
    compiled = dataclass_code.stats()["compiled"]
    assert dataclass_code.save() and table.exists()
    dataclass_code.uninstall()
    assert "exec" not in vars(dataclasses)
    assert dataclass_code.install()
    assert dataclass_code.stats() == {"loaded": compiled, "compiled": 0}
    assert make_point()(5).x == 5
    assert dataclass_code.stats()["compiled"] == 0  # every text found in the file
    assert not dataclass_code.save()  # nothing new: not written again


def test_not_written_where_bytecode_is_not(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    dataclass_code.install()
    make_point()
    assert not dataclass_code.save() and not table.exists()
    assert dataclass_code.save(force=True) and table.exists()


@pytest.mark.parametrize("content", [b"", b"garbage", b"tileorch-dataclass-code\0" + b"\0\0\0\0" + b"x",
                                     None])
def test_a_foreign_or_corrupt_file_is_an_empty_table(table, content, monkeypatch):
    if content is None:  # the right header for another interpreter's bytecode
        import marshal

        content = b"tileorch-dataclass-code\0" + b"\x01\x02\x0d\x0a" + marshal.dumps({})
    table.write_bytes(content)
    assert dataclass_code.install()
    assert dataclass_code.stats()["loaded"] == 0
    assert make_point()(1).y == 2


def test_an_entry_of_the_wrong_kind_is_dropped(table):
    import importlib.util
    import marshal

    table.write_bytes(b"tileorch-dataclass-code\0" + importlib.util.MAGIC_NUMBER
                      + marshal.dumps({"x = 1": compile("x = 1", "<string>", "exec"), "y": 3, 4: "z"}))
    dataclass_code.install()
    assert dataclass_code.stats()["loaded"] == 1


def test_install_twice_and_uninstall(table):
    assert dataclass_code.install()
    assert not dataclass_code.install()
    dataclass_code.uninstall()
    assert "exec" not in vars(dataclasses)
    dataclass_code.uninstall()  # twice: nothing to do


def test_the_cli_writes_then_reads_it(tmp_path):
    """``tileorch compile`` in a fresh process: the table of the compiler's modules is read
    (filled by the warm-up tool first), and a compile that finds every text compiles none."""
    root = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin", "TILEORCH_CACHE": "0",
           "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    warm = subprocess.run([sys.executable, "-m", "tileorch.tools.warm_dataclass_code"], env=env, capture_output=True,
                          text=True)
    assert warm.returncode == 0, warm.stderr
    assert "dataclass method texts" in warm.stdout and str(tmp_path / "pyc") in warm.stdout
    probe = ("import sys; from tileorch import dataclass_code; dataclass_code.install(); "
             "from tileorch.cli.main import main\n"
             "try:\n main(sys.argv[1:])\nexcept SystemExit: pass\n"
             "print(dataclass_code.stats(), file=sys.stderr)")
    src = tmp_path / "k.mlir"
    src.write_text("func.func @k() {\n  func.return\n}\n")
    run = subprocess.run([sys.executable, "-c", probe, "compile", str(src), "--emit", "mlir"], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    stats = eval(run.stderr.strip().splitlines()[-1])  # noqa: S307 - our own dict
    assert stats["loaded"] > 300 and stats["compiled"] == 0


def test_a_library_compile_writes_then_reads_it(tmp_path):
    """``tileorch.compile`` in fresh processes of an installation without the table (its ``tileorch`` program
    never ran): the first writes the texts it compiled, the second compiles none of them."""
    root = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin", "TILEORCH_CACHE": "0"}
    probe = ("import sys, tileorch; from pathlib import Path; from tileorch import dataclass_code as dc\n"
             "dc.cache_path = lambda: Path(sys.argv[1]); seen = []\n"
             "real_save, real_uninstall = dc.save, dc.uninstall\n"
             "dc.save = lambda *a, **k: (seen.append(dict(dc.stats())), real_save(*a, **k))[1]\n"
             "dc.uninstall = lambda: (seen.append(dict(dc.stats())), real_uninstall())\n"
             "tileorch.compile('func.func @k() {\\n  func.return\\n}\\n', cache=False, ptxas=False)\n"
             "print(seen[0], file=sys.stderr)")
    stats = []
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "dc.marshal")], env=env, capture_output=True,
                             text=True)
        assert run.returncode == 0, run.stderr
        stats.append(eval(run.stderr.strip().splitlines()[-1]))  # noqa: S307 - our own dict
    assert stats[0]["loaded"] == 0 and stats[0]["compiled"] > 300  # nothing to read: compiled, then written
    assert stats[1]["loaded"] >= stats[0]["compiled"] and stats[1]["compiled"] == 0


def test_a_full_table_keeps_the_texts_used(table, monkeypatch):
    """Past ``MAX_ENTRIES`` texts the table is written with the texts this process used only
    (texts of classes since edited do not pile up)."""
    import importlib.util
    import marshal

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    stale = {f"x{i} = {i}": compile(f"x{i} = {i}", "<string>", "exec") for i in range(10)}
    table.write_bytes(b"tileorch-dataclass-code\0" + importlib.util.MAGIC_NUMBER + marshal.dumps(stale))
    monkeypatch.setattr(dataclass_code, "MAX_ENTRIES", 5)
    dataclass_code.install()
    assert dataclass_code.stats()["loaded"] == 10
    make_point()
    used = dataclass_code.stats()["compiled"]
    assert dataclass_code.save()
    dataclass_code.uninstall()
    dataclass_code.install()
    assert dataclass_code.stats()["loaded"] == used  # the stale texts dropped
    make_point()
    assert dataclass_code.stats()["compiled"] == 0


def test_reading_is_scoped(table):
    """:func:`reading` (library compiles): the table during the block, the builtin ``exec``
    after it, even when the block raises; inside an installed process it changes nothing."""
    with dataclass_code.reading():
        assert vars(dataclasses).get("exec") is dataclass_code._cached_exec
        make_point()
    assert "exec" not in vars(dataclasses)
    with pytest.raises(ValueError), dataclass_code.reading():
        raise ValueError("inside")
    assert "exec" not in vars(dataclasses)
    assert dataclass_code.install()
    with dataclass_code.reading():
        pass
    assert vars(dataclasses).get("exec") is dataclass_code._cached_exec  # the program's install stays


def test_reading_writes_the_texts_it_compiled(table, monkeypatch):
    """A library compile (:func:`reading`) keeps the texts it compiled where bytecode may be written,
    as an import writes its ``.pyc``: the next process's first compile finds them (issue 22: an
    installation whose ``tileorch`` program never ran compiled every text in every process);
    nothing is written where bytecode is not, nor when every text was found."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with dataclass_code.reading():
        make_point()
    assert not table.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    with pytest.raises(ValueError), dataclass_code.reading():
        make_point()
        raise ValueError("a failed compile keeps what it compiled too")
    assert table.exists()
    dataclass_code.install()
    assert dataclass_code.stats()["loaded"] > 0
    dataclass_code.uninstall()
    stamp = table.stat().st_mtime_ns
    with dataclass_code.reading():
        make_point()
        assert dataclass_code.stats()["compiled"] == 0
    assert table.stat().st_mtime_ns == stamp  # nothing new: not written again


def test_an_unwritable_place_costs_no_dump(table, monkeypatch):
    """Where the file cannot be written (a read-only installation: every library compile then has texts to
    write) :func:`save` gives up before marshalling the table (15-35 ms for the compiler's ~1400 texts).  (The
    temporary file's name taken by a directory stands for the read-only place: permissions do not stop root.)"""
    import marshal
    import os

    (table.parent / f"{table.name}.{os.getpid()}.tmp").mkdir()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    dumps = []
    monkeypatch.setattr(marshal, "dumps", lambda *a: dumps.append(1) or b"")
    with dataclass_code.reading():
        make_point()
        assert dataclass_code.stats()["compiled"] > 0
    assert dumps == [] and not table.exists()


def test_a_library_compile_leaves_dataclasses_as_it_was(table):
    import tileorch

    assert "exec" not in vars(dataclasses)
    kernel = tileorch.compile("func.func @k() {\n  func.return\n}\n", cache=False, ptxas=False)
    assert kernel.ptx
    assert "exec" not in vars(dataclasses)


def test_exec_without_namespaces_uses_the_callers(table):
    """The shim's ``exec(text)`` with no namespaces runs in its caller's, as ``exec`` does (the
    ``dataclasses`` module always passes its own; the default is mirrored all the same)."""
    dataclass_code.install()

    def caller():
        local_ns = {}
        dataclass_code._cached_exec("y = x + 1", None, local_ns)
        return local_ns["y"]

    global x
    x = 41
    try:
        assert caller() == 42
    finally:
        del x


def test_the_file_is_read_at_the_first_dataclass_only(table, monkeypatch):
    """Installing reads nothing (a library compile answered by the cache defines no dataclass:
    issue 22's relaunch); the first dataclass made reads the file, once."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert dataclass_code.install()
    make_point()
    assert dataclass_code.save()
    dataclass_code.uninstall()
    reads = []
    real = dataclass_code._load
    monkeypatch.setattr(dataclass_code, "_load", lambda path: reads.append(path) or real(path))
    with dataclass_code.reading():
        pass
    assert reads == []
    with dataclass_code.reading():
        assert reads == []
        make_point()
        make_point()
    assert reads == [table]


def test_the_generated_doc_string_is_made_when_first_read(table):
    """Installed, a dataclass without a doc-string gets ``dataclasses``' text (``Name(signature)``) at its first
    read, from the class or an instance (then kept in the class's dictionary); a slotted class too; a class with
    its own doc-string keeps it; a class ``dataclasses`` refuses keeps no placeholder; uninstalled, ``dataclasses``
    is as it was (issue 22: ~80 signatures of a cold compile that nothing reads)."""
    def classes():
        @dataclasses.dataclass(frozen=True)
        class Point:
            x: int
            y: "list[int]" = dataclasses.field(default_factory=list)

        @dataclasses.dataclass(slots=True)
        class Slotted:
            a: str = "q"

        @dataclasses.dataclass
        class Documented:
            """Mine."""
            a: int

        return Point, Slotted, Documented

    plain = classes()
    original = dataclasses._process_class
    assert dataclass_code.install()
    lazy = classes()
    point, slotted, documented = lazy
    assert isinstance(vars(point)["__doc__"], dataclass_code.LazyDoc)
    assert isinstance(vars(slotted)["__doc__"], dataclass_code.LazyDoc)
    assert point(1).__doc__ == plain[0].__doc__ and plain[0].__doc__.startswith("Point(x: ")  # as dataclasses writes it
    assert vars(point)["__doc__"] == plain[0].__doc__  # kept
    assert slotted.__doc__ == plain[1].__doc__ and slotted.__doc__.startswith("Slotted(a: ")
    assert slotted.__slots__ == ("a",)
    assert documented.__doc__ == "Mine."

    class Refused:
        a: int = 1
        b: int

    with pytest.raises(TypeError, match="non-default argument"):
        dataclasses.dataclass(Refused)
    assert Refused.__doc__ is None
    dataclass_code.uninstall()
    assert dataclasses._process_class is original and "exec" not in vars(dataclasses)


DOCS = """
import dataclasses, gc, json, sys
if sys.argv[1] == "plain":
    dataclasses.exec = exec  # dataclass_code.install() then leaves dataclasses as it is
from tileorch import dataclass_code
dataclass_code.install()
import tileorch.backend.compile, tileorch.driver, tileorch.transforms.tileaa_to_simt
classes = [c for c in gc.get_objects() if isinstance(c, type) and "__dataclass_fields__" in vars(c)]
lazy = sum(isinstance(vars(c).get("__doc__"), dataclass_code.LazyDoc) for c in classes)
print(json.dumps([lazy, sorted((c.__module__ + "." + c.__qualname__, c.__doc__) for c in classes)]))
"""


def test_the_compilers_dataclasses_have_the_doc_strings_dataclasses_writes(tmp_path):
    """The compiler's modules (xDSL's and tileorch's dataclasses) imported with the doc-strings made when first
    read: every class's ``__doc__`` is the text ``dataclasses`` writes itself."""
    import json

    out = {}
    for mode in ("plain", "lazy"):
        proc = subprocess.run([sys.executable, "-c", DOCS, mode], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        out[mode] = json.loads(proc.stdout)
    (plain_lazy, plain), (lazy_count, lazy) = out["plain"], out["lazy"]
    assert plain_lazy == 0 and lazy_count > 30, (plain_lazy, lazy_count)
    assert len(plain) > 200 and lazy == plain
