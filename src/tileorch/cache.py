"""The one on-disk cache of compiled programs, content-addressed (issues 19 and 22).

``tileorch.compile`` (:mod:`tileorch.api`), the GEMM host side (:mod:`tileorch.launchers.gemm_host`)
and the cuTile launcher (:mod:`tileorch.launchers.cutile`) keep what they compile here, so that a
relaunch in a new process reads a cubin instead of compiling (milliseconds, no compiler import).

Key
    :func:`make_key` hashes a namespace (who stores: ``kernel``, ``gemm``, ``cutile``), the
    program (MLIR text or bytecode), the options that change the output, and
    :func:`compiler_fingerprint`: tileorch's compiler sources, the xDSL and llvmlite versions and
    the ptxas that assembles (:func:`ptxas_identity`: path and version).  Any edit misses.
Entry
    ``$TILEORCH_CACHE_DIR/kernels/<key[:2]>/<key>/`` (default ``~/.cache/tileorch``): a
    ``meta.json`` (the caller's record plus ``key``, ``format``, the list of ``files`` and each
    file's sha256 in ``digests``) and the files (``kernel.ptx``, ``kernel.cubin``, ...).  An entry
    is written into a temporary directory and renamed into place, so a reader never sees half of
    one; of two concurrent writers one wins.  An entry that cannot be read, or whose files do not
    match their digests (a truncated cubin), is a miss: the caller compiles again and the store
    replaces it, with a :class:`CacheWarning` saying so.  A cache directory that cannot be
    written is skipped (the cache never blocks compiling), with one :class:`CacheWarning` per
    directory and process.
Switch
    ``TILEORCH_CACHE=0`` (or ``false``/``no``/``off``) turns it off.

Importing this module needs nothing beyond the standard library (a GPU host without xDSL reads
entries compiled elsewhere).
"""

from __future__ import annotations

import os

try:  # CPython's own SHA-256 (the same digests as hashlib's): ``hashlib`` loads OpenSSL and
    from _sha256 import sha256  # blake2 on import, a tenth of a relaunch's import (3.11; _sha2 from 3.12)
except ImportError:
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

from tileorch import settings

CACHE_DIR_ENV = "TILEORCH_CACHE_DIR"
CACHE_SWITCH_ENV = "TILEORCH_CACHE"
FORMAT = 3
"""Bumped when the entry layout or a record's meaning changes: older entries then miss."""

COMPILER_PARTS = ("analysis", "backend", "dialects", "frontend", "kernels", "schedulers", "transforms",
                  "api.py", "diagnostics.py", "dominance.py", "driver.py", "registry.py", "settings.py",
                  "verify_prechecks.py")
"""What of the ``tileorch`` package decides a compiled program (relative to the package): every module a compile
runs but the package's imports, this cache, the dataclass code table, the collector's thresholds, the lazy imports
and the phase timer (``tests/unit/test_cache.py`` checks it; ``driver.py``, the route of every input kind, was left
out when it moved out of ``frontend``)."""


