"""``compile_program`` once per distinct input in a test run: tests that compile the same program
with the same options (the parametrizations of one test, or a program two test files both
check) share one compile.

Opt-in per call site: :func:`compile_once` is for tests that compile through the real compiler,
unpatched.  A test that monkeypatches a compile step, measures compile time, or counts what the
compiler does calls ``compile_program`` itself.

Key
    :func:`tileorch.cache.make_key` of the bytecode, the name, the options (canonical: the
    options a call leaves out at ``compile_program``'s defaults, :func:`canonical_options`) and
    ``TILEORCH_VERIFY_EACH_PASS``: with the compile switches and the compiler's fingerprint.
Where
    In this process (a dict), and, when ``$TILEORCH_TEST_COMPILE_MEMO`` names a directory (the
    test suite's conftest makes one per run, shared by the xdist workers), one pickle per key
    there (written to a temporary name and renamed: a reader never sees half of one).
Result
    A copy of the stored :class:`tileorch.driver.CutileProgram` (a test may change its copy);
    an input whose compile raises is not stored (each call raises again).

:func:`lower_once` is the same for tests whose point is the lowering's decision (the path taken,
a refusal and the line it names, the GEMM configuration, the chained-dots launch record) and
not the PTX: ``compile_program`` without the back end (no backend pipeline, LLVM or ptxas; about
three quarters of a tier compile's CPU, nearly all of a SIMT fallback's).  A compile of
:func:`compile_once` (or :func:`compile_once_seeing_lowered`) fills ``lower_once``'s entry of its input
too (the record read off that compile), and :func:`lower_once_compiled` is ``lower_once`` for a program
the run also compiles: it compiles first, so the program is lowered once for both.

:func:`lower_once_deriving` is :func:`lower_once` and a value derived from the lowered module (the pipeline
protocols of a variant no compile test compiles), the back end not run.

:func:`compile_once_seeing_lowered` is :func:`compile_once` for a test that also runs the lowered
module (the sweeps' SIMT interpreter files): the compile that fills the memo shows it its
lowering before the back end, so a program is lowered once for its compile test and its
interpreter test."""

from __future__ import annotations

import contextlib
import copy
import os
import pickle
import tempfile

MEMO_ENV = "TILEORCH_TEST_COMPILE_MEMO"

_PROGRAMS: dict[str, object] = {}


def canonical_options(options: dict) -> dict:
    """``options`` with every ``compile_program`` option it leaves out at its default: one key for
    one compile however a test spells it (``ptxas=False`` and ``arch="sm_90a", ptxas=False`` are
    the same compile).  Names ``compile_program`` does not take are kept as given (they are the
    caller's own, such as :func:`lower_once`'s back-end mark)."""
    import inspect

    from tileorch.driver import compile_program

    defaults = {k: p.default for k, p in inspect.signature(compile_program).parameters.items()
                if k not in ("data", "name") and p.default is not inspect.Parameter.empty}
    return {**defaults, **options}


def memo_key(data: bytes, name: str, options: dict) -> str:
    """:func:`tileorch.cache.make_key` of the input, its name and :func:`canonical_options`, and
    ``TILEORCH_VERIFY_EACH_PASS`` (the compiler's fingerprint and switches are in every such key)."""
    from tileorch.cache import make_key

    return make_key("test-compile-memo", data, name, sorted(canonical_options(options).items()),
                    os.environ.get("TILEORCH_VERIFY_EACH_PASS", ""), ptxas=False)


def _read(path: str):
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None


