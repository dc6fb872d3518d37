"""The code of the methods ``dataclasses`` generates, compiled once and kept across processes
(issue 22), as ``.pyc`` files keep a module's.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__`` ... as source text and ``exec``-s it: the text is compiled again in every
process.  A cold ``tileorch compile`` creates some 330 dataclasses (xDSL's attributes, ops,
constraints and traits, tileorch's dialects) and compiled 1540 such texts, 0.07 s of a 0.62 s
SIMT compile on the 2-core machine.

:func:`install` puts an ``exec`` into the ``dataclasses`` module's namespace (it shadows the
builtin there only; nothing else changes) that looks the text up in a table of code objects
loaded from :func:`cache_path` and compiles only what it misses, as ``exec`` would have (same
file name ``<string>``, no inherited ``__future__`` flags: ``dataclasses`` has none, the
interpreter's optimisation level); the code object is then executed exactly as before.  The
table is keyed by the whole text, so a text never seen is simply compiled; the file is read
only when written by this interpreter (its ``cache_tag``, bytecode magic number and
optimisation level are in its name and header) and is ignored, as a missing one, when it cannot
be read.  :func:`save` writes the table back when the process compiled texts the file lacked
(atomically: a temporary file renamed over it), where bytecode may be written
(``sys.dont_write_bytecode`` unset) or when asked (``force``).

The one-shot ``tileorch`` program installs it for the whole process
(:func:`tileorch.cli.main.program`); a library compile (:func:`tileorch.compile`, the cuTile and
GEMM launchers) uses it while it runs (:func:`reading`: installed for the compile, the texts it
compiled written back as the program writes them, the builtin ``exec`` back after it), so its
first compile in a process imports the compiler as fast; the process keeps the standard
behaviour otherwise.
``python -m tileorch.tools.warm_dataclass_code`` fills the file for the compiler's modules (as
``compileall`` fills ``__pycache__``; ``benchmarks/compile_time.py`` runs both).

While installed, the doc-string ``dataclasses`` writes for a class without one (``Name(signature)``: an
``inspect.signature`` of the class and its text, ~80 classes and 1.4% of a cold SIMT compile's instructions, for
strings nothing in a compile reads) is made when first read instead (:class:`LazyDoc`, the same text:
``cls.__doc__`` reads a descriptor in the class's dictionary through its ``__get__``, as ``type`` does for every
class, and the text then replaces it there).  Stdlib only.
"""

from __future__ import annotations

import builtins
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
import marshal
import os
import sys
from pathlib import Path
from types import CodeType

MAX_ENTRIES = 4_000
"""A table that would grow past this many texts (a cold compile uses some 1400; texts of classes
since edited stay until then) is written with the texts this process used only."""

_TABLE: dict[str, CodeType] | None = None
_PENDING_PATH: list[Path | None] = []
"""The file :func:`install` named, until the table is first needed (:func:`_table`): installing
reads nothing, so a library compile answered by the cache (no dataclass defined) does not read
the 1.3 MB file (6 ms) nor free its table afterwards (2 ms)."""
_LOADED: int = 0  # entries read from the file
_MISSES: int = 0  # texts compiled by this process
_USED: set[str] = set()  # texts this process looked up


def cache_path() -> Path | None:
    """The table's file: beside this module's ``.pyc`` (``__pycache__``, or under
    ``sys.pycache_prefix``), named for the interpreter; None where there is no such place."""
    try:
        pyc = Path(importlib.util.cache_from_source(__file__))
    except (NotImplementedError, ValueError):
        return None
    return pyc.parent / f"dataclass_code.{sys.implementation.cache_tag}.opt{sys.flags.optimize}.marshal"


def _header() -> bytes:
    return b"tileorch-dataclass-code\0" + importlib.util.MAGIC_NUMBER


def _load(path: Path | None) -> dict[str, CodeType]:
    if path is None:
        return {}
    try:
        data = path.read_bytes()
        header = _header()
        if not data.startswith(header):
            return {}
        table = marshal.loads(data[len(header):])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, CodeType)}


def _table() -> dict[str, CodeType] | None:
    """The installed table, read from its file on the first call after :func:`install`; None
    when not installed."""
    global _LOADED
    table = _TABLE
    if _PENDING_PATH and table is not None:
        try:
            path = _PENDING_PATH.pop()
        except IndexError:  # another thread took it and is reading: a text missing meanwhile is compiled
            return table
        table.update(_load(path))
        _LOADED = len(table)
    return table


def _cached_exec(source, globals=None, locals=None, /):
    """``exec`` for the ``dataclasses`` module: a text's code object from the table (compiled
    and remembered on a miss), then executed as ``exec`` executes it."""
    global _MISSES
    table = _table()
    if isinstance(source, str) and table is not None:
        _USED.add(source)
        code = table.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            table[source] = code
            _MISSES += 1
        source = code
    if globals is None:  # ``exec``'s default: the calling frame's (dataclasses') namespaces
        frame = sys._getframe(1)
        globals = frame.f_globals
        if locals is None:
            locals = frame.f_locals
    return builtins.exec(source, globals, locals)


_PENDING_DOC = "(tileorch.dataclass_code: the doc-string is made when first read)"
"""The doc-string a class without one holds while ``dataclasses`` processes it (truthy: ``dataclasses`` then
writes none); :func:`_process_class` puts a :class:`LazyDoc` in its place afterwards."""


def doc_text(cls: type) -> str:
    """The doc-string ``dataclasses`` writes for ``cls`` (Python 3.11's ``_process_class``: the class's name and its
    signature less `` -> None``; the name alone where there is no signature)."""
    import inspect

    try:
        text_sig = str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        text_sig = ""
    return cls.__name__ + text_sig