def _base() -> str:
    """:func:`cache_base` as a string (this module works on ``os.path`` strings: ``pathlib``
    costs a relaunch's import ``urllib``, ``fnmatch`` and more)."""
    return os.environ.get(CACHE_DIR_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tileorch")


def _memo(name: str) -> str:
    """The path of the memo file ``name`` in the current cache base."""
    return os.path.join(_base(), "fingerprints", name)


def cache_base():
    """``$TILEORCH_CACHE_DIR``, default ``$XDG_CACHE_HOME/tileorch`` or ``~/.cache/tileorch``
    (a ``pathlib.Path``)."""
    from pathlib import Path

    return Path(_base())


def cache_root():
    """Where entries live: ``cache_base() / "kernels"`` (a ``pathlib.Path``)."""
    from pathlib import Path

    return Path(_base(), "kernels")


def enabled() -> bool:
    return os.environ.get(CACHE_SWITCH_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


# --------------------------------------------------------------------------- fingerprint

_FINGERPRINT: str | None = None
_FINGERPRINT_STAMP: str | None = None  # the memo name of _FINGERPRINT (see _sources_stamp)
_memo_bases: set[str] = set()  # cache bases that hold this process's memos (remember_memos)


def _source_files(root: str) -> list[str]:
    out: list[str] = []
    for part in COMPILER_PARTS:
        path = os.path.join(root, part)
        if part.endswith(".py"):
            if os.path.isfile(path):
                out.append(path)
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
    return out


DEPENDENCIES = ("xdsl", "llvmlite")
"""Distributions whose versions decide the output."""


def _dependency_files() -> list[str]:
    """The ``__init__.py`` of each dependency (an upgrade rewrites it), found without importing:
    by the import system's path finder, which a new process has loaded (``importlib.util``, whose
    ``find_spec`` also asks the other finders, costs a relaunch ``contextlib`` and ``collections``:
    asked only for a dependency the path finder does not find, e.g. an editable install's)."""
    try:
        from _frozen_importlib_external import PathFinder  # (CPython's import system, loaded at start-up)
    except ImportError:
        PathFinder = None

    out = []
    for dist in DEPENDENCIES:
        try:
            spec = PathFinder.find_spec(dist) if PathFinder is not None else None
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin:
            import importlib.util

            try:
                spec = importlib.util.find_spec(dist)
            except (ImportError, ValueError):
                spec = None
        if spec is not None and spec.origin:
            out.append(spec.origin)
    return out


def _versions() -> str:
    import importlib.metadata as md  # ~0.1 s to import: only when the memo below misses

    parts = []
    for dist in DEPENDENCIES:
        try:
            parts.append(f"{dist} {md.version(dist)}")
        except md.PackageNotFoundError:
            pass
    return "\0".join(parts)


def _sources_stamp(root: str, files: list[str]) -> str:
    """sha256 of the compiler's source files' and the dependencies' ``__init__.py`` (path, size,
    mtime): the name of the fingerprint's memo (:func:`_sources_digest`)."""
    stat_h = sha256(f"format {FORMAT}\0{root}\0".encode())
    for f in [*files, *_dependency_files()]:
        st = os.stat(f)
        stat_h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return stat_h.hexdigest()


def _sources_digest(root: str) -> str:
    """sha256 of the compiler's source files (names and contents) and of the dependencies'
    versions.  Memoised on disk by the files' (path, size, mtime) list (the dependencies'
    ``__init__.py`` included): a process whose compiler did not change since the last one reads
    one small file instead of hashing ~170 and asking package metadata (a relaunch is then a few
    milliseconds)."""
    global _FINGERPRINT_STAMP
    files = _source_files(root)
    stamp = _FINGERPRINT_STAMP = _sources_stamp(root, files)
    memo = _memo(stamp[:32])
    try:
        text = _read_text(memo)
        if len(text) == 64:
            return text
    except OSError:
        pass
    h = sha256(f"format {FORMAT}\0{_versions()}\0".encode())
    for f in files:
        h.update(os.path.relpath(f, root).replace(os.sep, "/").encode())
        with open(f, "rb") as fh:
            h.update(fh.read())
    digest = h.hexdigest()
    _write_atomic(memo, digest.encode())
    return digest


def compiler_fingerprint() -> str:
    """Hash of what decides the output besides the input and the options: tileorch's compiler
    sources (:data:`COMPILER_PARTS`), the versions of xDSL and llvmlite, the cache format."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        _FINGERPRINT = _sources_digest(os.path.dirname(os.path.abspath(__file__)))
    return _FINGERPRINT


def remember_memos() -> None:
    """Write this process's memos (the fingerprint's, ptxas's version) into the current cache
    base if they are not there yet (once per base and process).  The process computed them once,
    perhaps under another ``TILEORCH_CACHE_DIR``; without them there, a new process reading
    entries from this base would hash the compiler's sources and run ``ptxas --version`` again
    (a relaunch then costs tens of milliseconds: benchmarks/compile_time.py's relaunch, whose
    cache directory is new for each program).  :func:`store` calls it."""
    where = _base()
    if where in _memo_bases:
        return
    _memo_bases.add(where)
    if _FINGERPRINT_STAMP is not None and _FINGERPRINT is not None and len(_FINGERPRINT) == 64:
        memo = _memo(_FINGERPRINT_STAMP[:32])
        if not os.path.exists(memo):
            _write_atomic(memo, _FINGERPRINT.encode())
    for stamp, found in list(_PTXAS.items()):
        memo = _memo(_ptxas_memo_name(stamp))
        if found and not os.path.exists(memo):
            _write_atomic(memo, found.encode())


_PTXAS: dict[tuple, str] = {}
PTXAS_ENV = "TILEORCH_PTXAS"  # tileorch.backend.ptxas.PTXAS_ENV (not imported here: see ptxas_path)


def ptxas_identity() -> str:
    """Path and version of the ptxas that would assemble (``""`` when there is none).  The
    version (a ``ptxas --version`` run, ~20 ms) is asked once per ptxas file: remembered in
    the process and on disk by the file's path, size and modification time."""
    path = ptxas_path()
    if not path:
        return ""
    try:
        st = os.stat(path)
        stamp = (path, st.st_size, st.st_mtime_ns)
    except OSError:
        return ""
    found = _PTXAS.get(stamp)
    if found is None:
        memo = _memo(_ptxas_memo_name(stamp))
        try:
            found = _read_text(memo)
        except OSError:
            found = ""
        if not found.startswith(path + " "):
            from tileorch.backend.ptxas import ptxas_version  # (not on a memo hit: a relaunch stays lean)

            found = f"{path} {ptxas_version(path)}"
            _write_atomic(memo, found.encode())
        _PTXAS[stamp] = found
    return found


def _ptxas_memo_name(stamp: tuple) -> str:
    return "ptxas-" + sha256(repr(stamp).encode()).hexdigest()[:32]


def ptxas_path() -> str:
    """The path :func:`tileorch.backend.ptxas.find_ptxas` gives (``""``: none).  Looking in the
    ``nvidia-cuda-nvcc`` wheel's metadata costs ~0.15 s: the answer is memoised on disk per
    interpreter (``sys.executable``, ``sys.prefix``) and ``PATH``, and used while that file is an
    executable (``TILEORCH_PTXAS``, when set, is taken as it is)."""
    import sys

    env = os.environ.get(PTXAS_ENV)
    if env:
        return env if os.path.isfile(env) and os.access(env, os.X_OK) else ""
    where = sha256(repr((sys.executable, sys.prefix, os.environ.get("PATH", ""))).encode()).hexdigest()[:32]
    memo = _memo(f"ptxas-path-{where}")
    try:
        path = _read_text(memo)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    except OSError:
        pass
    from tileorch.backend.ptx import BackendError  # (not on a memo hit: a relaunch stays lean)
    from tileorch.backend.ptxas import find_ptxas

    try:
        loc = find_ptxas()
    except BackendError:
        return ""
    path = loc.path if loc is not None else ""
    if path:
        _write_atomic(memo, path.encode())
    return path


COMPILE_ENV = settings.CODEGEN
"""Environment switches that change what the compiler emits (the settings of :mod:`tileorch.settings`
marked ``codegen``: the chained-dots tier's overlap, ping-pong, persistence, epilogue, ...; the GEMM
epilogue's rounds and computed operands; approximate math; the SIMT path's warp packing, cluster
split, prefetching, mma.sync dots, access width, reductions, online softmax, ...): their values are
part of every key, so a run with a switch on never reads a program compiled with it off."""

_validated: set[str] = set()


def compile_environment() -> str:
    """The values of :data:`COMPILE_ENV` as text (``NAME=value;`` for each one that is set, in the environment
    or by this thread's :class:`tileorch.settings.overridden`).  The
    first time an environment is seen, every ``TILEORCH_*`` variable is checked
    (:func:`tileorch.settings.check_environment`): a value a setting does not accept raises
    :class:`~tileorch.settings.SettingError`; a name that is not a setting is warned about once."""
    text = "".join(f"{k}={v};" for k in COMPILE_ENV if (v := settings.raw(k)) or k in os.environ)
    if text not in _validated:
        for message in settings.check_environment():
            import warnings  # (only for a message: a relaunch's import stays lean)

            warnings.warn(message, settings.SettingWarning, stacklevel=2)
        _validated.add(text)
    return text


def make_key(namespace: str, program: str | bytes, *options: object, ptxas: bool = True) -> str:
    """The sha256 key of ``program`` compiled with ``options`` (each turned into text with
    ``str``) by this compiler (and, with ``ptxas``, this ptxas) in this compile environment
    (:data:`COMPILE_ENV`), under ``namespace``."""
    h = sha256()
    for part in (namespace, compiler_fingerprint(), compile_environment(),
                 ptxas_identity() if ptxas else "no ptxas", *map(str, options), program):
        h.update(part if isinstance(part, bytes) else part.encode())
        h.update(b"\0")
    return h.hexdigest()


# --------------------------------------------------------------------------- entries


class Entry:
    """A cache entry read back: the stored record and its files' bytes by name (a plain class:
    ``dataclasses`` would cost a relaunch's import ``inspect``).  ``files`` leaves out the files
    :func:`load` was asked to defer; :meth:`deferred_text` reads one of those when it is wanted."""

    __slots__ = ("key", "meta", "files")

    def __init__(self, key: str, meta: dict, files: dict[str, bytes]):
        self.key, self.meta, self.files = key, meta, files

    def deferred_text(self, name: str) -> str:
        """The text of the stored file ``name`` that :func:`load` left unread, read now and checked
        against the sha256 the record holds; ``""`` when the record has no such file (as
        :meth:`text`), and with a :class:`CacheWarning` naming it when it no longer reads back as
        stored (the entry's other files were checked when it was loaded: what the caller took
        from them stays valid)."""
        if name not in self.meta.get("files", ()):
            return ""
        path = os.path.join(entry_path(self.key), name)
        try:
            data = _read_bytes(path)
        except OSError:
            data = None
        if data is None or self.meta.get("digests", {}).get(name) != _digest(data):
            _warn(f"tileorch cache: {path} is not the file stored in the entry "
                  f"({'missing' if data is None else 'corrupt'}); its text is not available")
            return ""
        return data.decode()

    def __repr__(self) -> str:
        return f"Entry(key={self.key!r}, meta={self.meta!r}, files={sorted(self.files)!r})"

    def __eq__(self, other):
        if other.__class__ is not Entry:
            return NotImplemented
        return (self.key, self.meta, self.files) == (other.key, other.meta, other.files)

    __hash__ = None

    def text(self, name: str, default: str = "") -> str:
        data = self.files.get(name)
        return data.decode() if data is not None else default


class CacheWarning(UserWarning):
    """The on-disk cache could not be used as asked: a corrupt entry was compiled again, or the
    cache directory cannot be written (programs are then not kept across processes)."""


_warned_bases: set[str] = set()  # cache bases whose unwritable state was reported (once each)


def _warn(message: str) -> None:
    import warnings

    warnings.warn(message, CacheWarning, stacklevel=3)


class _JsonContext:
    """The options ``_json.make_scanner`` reads (those of ``json.loads`` with no arguments)."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


try:  # the C scanner ``json.loads`` uses, without the ``json`` package: its decoder and encoder
    from _json import make_scanner as _make_scanner  # import ``re`` (and ``enum``), a fifth of a relaunch's import
    _scan = _make_scanner(_JsonContext())
except ImportError:  # an interpreter without the C accelerator
    _scan = None


def loads(data: bytes | str):
    """``json.loads(data)`` for the cache's records (``meta.json``): read by CPython's C scanner
    when the whole text is one JSON value between whitespace; anything else (bad JSON, a BOM, no
    C scanner) goes to ``json.loads``, which gives the same value or raises its ``ValueError``."""
    if _scan is not None:
        try:
            text = data.decode() if isinstance(data, (bytes, bytearray)) else data
            start = len(text) - len(text.lstrip(" \t\n\r"))
            value, end = _scan(text, start)
            if not text[end:].strip(" \t\n\r"):
                return value
        except (StopIteration, ValueError, UnicodeDecodeError, RecursionError):
            pass
    import json

    return json.loads(data)


def entry_path(key: str) -> str:
    """The directory of the entry ``key`` (a string; it may not exist)."""
    return os.path.join(_base(), "kernels", key[:2], key)


def has_entry(key: str) -> bool:
    """Whether an entry is stored under ``key`` (its record exists; not read nor checked)."""
    return os.path.isfile(os.path.join(entry_path(key), "meta.json"))


def entry_dir(key: str):
    """:func:`entry_path` as a ``pathlib.Path``."""
    from pathlib import Path

    return Path(entry_path(key))


def _digest(data: bytes) -> str:
    return sha256(data).hexdigest()


def load(key: str, defer: tuple[str, ...] = ()) -> Entry | None:
    """The entry stored under ``key``, or None (absent, unreadable, stored for another key, or a
    file that does not match its recorded sha256: a :class:`CacheWarning` names it).  The files
    named in ``defer`` are neither read nor checked now (a relaunch that does not need a large
    one, such as a GEMM's megabyte of LLVM IR, does not pay for it): :meth:`Entry.deferred_text`."""
    return _read(key, warn=True, defer=defer)


def _read(key: str, warn: bool, defer: tuple[str, ...] = ()) -> Entry | None:
    directory = entry_path(key)
    try:
        meta = loads(_read_bytes(os.path.join(directory, "meta.json")))
        if meta.get("key") != key or meta.get("format") != FORMAT:
            return None
        files = {name: _read_bytes(os.path.join(directory, name)) for name in meta.get("files", [])
                 if name not in defer}
        digests = meta.get("digests", {})
        bad = [name for name, data in files.items() if digests.get(name) != _digest(data)]
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    if bad:
        if warn:
            _warn(f"tileorch cache: entry {directory} is corrupt ({', '.join(bad)}: "
                  f"{', '.join(str(len(files[n])) for n in bad)} bytes, not the bytes stored); compiling again")
        return None
    return Entry(key, meta, files)


def discard(key: str, why: str) -> None:
    """Drop the entry under ``key`` that read back whole but that its reader cannot use (``why``: a
    record without what the reader needs), with a :class:`CacheWarning`.  The caller compiles again
    and its :func:`store` writes the entry anew (a store keeps a readable entry in place, so without
    this every process would compile the program again, silently)."""
    import shutil

    directory = entry_dir(key)
    _warn(f"tileorch cache: entry {directory} cannot be used ({why}); compiling again")
    shutil.rmtree(directory, ignore_errors=True)


def store(key: str, meta: dict, files: dict[str, bytes | str]) -> None:
    """Store ``meta`` (JSON-serialisable) and ``files`` under ``key``, replacing an unreadable
    entry; errors (a read-only directory, a full disk) are ignored."""
    import shutil  # here, not at the top: a cache hit in a fresh process stays lean
    import tempfile
    from pathlib import Path

    directory = entry_dir(key)
    raw = {name: data.encode() if isinstance(data, str) else data for name, data in files.items()}
    record = {**meta, "key": key, "format": FORMAT, "files": sorted(raw),
              "digests": {name: _digest(data) for name, data in raw.items()}}
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=directory.parent))
        for name, data in raw.items():
            (tmp / name).write_bytes(data)
        import json

        (tmp / "meta.json").write_text(json.dumps(record))
        if directory.exists() and _read(key, warn=False) is None:  # a corrupt or partial entry: replace it
            shutil.rmtree(directory, ignore_errors=True)
        try:
            os.replace(tmp, directory)
        except OSError:  # another process stored it first
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError as exc:
        base = _base()
        if base not in _warned_bases:
            _warned_bases.add(base)
            _warn(f"tileorch cache: cannot write {directory.parent} ({type(exc).__name__}: {exc.strerror or exc}); "
                  f"compiled programs are not kept across processes: set {CACHE_DIR_ENV} to a writable directory "
                  f"or {CACHE_SWITCH_ENV}=0")
        return
    except (TypeError, ValueError):
        return
    remember_memos()  # a new process reading this entry finds the key's memos here too


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _write_atomic(path, data: bytes) -> None:
    """Write ``data`` to ``path`` (a string or path) through a temporary file and a rename;
    errors are ignored (a memo that cannot be written is computed again next time)."""
    path = os.fspath(path)
    try:
        directory, name = os.path.split(path)
        os.makedirs(directory, exist_ok=True)
        tmp = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass


__all__ = ["CACHE_DIR_ENV", "CACHE_SWITCH_ENV", "CacheWarning", "Entry", "cache_base", "cache_root",
           "compiler_fingerprint", "discard",
           "enabled", "entry_dir", "entry_path", "has_entry", "load", "make_key", "ptxas_identity", "ptxas_path", "remember_memos", "store"]