def _write(directory: str, path: str, program) -> None:
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(program, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:  # the memo never blocks compiling
        pass


def _stored(key: str):
    """The value stored under ``key`` in this process or the run's memo directory (kept in this
    process from then on), or None."""
    value = _PROGRAMS.get(key)
    directory = os.environ.get(MEMO_ENV, "")
    if value is None and directory:
        value = _read(os.path.join(directory, key + ".pickle"))
        if value is not None:
            _PROGRAMS[key] = value
    return value


def _store(key: str, value) -> None:
    """``value`` under ``key`` in this process and the run's memo directory."""
    _PROGRAMS[key] = value
    directory = os.environ.get(MEMO_ENV, "")
    if directory and os.path.isdir(directory):
        _write(directory, os.path.join(directory, key + ".pickle"), value)


def _once(key: str, compile_it):
    program = _stored(key)
    if program is None:
        program = compile_it()
        _store(key, program)
    return copy.deepcopy(program)


def _lower_key(data: bytes, name: str, options: dict) -> str:
    """:func:`lower_once`'s key of the input a compile with ``options`` lowers (``ptxas`` does not reach the
    lowering: ``lowered_program`` passes False)."""
    rest = {k: v for k, v in options.items() if k != "ptxas"}
    return memo_key(data, name, {**rest, "ptxas": False, "back end": "none"})


def _compiled_and_lowered(data: bytes, name: str, options: dict):
    """``compile_program(data, name, **options)`` and :func:`lowered_program`'s record of the same input read off
    that compile (None where it cannot be read off exactly): ``(program, lowered)``.

    The record ``lowered_program`` makes is the program ``compile_program`` builds when its back-end step returns
    nothing: the driver's one back-end call (``driver._backend``) is watched, and the record is the compiled
    program with ``ptx == ""``, ``cubin is None`` and the remarks, phase timings and seconds as they were when the
    back end was called (so without the back end's own remarks, ptxas's registers and spills, or the remark the
    row-groups spill rule rewrites).  None when the back end ran other than once (a spill-aware compile again
    under another switch: the program returned is not the first lowering's) or not at all (``codegen=False``'s
    deferred GEMM)."""
    import dataclasses
    import time

    from tileorch import driver, timing

    calls: list = []
    real = driver._backend

    def watched(kind, lowered, ctx, arch, ptxas, remarks):
        timer = timing.active()
        call = [list(remarks), timer.as_dict() if timer is not None else None, 0.0]
        calls.append(call)
        start = time.perf_counter()
        try:
            return real(kind, lowered, ctx, arch, ptxas, remarks)
        finally:
            call[2] = time.perf_counter() - start

    driver._backend = watched
    try:
        program = driver.compile_program(data, name, **options)
    finally:
        driver._backend = real
    if len(calls) != 1 or program.deferred:
        return program, None
    remarks, timings, spent = calls[0]
    return program, dataclasses.replace(program, ptx="", cubin=None, remarks=remarks, timings=timings,
                                        seconds=program.seconds - spent)


def _store_lowered(data: bytes, name: str, options: dict, lowered) -> None:
    """``lowered`` (a compile's :func:`lowered_program` record) under :func:`lower_once`'s key, unless stored."""
    if lowered is not None:
        key = _lower_key(data, name, options)
        if _stored(key) is None:
            _store(key, lowered)


def compile_once(data: bytes, name: str, **options):
    """``tileorch.driver.compile_program(data, name, **options)``, compiled once per key (see the
    module docstring) in this process and the test run's memo directory.  The compile that fills the
    memo also fills :func:`lower_once`'s entry of the same input (the record it reads off the compile:
    :func:`_compiled_and_lowered`), so a later ``lower_once`` of it lowers nothing."""
    box: dict = {}

    def compile_it():
        program, box["lowered"] = _compiled_and_lowered(data, name, options)
        return program

    program = _once(memo_key(data, name, options), compile_it)
    _store_lowered(data, name, options, box.get("lowered"))
    return program


def lower_once_compiled(data: bytes, name: str, ptxas: bool = False, **options):
    """:func:`lower_once`'s record (the same entry), for a program a test of this run also compiles with
    ``compile_once(data, name, ptxas=ptxas, **options)``: on a miss the program is compiled that way (once, for
    both) and the record read off the compile (:func:`_compiled_and_lowered`) instead of lowering it twice --
    once alone for this call, once more for the compile.  Where the compile's record cannot be read off (a
    compile the back end ran twice for) or the compile raises, the program is lowered alone
    (:func:`lower_once`: its own result or error)."""
    key = _lower_key(data, name, options)
    if _stored(key) is None:
        with contextlib.suppress(Exception):  # the compile's own test reports its error; the lowering's is below
            compile_once(data, name, ptxas=ptxas, **options)
    return lower_once(data, name, **options)


def compile_once_seeing_lowered(data: bytes, name: str, see, **options):
    """:func:`compile_once`, and ``see(module)`` on the module the driver's lowering made, when this
    call is the one that compiles.  Returns ``(program, seen)``.

    On a miss (in this process and in the run's memo directory) ``see`` is called with the
    module ``tileorch.driver.compile_module`` is given, before the back end runs on it: what
    ``lower_program(load(data, name, ctx), ctx, arch, schedule, config)`` returns.  ``see`` must
    not keep it (the back end then lowers it further, in place) nor change it.  So a test that
    runs the lowered kernel (the sweeps' SIMT interpreter) runs it on the lowering of the compile
    its sweep's compile test reads back, instead of lowering the program again; ``seen`` is then
    True.  On a memo hit ``see`` is not called (``seen`` False: the caller lowers itself).

    An exception ``see`` raises propagates (nothing is stored).  Another exception of the compile
    is not the caller's: the result is ``(None, seen)`` and nothing is stored (the compile's own
    test, which compiles again, reports it); before ``see`` ran that means a lowering that
    raises, which the caller's own lowering raises again.  The stored program is the one
    :func:`compile_once` stores under the same key, its ``seconds`` without the time ``see`` took."""
    import time

    from tileorch import driver

    key = memo_key(data, name, options)
    state: dict = {"seen": False, "spent": 0.0, "error": None}

    def compile_it():
        real = driver.compile_module

        def seeing(module, *args, **kwargs):
            start = time.perf_counter()
            try:
                see(module)
            except BaseException as exc:
                state["error"] = exc
                raise
            state["seen"], state["spent"] = True, time.perf_counter() - start
            return real(module, *args, **kwargs)

        driver.compile_module = seeing
        try:
            program, lowered = _compiled_and_lowered(data, name, options)
        finally:
            driver.compile_module = real
        program.seconds -= state["spent"]  # (``lowered``'s seconds end where the back end, and ``see``, began)
        state["lowered"] = lowered
        return program

    try:
        program = _once(key, compile_it)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        if exc is state["error"]:
            raise
        return None, state["seen"]
    _store_lowered(data, name, options, state.get("lowered"))
    return program, state["seen"]


def lowered_program(data: bytes, name: str, see=None, **options):
    """``compile_program(data, name, ptxas=False, **options)`` with its back-end step
    (``tileorch.driver.compile_module``) replaced, for this call, by one that compiles nothing: the
    driver's own lowering and its record of it (``kind``, the lowering's remarks, ``gemm_config``,
    ``gemm_args``, ``chained``, ``threads``, ``smem``, ...), with ``ptx == ""``, ``cubin is None``
    and none of the remarks ptxas adds (registers, spills).  ``see``, when given, is called on the
    lowered module (what the back end would have been given)."""
    from tileorch import driver
    from tileorch.backend.compile import CompileResult

    def no_backend(module, ctx=None, *, arch=None, kind="", **_):
        if see is not None:
            see(module)
        return CompileResult(arch=arch or "sm_90a", kind=kind)

    real = driver.compile_module
    driver.compile_module = no_backend
    try:
        return driver.compile_program(data, name, ptxas=False, **options)
    finally:
        driver.compile_module = real


def compile_once_deriving(data: bytes, name: str, derive, tag: str, **options):
    """:func:`compile_once`'s program and ``derive(lowered module)``, each once per key in this
    process and the run's memo directory: ``(program, derived)``.

    ``derive`` reads the module the driver's lowering made (what ``lower_program`` returns; it must
    not change it) and returns a picklable value, stored under the compile's key and ``tag`` (one
    tag per ``derive``).  A test that needs something of the lowered kernel beside the compiled
    program (``tileorch check``'s protocols: the dot sweeps' pipeline proofs) so lowers each program
    once: the compile that fills the memo derives it on the way (:func:`compile_once_seeing_lowered`);
    only when the program was compiled before without it (a memo hit) is the program lowered again,
    without the back end (:func:`lowered_program`).  ``derived`` is a copy (a test may change it).
    A compile that raises propagates (nothing is stored)."""
    key = memo_key(data, name, {**options, "derived": tag})
    derived = _stored(key)
    if derived is not None:
        return compile_once(data, name, **options), copy.deepcopy(derived)
    box: dict = {}

    def see(module):
        box["derived"] = derive(module)

    program, seen = compile_once_seeing_lowered(data, name, see, **options)
    if program is None:  # the compile raised after the lowering: compile_once raises it again
        program = compile_once(data, name, **options)
    if not seen:
        lowered_program(data, name, see, **{k: v for k, v in options.items() if k != "ptxas"})
    _store(key, box["derived"])
    return program, copy.deepcopy(box["derived"])


def lower_once_deriving(data: bytes, name: str, derive, tag: str, **options):
    """:func:`lower_once`'s program and ``derive(lowered module)``, each once per key in this process
    and the run's memo directory: ``(program, derived)``, both copies.

    For a test that reads only the lowering and something derived from the lowered kernel (a pipeline
    proof of a variant no compile test compiles: ``tileorch check``'s protocols of cover27's kernels
    with ``TILEORCH_PAIR_STAGES=0``): the program is lowered once, without the back end (no LLVM code
    generation, no ptxas; :func:`lowered_program`), and ``derive`` reads the module that lowering
    made.  A lowering that raises propagates (nothing is stored)."""
    key = memo_key(data, name, {**options, "ptxas": False, "back end": "none", "derived": tag})
    stored = _stored(key)
    if stored is None:
        box: dict = {}

        def see(module):
            box["derived"] = derive(module)

        stored = (lowered_program(data, name, see, **options), box["derived"])
        _store(key, stored)
    return copy.deepcopy(stored)


def lower_once(data: bytes, name: str, **options):
    """:func:`lowered_program`, once per key (its own, apart from :func:`compile_once`'s) in this
    process and the test run's memo directory."""
    key = memo_key(data, name, {**options, "ptxas": False, "back end": "none"})  # lowered_program's ptxas=False
    return _once(key, lambda: lowered_program(data, name, **options))


__all__ = ["MEMO_ENV", "canonical_options", "compile_once", "compile_once_deriving", "compile_once_seeing_lowered",
           "lower_once", "lower_once_compiled", "lower_once_deriving", "lowered_program", "memo_key"]
