"""A cuTile kernel's identity without exporting its bytecode: what a relaunch in a new process
looks its compiled program up by (issue 22: a cached relaunch in < 100 ms).

``tileorch.cutile.launch`` keys its on-disk cache by the Tile IR bytecode cuTile exports for the
call's signature; exporting costs cuTile's front end (importing ``cuda.tile._compile`` alone took
~0.3-2 s in a fresh process).  :func:`source_identity` gives text that decides the exported
bytecode as far as it can be read without the front end, or None (and why) where it cannot:

* the kernel function's source file (its whole contents: cuTile's front end reads the function's
  source from that file), its qualified name and first line,
* the kernel's compiler options (``num_ctas``, ``occupancy``, ...), the versions of cuTile and
  of Python, cuTile's environment switches (every variable whose name holds ``CUDA_TILE``: its
  front end reads ``CUDA_TILE_TESTING_DISABLE_DIV`` and others; not those naming where it writes
  or what it logs, :data:`_NOT_SWITCHES`),
* the kernel's parameters as cuTile read their annotations when the kernel was decorated
  (``parameter_annotations``: what the export uses),
* the value of every global name the function reads (its code objects' ``co_names``, and every
  name its definition spells in the source: cuTile's front end works on the source, where an
  annotation of a local variable is read although the code object never reads it), of its
  closure cells and defaults (and of a helper's annotations), each of which must be

  - a ``bool``, ``int``, ``float``, ``str``, ``bytes``, ``None`` (or a tuple of them): its value,
  - a module of cuTile (``cuda.tile`` and below) or ``math``: its name (the versions above),
  - an object that cuTile defines (a dtype, ``ct.Constant[int]``, a cuTile function): its repr,
    which must hold no address,
  - a builtin type (``int``, ``float``, ``bool``): its name,
  - a function defined in the same source file (a ``@ct.function`` helper): its name, and the
    same rules for what its code reads (recursively).

  A helper's postponed annotation (a string, ``from __future__ import annotations``) is stated as
  its text and the values of the global names its expression reads.

  Anything else (a function or object from another module, a numpy value, an object whose repr
  holds an address): None, and the caller keys by the bytecode as before.

The identity is the same in two processes exactly when these are, and then the bytecode is too
(the caller still adds the signature, the target, the options and the compiler's fingerprint).
Within a process cuTile's front end reads a function once (its source and the globals it reads,
frozen at the first export) and keeps that: :func:`note_exported` remembers what each function
read then, and a kernel whose functions read other values now has no identity (its export gives
the program of the values then, which the values now do not name).
Nothing here imports cuTile's compiler or touches a GPU.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import os
import sys
import types
import typing
from typing import Any

_SCALARS = (bool, int, float, str, bytes, type(None))
# cuTile's variables that change where it writes or what it logs, never the bytecode it exports
_NOT_SWITCHES = frozenset({"CUDA_TILE_CACHE_DIR", "CUDA_TILE_CACHE_SIZE", "CUDA_TILE_TEMP_DIR", "CUDA_TILE_LOGS",
                           "CUDA_TILE_COMPILER_TIMEOUT_SEC", "CUDA_TILE_ENABLE_CRASH_DUMP", "CUDA_TILE_DUMP_TILEIR",
                           "CUDA_TILE_DUMP_BYTECODE"})
_MODULES = ("math",)  # modules besides cuTile's whose attributes a kernel may read (fixed per Python)
_BUILTIN_TYPES = {int: "int", float: "float", bool: "bool"}


class NotExact(Exception):
    """A value the identity cannot state exactly: the caller keys by the bytecode."""


def _code_objects(code: types.CodeType):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _code_objects(c)


def _cutile_module(name: str) -> bool:
    return name == "cuda.tile" or name.startswith("cuda.tile.")


class _Source:
    """A kernel's source file: its path and the names each function defined in it spells
    (``ast.Name`` nodes of the function's definition, decorators and annotations included; only
    the function's own lines are parsed, found as cuTile's front end finds them)."""

    def __init__(self, path: str, text: bytes):
        self.path = path
        self._lines = text.decode("utf-8").splitlines(keepends=True)
        self._names: dict[tuple[str, int], set[str]] = {}

    def names(self, fn: types.FunctionType) -> set[str]:
        key = (fn.__name__, fn.__code__.co_firstlineno)
        found = self._names.get(key)
        if found is None:
            import inspect  # (imported by then: cuTile and tileorch.api import it)

            try:
                block = inspect.getblock(self._lines[fn.__code__.co_firstlineno - 1:])
                node = ast.parse("if True:\n " + " ".join(block)).body[0].body[0]  # indented as it may be
            except (SyntaxError, ValueError, IndexError, AttributeError):
                node = None
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != fn.__name__:
                raise NotExact(f"has no definition of {fn.__qualname__} at line {fn.__code__.co_firstlineno} of its "
                               "file")
            found = self._names[key] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        return found


_sources: dict[tuple[str, str], _Source] = {}  # (path, contents' sha256) -> the parsed file


def _value(v: Any, source: _Source, seen: dict, depth: int = 0) -> str:
    """The text of one value a kernel reads (see the module's doc); raises :class:`NotExact`."""
    if depth > 32:
        raise NotExact("values nested too deep")
    t = type(v)
    if t in _SCALARS:
        return f"{t.__name__}:{v!r}"
    if t is tuple:
        return "(" + ",".join(_value(x, source, seen, depth + 1) for x in v) + ")"
    if t is types.ModuleType:
        if _cutile_module(v.__name__) or v.__name__ in _MODULES:
            return f"module:{v.__name__}"
        raise NotExact(f"reads module {v.__name__}")
    if isinstance(v, type):
        if v in _BUILTIN_TYPES:
            return f"type:{_BUILTIN_TYPES[v]}"
        if _cutile_module(v.__module__):
            return f"class:{v.__module__}.{v.__qualname__}"
        raise NotExact(f"reads the class {v.__module__}.{v.__qualname__}")
    if isinstance(v, typing.TypeVar):  # ct.Constant's own parameter (``Annotated[~T, ...]``)
        return f"typevar:{v!r}"
    if typing.get_origin(v) is typing.Annotated:  # ct.Constant[int] and the like
        return ("annotated:" + _value(v.__origin__, source, seen, depth + 1) + "["
                + ",".join(_value(m, source, seen, depth + 1) for m in v.__metadata__) + "]")
    fn = getattr(v, "__wrapped__", v) if callable(v) else v  # @ct.function keeps the function as __wrapped__
    if isinstance(fn, types.FunctionType):
        if fn.__code__.co_filename == source.path:
            return f"function:{fn.__qualname__}:" + _function(fn, source, seen, depth + 1)
        if _cutile_module(fn.__module__ or ""):
            return f"cutile-function:{fn.__module__}.{fn.__qualname__}"
        raise NotExact(f"reads the function {fn.__module__}.{fn.__qualname__} of another file")
    if _cutile_module(getattr(t, "__module__", "") or ""):
        text = repr(v)
        if " at 0x" in text:
            raise NotExact(f"reads a cuTile object whose repr holds an address ({text[:60]})")
        return f"cutile:{t.__module__}.{t.__qualname__}:{text}"
    raise NotExact(f"reads a {t.__module__}.{t.__qualname__}")


def _function(fn: types.FunctionType, source: _Source, seen: dict, depth: int = 0, annotations: bool = True) -> str:
    """The text of what ``fn``'s code reads (globals, closure cells, defaults, and with
    ``annotations`` its annotations); each function once (``seen``: a recursive helper refers to
    itself by name)."""
    if fn in seen:
        return seen[fn]
    seen[fn] = f"<{fn.__qualname__}>"
    g = fn.__globals__
    parts = []
    # the names its code reads, and every name its source spells (cuTile's front end works on the
    # source: an annotation of a local variable is read there, never by the code object)
    codes = list(_code_objects(fn.__code__))
    local = {n for c in codes for n in (*c.co_varnames, *c.co_cellvars, *c.co_freevars)}
    names = sorted({n for c in codes for n in c.co_names} | (source.names(fn) - local))
    for name in names:
        if name in g:
            parts.append(f"{name}={_value(g[name], source, seen, depth)}")
        elif hasattr(builtins, name):
            parts.append(f"{name}=builtin")
        # otherwise an attribute name (``ct.load``'s ``load``): read through a value stated above
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            parts.append(f"cell {name}={_value(cell.cell_contents, source, seen, depth)}")
        except ValueError:  # an empty cell
            raise NotExact(f"closure cell {name} is empty") from None
    for v in fn.__defaults__ or ():
        parts.append(f"default={_value(v, source, seen, depth)}")
    for name, v in sorted((fn.__kwdefaults__ or {}).items()):
        parts.append(f"kwdefault {name}={_value(v, source, seen, depth)}")
    for name, v in (fn.__annotations__ if annotations else {}).items():
        if isinstance(v, str):  # postponed (``from __future__ import annotations``): what evaluating it reads
            try:
                names = compile(v, "<annotation>", "eval").co_names
            except SyntaxError:
                raise NotExact(f"annotation of {name} is not an expression") from None
            parts.append(f"annotation {name}={v!r}")
            parts += [f"annotation {name} reads {n}={_value(g[n], source, seen, depth)}" for n in names if n in g]
            continue
        parts.append(f"annotation {name}={_value(v, source, seen, depth)}")
    text = ";".join(parts)
    seen[fn] = text
    return text


def _read(kernel: Any) -> tuple[str, str, list[str], dict]:
    """(the kernel's source file, its contents' sha256, the identity's other parts, the text of
    what each function reached reads); raises :class:`NotExact` with the reason."""
    ann = getattr(kernel, "_annotated_function", None)
    fn = getattr(ann, "pyfunc", None)
    if not isinstance(fn, types.FunctionType):
        raise NotExact("has no Python function")
    path = fn.__code__.co_filename
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError:
        raise NotExact(f"source file {path!r} cannot be read") from None
    digest = hashlib.sha256(text).hexdigest()
    source = _sources.get((path, digest))
    if source is None:
        try:
            source = _Source(path, text)
        except UnicodeDecodeError:
            raise NotExact(f"source file {path!r} is not UTF-8") from None
        if len(_sources) > 64:
            _sources.clear()
        _sources[(path, digest)] = source
    options = repr(getattr(kernel, "_compiler_options", None))
    if " at 0x" in options:
        raise NotExact("compiler options' repr holds an address")
    # the kernel's parameters as cuTile read their annotations when it was decorated (what its export uses)
    parameters = repr(getattr(ann, "parameter_annotations", None))
    if " at 0x" in parameters:
        raise NotExact("parameter annotations' repr holds an address")
    seen: dict = {}
    try:
        reads = _function(fn, source, seen, annotations=False)
    except RecursionError:
        raise NotExact("helpers nest too deep") from None
    ct = sys.modules.get("cuda.tile")
    switches = ";".join(f"{k}={v}" for k, v in sorted(os.environ.items()) if "CUDA_TILE" in k and k not in _NOT_SWITCHES)
    parts = [f"cuda-tile {getattr(ct, '__version__', '?')}", f"python {sys.version}", switches, path, digest,
             fn.__qualname__, str(fn.__code__.co_firstlineno), options, parameters, reads]
    return path, digest, parts, seen


# what each function's source file and reads were when cuTile's front end first read it through
# tileorch.cutile in this process (note_exported): cuTile keeps that (its get_function_hir is
# memoised per function, globals frozen), whatever they are later
_frozen: dict[types.FunctionType, str] = {}


def source_identity(kernel: Any) -> tuple[str | None, str]:
    """(the identity of ``kernel``, a ``@ct.kernel`` object, as sha256 hex; '') or (None, why it
    has none).  See the module's doc.  None too when a function the kernel reaches reads other
    values (or its file changed) since cuTile's front end read it in this process
    (:func:`note_exported`): cuTile exports what it read then, which the identity of the values
    now does not describe."""
    try:
        _source, digest, parts, seen = _read(kernel)
    except NotExact as exc:
        return None, f"the kernel {exc}"
    for fn, text in seen.items():
        then = _frozen.get(fn)
        if then is not None and then != digest + text:
            return None, (f"{fn.__qualname__} reads other values (or its file changed) since cuTile's front end read "
                          "it in this process (cuTile exports what it read then)")
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest(), ""


def note_exported(kernel: Any) -> None:
    """Remember what the functions ``kernel`` reaches read now, right after cuTile's front end
    read them for an export (the first export of each function in the process decides)."""
    try:
        _source, digest, _parts, seen = _read(kernel)
    except NotExact:
        return
    for fn, text in seen.items():
        _frozen.setdefault(fn, digest + text)


__all__ = ["NotExact", "note_exported", "source_identity"]