class LazyDoc:
    """``__doc__`` of a dataclass without a doc-string: :func:`doc_text` of its class, made at the first read (of
    the class's or an instance's ``__doc__``: ``type`` calls the ``__get__`` of a descriptor it finds in the class's
    dictionary), then kept and put in the class's dictionary in this object's place.  A class whose dictionary
    was copied into another (the same ``__init__``) reads the text made for the first class."""

    __slots__ = ("cls", "text")

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.text: str | None = None

    def __get__(self, obj: object, owner: type | None = None) -> str:
        text = self.text
        if text is None:
            text = self.text = doc_text(self.cls)
            for cls in (self.cls, owner):
                if cls is not None and vars(cls).get("__doc__") is self:
                    try:
                        type.__setattr__(cls, "__doc__", text)
                    except (TypeError, AttributeError):
                        pass
        return text


_ORIGINAL_PROCESS_CLASS = None  # dataclasses._process_class while :func:`_process_class` stands in for it


def _plain_doc_slot(cls: type) -> bool:
    """Whether ``cls.__doc__`` is stored in the class's dictionary as for any class (no metaclass of ``cls``
    but ``type`` defines a ``__doc__`` with a setter of its own)."""
    return all(m is type or not hasattr(vars(m).get("__doc__"), "__set__") for m in type(cls).__mro__)


def _process_class(cls, *args, **kwargs):
    """``dataclasses._process_class``, the doc-string it would write for a class without one left to
    :class:`LazyDoc` (the same text, made when first read)."""
    old = vars(cls).get("__doc__")
    lazy = not getattr(cls, "__doc__") and _plain_doc_slot(cls)
    if lazy:
        cls.__doc__ = _PENDING_DOC
    try:
        out = _ORIGINAL_PROCESS_CLASS(cls, *args, **kwargs)
    except BaseException:
        if lazy and vars(cls).get("__doc__") is _PENDING_DOC:
            cls.__doc__ = old
        raise
    if lazy:
        doc = LazyDoc(out)  # (slots=True: a new class with the same dictionary, the same signature)
        for c in (cls, out):
            if vars(c).get("__doc__") is _PENDING_DOC:
                c.__doc__ = doc
    return out


def install(path: Path | None = None) -> bool:
    """Make ``dataclasses`` use the table (read from ``path``, default :func:`cache_path`, when
    the first dataclass is made or :func:`stats`/:func:`save` ask: :func:`_table`); False
    (nothing changed) when already installed or ``dataclasses`` already has an ``exec`` of its own."""
    global _TABLE, _LOADED, _MISSES
    import dataclasses

    if _TABLE is not None or "exec" in vars(dataclasses):
        return False
    _TABLE = {}
    _PENDING_PATH[:] = [cache_path() if path is None else path]
    _LOADED, _MISSES = 0, 0
    _USED.clear()
    dataclasses.exec = _cached_exec
    global _ORIGINAL_PROCESS_CLASS
    if _ORIGINAL_PROCESS_CLASS is None and getattr(dataclasses, "_process_class", None) is not None:
        _ORIGINAL_PROCESS_CLASS = dataclasses._process_class
        dataclasses._process_class = _process_class
    return True


@contextmanager
def reading() -> Iterator[None]:
    """The table in use while the block runs (a library compile: it imports the compiler's
    modules on its first run), and ``dataclasses`` as it was after the block (already installed,
    e.g. by the ``tileorch`` program: left so, the program saves).  The texts the block compiled
    that the file lacked are written back (:func:`save`: only where bytecode may be written), as
    an import writes its ``.pyc``: an installation whose ``tileorch`` program never ran (a user of
    ``tileorch.cutile.launch`` only) compiled the ~900-1400 texts (~0.05 s) in every new process."""
    mine = install()
    try:
        yield
    finally:
        if mine:
            try:
                if _MISSES:
                    save()
            finally:
                uninstall()


def uninstall() -> None:
    """Give ``dataclasses`` the builtin ``exec`` back and drop the table (unsaved texts are lost)."""
    global _TABLE
    import dataclasses

    if vars(dataclasses).get("exec") is _cached_exec:
        del dataclasses.exec
    global _ORIGINAL_PROCESS_CLASS
    if _ORIGINAL_PROCESS_CLASS is not None and vars(dataclasses).get("_process_class") is _process_class:
        dataclasses._process_class = _ORIGINAL_PROCESS_CLASS
        _ORIGINAL_PROCESS_CLASS = None
    _TABLE = None
    _PENDING_PATH.clear()


def stats() -> dict[str, int]:
    """``loaded`` (texts read from the file), ``compiled`` (texts this process compiled)."""
    _table()
    return {"loaded": _LOADED, "compiled": _MISSES}


def save(path: Path | None = None, force: bool = False) -> bool:
    """Write the table to ``path`` (default :func:`cache_path`) if this process compiled texts
    it lacked; only where bytecode may be written, unless ``force``.  True when written.  A
    failure to write (a read-only installation) is silent: the next process compiles again."""
    global _LOADED, _MISSES
    _table()
    if _TABLE is None or not _MISSES or (sys.dont_write_bytecode and not force):
        return False
    path = cache_path() if path is None else path
    if path is None:
        return False
    table = _TABLE
    if len(table) > MAX_ENTRIES:  # keep what this process used
        table = {k: v for k, v in table.items() if k in _USED}
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:  # opened first: a read-only installation fails here, before the dump (15-35 ms)
            fh.write(_header() + marshal.dumps(table))
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
    _LOADED, _MISSES = len(table), 0
    return True
