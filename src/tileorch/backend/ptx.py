"""LLVM IR text -> PTX with llvmlite's NVPTX backend (LLVM 22).

An intrinsic the chosen PTX version cannot select makes LLVM abort the whole process
(``LLVM ERROR: Cannot select``).  :func:`llvm_to_ptx` therefore runs code generation
in a forked copy of the process by default (``isolate=True``; a fresh ``python -m
tileorch.backend.ptx`` subprocess where ``fork`` is unavailable) and turns such an abort
into a :class:`BackendError` that names the function LLVM was compiling; ``isolate=False``
runs in process (for trusted input).  The fork costs a few milliseconds: the child shares
the parent's already initialised LLVM.  The PTX is also checked for ``.extern .func llvm.``
(an intrinsic LLVM did not know).

A one-shot program (``tileorch compile``) forks that child at its start instead
(:func:`prefork_codegen`): the child loads LLVM while the parent parses and lowers, then waits
for the LLVM IR; the parent never loads LLVM itself (0.12 s of Python-level work in llvmlite's
import, which a loading thread in the parent did under the parent's GIL).  Where code is generated
in a child (that child, or a parent about to fork one), LLVM is llvmlite's shared library called
through :mod:`tileorch.backend.llvm_direct`, without ``llvmlite.binding``'s own import (~30 ms of
CPU in a fresh process); ``llvmlite.binding`` where that library cannot be used or is loaded already.

LLVM IR without poison-generating flags (:func:`poison_reuse_guard_needed`: no ``nsw``/``nuw``/
``exact``/``disjoint``/``nneg``/``inbounds``/``nusw``/``samesign``/``inrange``, no ``llvm.abs``, no
``range``/``nonnull``/``!align`` annotations: all the IR tileorch's lowerings emit) is compiled with LLVM's
``-enable-poison-reuse-guard=false``: the NVPTX straight-line strength reduction (SLSR) then skips
``ScalarEvolution::canReuseInstruction`` before it rewrites an instruction in terms of another.
That check scanned the blocks after every candidate basis for poison (blocks of WGMMA calls with
128 operands each): 121 of the 4096^3 GEMM's 178 ms of code generation.  It can refuse a reuse
for two reasons: the basis, or an instruction SCEV looked through to describe it, may be poison
where SCEV's expression is not (a poison-generating flag, ``or disjoint``, ``llvm.abs`` with its
poison flag: none of which this IR holds), or its walk met more than 16 values and gave up.  So
without the guard SLSR only also takes the rewrites of that second kind: where it does, the PTX
changes (``tools/ptx_identity.py``: the epilogue address chains of some attention and stream-K
kernels become one base plus immediate offsets: fewer instructions and 64-bit registers).  IR with
any of the words keeps the guard.
"""

from __future__ import annotations

# subprocess, selectors and signal are imported where used: a cache hit imports this module for
# its constants and should not pay for them
import _thread
import contextlib
import os
import re
import sys
from collections.abc import Callable

from tileorch.backend.target_versions import (  # noqa: F401  (the targets, kept importable from here)
    DEFAULT_ARCH,
    DEFAULT_PTX_VERSION,
    SUPPORTED_ARCHS,
    SUPPORTED_PTX_VERSIONS,
)


class BackendError(Exception):
    """LLVM or ptxas rejected the module; ``str()`` is the user-facing message."""


def seconds_from_env(name: str, default: float) -> float | None:
    """The time limit ``$name`` sets: ``default`` when unset or empty, None (no limit) for ``0``
    or ``none``; a value that is not a finite number of seconds >= 0 raises :class:`BackendError`."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if text.lower() == "none":
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise BackendError(f"{name}={text!r} is not a number of seconds (0 or none: no limit)")
    return seconds or None


CODEGEN_TIMEOUT_ENV = "TILEORCH_CODEGEN_TIMEOUT"
DEFAULT_CODEGEN_TIMEOUT_S = 300.0
"""Seconds one LLVM code generation child (or subprocess) may take before it is stopped with an
error (``TILEORCH_CODEGEN_TIMEOUT`` overrides; ``0``/``none``: no limit).  The largest kernels take a
few seconds: a child this slow is hung (a lock it inherited from a thread of the parent at the
fork), and a compile must not wait on it without end."""


def codegen_timeout() -> float | None:
    return seconds_from_env(CODEGEN_TIMEOUT_ENV, DEFAULT_CODEGEN_TIMEOUT_S)


def _timed_out(what: str, timeout: float) -> str:
    return (f"{what} did not finish within {timeout:g} s and was stopped ({CODEGEN_TIMEOUT_ENV} sets the "
            f"limit in seconds, 0: none)")


def target_features(ptx_version: int) -> str:
    if ptx_version not in SUPPORTED_PTX_VERSIONS:
        raise BackendError(f"unsupported PTX version {ptx_version}; choose one of {SUPPORTED_PTX_VERSIONS}")
    return f"+ptx{ptx_version}"


_LLVM_READY = False
_PREFETCH = None  # the thread prefetch_llvm started, until _init_llvm joins it


def prefetch_llvm() -> None:
    """Start loading LLVM (``import llvmlite.binding``: its shared library, ~0.1 s of a cold
    ``tileorch compile``) in a background thread, where the loading that does not hold the GIL
    overlaps the parse and the lowering.  :func:`_init_llvm` joins the thread before it goes on,
    so the process forks for code generation with no other thread alive.  Nothing happens when
    LLVM is loaded already."""
    global _PREFETCH
    if _PREFETCH is not None or "llvmlite.binding" in sys.modules:
        return
    import threading

    _PREFETCH = threading.Thread(target=_import_llvmlite_binding, name="tileorch-llvm-prefetch", daemon=True)
    _PREFETCH.start()


def _import_llvmlite_binding() -> None:
    try:
        import llvmlite.binding  # noqa: F401
    except Exception:  # noqa: BLE001 - _init_llvm imports it again and reports the error
        pass


_DIRECT = None
"""The :class:`tileorch.backend.llvm_direct.Library` a code generation child loaded instead of
``llvmlite.binding`` (:func:`_init_llvm` with ``direct``), or None."""


def _init_llvm(direct: bool = False):
    """LLVM, loaded and initialised: ``llvmlite.binding``; or, with ``direct`` (where code is
    generated in a child: the :func:`prefork_codegen` child, a parent before it forks one,
    ``python -m tileorch.backend.ptx``) and where ``llvmlite.binding`` is not loaded yet,
    llvmlite's library through :mod:`tileorch.backend.llvm_direct` when it can (the same PTX,
    ~30 ms less CPU).  Once loaded, the library answers every later call of the process; its
    code generations in process (:func:`codegen`) hold :data:`_POISON_GUARD_LOCK` throughout."""
    global _LLVM_READY, _PREFETCH, _DIRECT
    if _DIRECT is not None:
        return _DIRECT
    if _PREFETCH is not None:
        _PREFETCH.join()
        _PREFETCH = None
    if direct and "llvmlite.binding" not in sys.modules:
        from tileorch.backend import llvm_direct

        _DIRECT = llvm_direct.load()
        if _DIRECT is not None:
            return _DIRECT
    import llvmlite.binding as llvm

    if not _LLVM_READY:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        _LLVM_READY = True
    return llvm


_POISON_FLAGS = re.compile(
    r"\b(?:nsw|nuw|exact|disjoint|nneg|inbounds|nusw|samesign|inrange|llvm\.abs|range|nonnull)\b|!align\b")
"""The LLVM IR keywords of poison-generating instruction flags, of the one intrinsic with a poison
flag that SCEV describes (``llvm.abs``) and of the poison-generating metadata and return
attributes (``!range``/``range(...)``, ``nonnull``, ``!align``: the guard drops them from a reused
instruction); any occurrence counts: a name or an inline-asm text that spells one only costs the
fast path."""

_POISON_WORDS = ("nsw", "nuw", "exact", "disjoint", "nneg", "inbounds", "nusw", "samesign", "inrange", "llvm.abs",
                 "range", "nonnull", "!align")
_POISON_GUARD: bool | None = None  # the value last given to LLVM's -enable-poison-reuse-guard
_POISON_GUARD_LOCK = _thread.allocate_lock()
"""Held from setting the (process-wide) option to the end of the code generation that reads it:
in-process code generations in several threads do not run under each other's setting (a forked
child, which runs one, gets a new lock: one held by another thread at the fork would never be
released there)."""


def _new_guard_lock() -> None:
    global _POISON_GUARD_LOCK
    _POISON_GUARD_LOCK = _thread.allocate_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_guard_lock)


def poison_reuse_guard_needed(llvm_ir: str) -> bool:
    """Whether ``llvm_ir`` may hold a poison-generating flag, so that code generation must keep
    LLVM's poison-reuse guard (see the module's docstring)."""
    # str.find per keyword (~1 ms for a GEMM's 1.5 MB of IR); the regular expression (~20 ms) only
    # where one of them occurs
    if not any(word in llvm_ir for word in _POISON_WORDS):
        return False
    return _POISON_FLAGS.search(llvm_ir) is not None


def _set_poison_reuse_guard(llvm, on: bool) -> None:
    global _POISON_GUARD
    if _POISON_GUARD is not on:
        llvm.set_option("tileorch", f"-enable-poison-reuse-guard={'true' if on else 'false'}")
        _POISON_GUARD = on


def codegen(llvm_ir: str, arch: str, ptx_version: int) -> str:
    """In-process: parse, verify and compile ``llvm_ir`` to PTX for ``arch`` (with LLVM's
    poison-reuse guard only where :func:`poison_reuse_guard_needed`)."""
    llvm = _init_llvm()
    guard = poison_reuse_guard_needed(llvm_ir)
    if llvm is _DIRECT:  # the same calls without llvmlite.binding (tileorch.backend.llvm_direct)
        features = target_features(ptx_version)
        with _POISON_GUARD_LOCK:  # the whole sequence: nothing serialises the library's calls otherwise
            try:
                module = llvm.parse_verified(llvm_ir)
            except RuntimeError as exc:
                raise BackendError(f"invalid LLVM IR: {str(exc).strip()}") from None
            _set_poison_reuse_guard(llvm, guard)
            return llvm.emit_assembly(module, arch, features, opt=2)
    try:
        mod = llvm.parse_assembly(llvm_ir)
        mod.verify()
    except RuntimeError as exc:
        raise BackendError(f"invalid LLVM IR: {str(exc).strip()}") from None
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    machine = target.create_target_machine(cpu=arch, features=target_features(ptx_version), opt=2)
    mod.data_layout = str(machine.target_data)
    with _POISON_GUARD_LOCK:
        _set_poison_reuse_guard(llvm, guard)
        return machine.emit_assembly(mod)


def _isolated_codegen(llvm_ir: str, arch: str, ptx_version: int) -> str:
    import subprocess

    timeout = codegen_timeout()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tileorch.backend.ptx", arch, str(ptx_version)],
            input=llvm_ir, capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired:  # killed by subprocess.run
        raise BackendError(_timed_out("LLVM code generation (a subprocess)", timeout)) from None
    if proc.returncode == 0:
        return proc.stdout
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    llvm_error = next((l for l in lines if "LLVM ERROR" in l), None)
    message = next((l for l in reversed(lines) if l.startswith("tileorch:")), None)
    if message is not None:
        raise BackendError(message.removeprefix("tileorch: "))
    raise BackendError(f"LLVM code generation failed: {llvm_error or (lines[-1] if lines else proc.returncode)}")


def _read_all(fds: list[int], timeout: float | None = None, ends: bytes = b"") -> list[bytes]:
    """Everything written to the pipes ``fds`` until each is closed (read concurrently), or, with
    ``ends``, until what the first pipe gave ends with it (what the others gave by then: the writer
    writes nothing more to them);
    :class:`TimeoutError` when they are still open ``timeout`` seconds from now (None: no limit)."""
    import selectors
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: dict[int, list[bytes]] = {fd: [] for fd in fds}
    with selectors.DefaultSelector() as sel:
        for fd in fds:
            sel.register(fd, selectors.EVENT_READ)
        open_fds = len(fds)
        while open_fds:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            for key, _ in sel.select(left):
                data = os.read(key.fd, 1 << 16)
                if data:
                    chunks[key.fd].append(data)
                    if ends and key.fd == fds[0] and data.endswith(ends):
                        open_fds = 0
                        break
                else:
                    sel.unregister(key.fd)
                    open_fds -= 1
    return [b"".join(chunks[fd]) for fd in fds]


_PREFORKED: tuple[int, int, int, int] | None = None
"""The child :func:`prefork_codegen` forked, until :func:`_fork_start` hands it its work:
(pid, request fd, PTX fd, stderr fd)."""


def prefork_codegen() -> bool:
    """Fork the code generation child now, before the compiler's modules are imported (a small
    process): it loads and initialises LLVM at once, in parallel with the parent's parse and
    lowering, then waits for ``arch ptx_version`` and the LLVM IR on a pipe.  The next
    :func:`_fork_start` sends it its work instead of forking; everything after that (the PTX and
    errors it writes, an abort reported with its function) is as for a child forked then.  A
    process that never asks (a failed compile, a cache hit) closes the pipe at its exit and the
    child exits with it at once (loading LLVM or not), having written nothing; its standard input and output are
    ``/dev/null`` and it holds none of the parent's other files (a reader of the parent's
    output sees its end when the parent exits).  False, with nothing started, where the process
    cannot fork, LLVM is loaded already or a child is waiting already.  For one-shot programs:
    call it where no other thread runs."""
    global _PREFORKED
    if _PREFORKED is not None or "llvmlite.binding" in sys.modules or not hasattr(os, "fork"):
        return False
    fds = (*os.pipe(), *os.pipe(), *os.pipe())  # request r/w, PTX r/w, stderr r/w
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        for fd in fds:
            os.close(fd)
        return False
    if pid == 0:  # child: never returns into the caller's code
        code = 3
        try:
            code = _preforked_child(*fds)
        finally:
            os._exit(code)
    in_r, in_w, out_r, out_w, err_r, err_w = fds
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    _PREFORKED = (pid, in_w, out_r, err_r)
    return True


def release_preforked() -> None:
    """Let a :func:`prefork_codegen` child that no code generation took exit now (its request pipe closed, the
    child reaped), for a one-shot entry point called in a process that goes on (``tileorch compile``'s or
    ``tileorch gemm``'s main run in-process: a failed compile, a cache hit).  Left waiting, the child was taken by
    the process's next code generation, and a later fork of the process (a compile child) inherited the record of
    a child that is not its own and waited on it forever (session 40's CI)."""
    global _PREFORKED
    if _PREFORKED is None:
        return
    pid, in_w, out_r, err_r = _PREFORKED
    _PREFORKED = None
    for fd in (in_w, out_r, err_r):
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _forget_preforked() -> None:
    """In a forked child: the parent's :func:`prefork_codegen` child is not this process's (its fds are the
    parent's to close)."""
    global _PREFORKED
    _PREFORKED = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_preforked)


def close_all_but(keep: set[int]) -> None:
    """Close every file descriptor of this process except ``keep`` (a child that must hold none of
    its parent's files: a reader of the parent's output sees its end when the parent exits)."""
    kept = sorted(keep)
    for low, high in zip(kept, kept[1:] + [os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536]):
        os.closerange(low + 1, high)


def _preforked_child(in_r: int, in_w: int, out_r: int, out_w: int, err_r: int, err_w: int) -> int:
    """The body of :func:`prefork_codegen`'s child: its exit status."""
    import threading

    for fd in (in_w, out_r, err_r):
        os.close(fd)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(err_w, 2)  # LLVM writes "LLVM ERROR: ..." to fd 2 before it aborts
    close_all_but({0, 1, 2, in_r, out_w, err_w})
    import faulthandler

    faulthandler.disable()  # as in _fork_start's child
    box: dict[str, bytes] = {}

    def read_request() -> None:
        box["request"] = request = _read_all([in_r])[0]
        if not request:  # the parent did not need code generation: stop at once, LLVM loaded or not
            os._exit(0)

    reader = threading.Thread(target=read_request, daemon=True)
    reader.start()  # the pipe is drained while LLVM loads: the parent's write never waits for it
    try:
        _init_llvm(direct=True)
        failure = None
    except BaseException as exc:  # noqa: BLE001 - reported if code generation is asked for
        failure = exc
    reader.join()
    request = box.get("request", b"")
    if not request:
        return 0  # the parent did not need code generation
    header, _, llvm_ir = request.partition(b"\n")
    arch, ptx_version = header.decode().split()
    return _codegen_to_fds(llvm_ir.decode(), arch, int(ptx_version), out_w, err_w, failure)


PTX_END = b"\0"
"""What a code generation child writes after the whole PTX (which has no NUL byte), and only then: the
parent knows the code generation succeeded when it reads it, before the child has exited (its exit,
the teardown of LLVM's memory, comes before the pipe's end and the exit status)."""


def _codegen_to_fds(llvm_ir: str, arch: str, ptx_version: int, out_w: int, err_w: int,
                    failure: BaseException | None = None) -> int:
    """In a code-generation child: the PTX of ``llvm_ir`` and :data:`PTX_END` written to ``out_w``
    (status 0), or the error (``failure`` if LLVM could not be loaded) as a ``tileorch:`` line on
    ``err_w`` (status 1)."""
    try:
        if failure is not None:
            raise failure
        data, code, fd = codegen(llvm_ir, arch, ptx_version).encode() + PTX_END, 0, out_w
    except BackendError as exc:
        data, code, fd = f"tileorch: {exc}\n".encode(), 1, err_w
    except BaseException as exc:  # noqa: BLE001
        data, code, fd = f"tileorch: LLVM code generation failed ({type(exc).__name__}: {exc})\n".encode(), 1, err_w
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    return code


def _take_preforked(llvm_ir: str, arch: str, ptx_version: int) -> tuple[int, int, int] | None:
    """Send the waiting :func:`prefork_codegen` child its work: (pid, PTX fd, stderr fd) as
    :func:`_fork_start` returns them, or None when no child waits (or it is gone)."""
    global _PREFORKED
    if _PREFORKED is None:
        return None
    pid, in_w, out_r, err_r = _PREFORKED
    _PREFORKED = None
    view = memoryview(f"{arch} {ptx_version}\n{llvm_ir}".encode())
    try:
        while view:
            view = view[os.write(in_w, view):]
    except OSError:  # the child died: reap it and fork another
        for fd in (out_r, err_r):
            os.close(fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        return None
    finally:
        os.close(in_w)
    return pid, out_r, err_r


def _fork_start(llvm_ir: str, arch: str, ptx_version: int) -> tuple[int, ...] | None:
    """Start code generation in a forked child (or the child :func:`prefork_codegen` started, or
    one the :mod:`~tileorch.backend.codegen_server` forked): (pid, stdout fd, stderr fd) for
    :func:`_fork_finish`, plus the status fd of a server's child; None if the process cannot fork."""
    from tileorch.backend import codegen_server

    served = codegen_server.submit(llvm_ir, arch, ptx_version) if codegen_server.running() else None
    if served is not None:  # (a process with a server has no preforked child: tileorch compile starts none)
        return served
    preforked = _take_preforked(llvm_ir, arch, ptx_version)
    if preforked is not None:
        return preforked
    _init_llvm(direct=True)  # once in the parent: children inherit the initialised targets
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        return None
    if pid == 0:  # child: never returns into the caller's code
        code = 3
        try:
            os.close(out_r)
            os.close(err_r)
            os.dup2(err_w, 2)  # LLVM writes "LLVM ERROR: ..." to fd 2 before it aborts
            # An abort is expected here and reported by the parent.  A faulthandler the parent
            # enabled (pytest's, python -X faulthandler) writes to its own copy of the original
            # stderr, not to fd 2: its "Fatal Python error: Aborted" and Python stack would
            # escape to the user's terminal (and past pytest's capture).
            import faulthandler

            faulthandler.disable()
            code = _codegen_to_fds(llvm_ir, arch, ptx_version, out_w, err_w)
        finally:
            os._exit(code)
    os.close(out_w)
    os.close(err_w)
    return pid, out_r, err_r


def _fork_finish(child: tuple[int, ...]) -> tuple[int | None, int | None, str, str]:
    """(exit code, signal, stdout, stderr) of a child :func:`_fork_start` started."""
    return _fork_collect(child)[0]


def _fork_collect(child: tuple[int, ...],
                  reap: bool = True) -> tuple[tuple[int | None, int | None, str, str], bool]:
    """(:func:`_fork_finish`'s tuple, whether the child was reaped).  With ``reap`` False, a child
    whose PTX came whole (:data:`PTX_END`) is reported as succeeded (status 0) as soon as it did,
    and not reaped: the caller reaps it (:func:`_wait_child`) once it used the PTX."""
    import signal

    pid, out_r, err_r = child[:3]
    timeout = codegen_timeout()
    try:
        out, err = _read_all([out_r, err_r], timeout, b"" if reap else PTX_END)
    except TimeoutError:  # a hung child: stopped, reported as its error (never a wait without end)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _wait_child(child)
        return (1, None, "", f"tileorch: {_timed_out('LLVM code generation (a forked child)', timeout)}\n"), True
    finally:
        os.close(out_r)
        os.close(err_r)
    if out.endswith(PTX_END):
        out = out[:-len(PTX_END)]
        if not reap:
            return (0, None, out.decode(errors="replace"), err.decode(errors="replace")), False
    status = _wait_child(child)
    if status is None:
        return (1, None, out.decode(errors="replace"), "tileorch: LLVM code generation failed: the code generation "
                                                        "server stopped before its child finished\n"), True
    if os.WIFSIGNALED(status):
        return (None, os.WTERMSIG(status), out.decode(errors="replace"), err.decode(errors="replace")), True
    return (os.WEXITSTATUS(status), None, out.decode(errors="replace"), err.decode(errors="replace")), True


def _wait_child(child: tuple[int, ...]) -> int | None:
    """The wait status of a child :func:`_fork_start` started, once it exited: reaped here, or
    reported by the code generation server that forked it (None if the server stopped first)."""
    if len(child) == 4:
        from tileorch.backend import codegen_server

        return codegen_server.wait_status(child[3])
    return os.waitpid(child[0], 0)[1]


def _fork_cancel(child: tuple[int, ...]) -> None:
    """Stop a child :func:`_fork_start` started and reap it."""
    import signal

    pid, out_r, err_r = child[:3]
    with contextlib.suppress(ProcessLookupError):  # the child may have exited already
        os.kill(pid, signal.SIGKILL)
    _wait_child(child)
    os.close(out_r)
    os.close(err_r)


def _fork_run(llvm_ir: str, arch: str, ptx_version: int) -> tuple[int | None, int | None, str, str] | None:
    """Code generation in a forked child: (exit code, signal, stdout, stderr), or None if the
    process cannot fork."""
    child = _fork_start(llvm_ir, arch, ptx_version)
    return None if child is None else _fork_finish(child)


_DEFINE = re.compile(r'^define [^\n]*?@"?([\w.$]+)"?\(', re.M)


def defined_functions(llvm_ir: str) -> list[str]:
    return _DEFINE.findall(llvm_ir)


def _only_function(llvm_ir: str, name: str) -> str:
    """``llvm_ir`` with every function body except ``name``'s replaced by a declaration."""
    out: list[str] = []
    skipping = False
    for line in llvm_ir.splitlines():
        if skipping:
            skipping = line != "}"
            continue
        match = _DEFINE.match(line)
        if match and match.group(1) != name and line.rstrip().endswith("{"):
            header = re.sub(r"\s*(#\d+\s*)*\{\s*$", "", line)
            out.append("declare" + header[len("define"):])
            skipping = True
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def _failing_function(llvm_ir: str, arch: str, ptx_version: int, stderr: str) -> str | None:
    """The function whose code generation aborted: from LLVM's message if it says, else found by
    compiling each defined function on its own."""
    for pattern in (r"In function: ([\w.$]+)", r"on function '@?\"?([\w.$]+)"):
        match = re.search(pattern, stderr)
        if match:
            return match.group(1)
    names = defined_functions(llvm_ir)
    if len(names) == 1:
        return names[0]
    for name in names:
        result = _fork_run(_only_function(llvm_ir, name), arch, ptx_version)
        if result is not None and result[1] is not None:
            return name
    return None


def _forked_codegen(llvm_ir: str, arch: str, ptx_version: int, meanwhile: Callable[[], None] | None = None) -> str:
    child = _fork_start(llvm_ir, arch, ptx_version)
    if child is None:
        if meanwhile is not None:
            meanwhile()
        return _isolated_codegen(llvm_ir, arch, ptx_version)
    if meanwhile is not None:
        try:
            meanwhile()
        except BaseException:
            _fork_cancel(child)
            raise
    return _child_ptx(_fork_finish(child), llvm_ir, arch, ptx_version)


def _child_ptx(finished: tuple[int | None, int | None, str, str], llvm_ir: str, arch: str, ptx_version: int) -> str:
    """The PTX of a code generation child that :func:`_fork_finish` reaped, or the
    :class:`BackendError` that says why it has none (an abort is traced to its function by
    compiling each function again, in more children: call this on the main thread)."""
    code, sig, out, err = finished
    if code == 0:
        return out
    lines = [l for l in err.splitlines() if l.strip()]
    message = next((l for l in reversed(lines) if l.startswith("tileorch:")), None)
    if sig is None and message is not None:
        raise BackendError(message.removeprefix("tileorch: "))
    llvm_error = next((l.strip()[l.find("Assertion"):] if "Assertion" in l else l.strip()
                       for l in lines if "LLVM ERROR" in l or "Assertion" in l), None)
    import signal

    what = f"signal {signal.Signals(sig).name}" if sig is not None else f"exit status {code}"
    function = _failing_function(llvm_ir, arch, ptx_version, err)
    where = f" in function '@{function}'" if function else ""
    raise BackendError(
        f"internal error: LLVM code generation aborted{where} ({llvm_error or what}); "
        "please report this input"
    )


def check_ptx(ptx: str) -> None:
    """Reject PTX that calls an intrinsic LLVM did not recognise (ptxas would fail later)."""
    match = re.search(r"\.extern \.func[^\n]*?(llvm\.[\w.]+)", ptx)
    if match:
        raise BackendError(f"LLVM did not recognise intrinsic '{match.group(1)}' (it became an .extern .func)")


def llvm_to_ptx(llvm_ir: str, arch: str = DEFAULT_ARCH, ptx_version: int = DEFAULT_PTX_VERSION, isolate: bool = True,
                meanwhile: Callable[[], None] | None = None) -> str:
    """PTX text for ``llvm_ir``; raises :class:`BackendError` on any failure.

    ``meanwhile`` (optional) runs in this process while a forked child generates the code
    (``isolate``; before code generation otherwise): the backend verifies the lowered module
    there, off the critical path on a machine with a core to spare.  An exception it raises
    stops the child and propagates."""
    from tileorch.backend import memo

    target_features(ptx_version)
    digest = memo.key(llvm_ir, arch, str(ptx_version), _llvmlite_version()) if memo.directory() else None
    hit = memo.load("codegen", digest) if digest else None
    if hit is not None:
        if meanwhile is not None:
            meanwhile()
        return hit.decode()
    if isolate:
        ptx = _forked_codegen(llvm_ir, arch, ptx_version, meanwhile)
    else:
        if meanwhile is not None:
            meanwhile()
        ptx = codegen(llvm_ir, arch, ptx_version)
    check_ptx(ptx)
    if digest:
        memo.store("codegen", digest, ptx.encode())
    return ptx


class PendingCodegen:
    """Code generation started in a forked child, with ``then`` (ptxas) run on its PTX by a
    helper thread as soon as the child delivers it: the caller verifies the lowered module
    meanwhile, then takes :meth:`ptx` and :meth:`then_result`.  On a machine with a core to
    spare, code generation, ptxas and the verification overlap (ptxas is a subprocess: the thread
    holds no lock while it waits).

    :func:`start_codegen` makes one, or returns None where the code generation memo is on or
    the process cannot fork (the caller then takes the sequential path)."""

    def __init__(self, child: tuple[int, ...], llvm_ir: str, arch: str, ptx_version: int,
                 then: Callable[[str], object]):
        import threading

        self._args = (llvm_ir, arch, ptx_version)
        self._then = then
        self._child = child
        self._delivered = threading.Event()
        self._box: dict = {}
        self._waiter = threading.Thread(target=self._finish, name="tileorch-codegen", daemon=True)
        self._waiter.start()

    def _finish(self) -> None:
        reaped = True
        try:
            # the PTX as soon as the child wrote it whole: ``then`` (ptxas) starts while the child
            # exits (the teardown of its LLVM), and the child is reaped after it
            self._box["finished"], reaped = _fork_collect(self._child, reap=False)
        finally:
            self._delivered.set()
        finished = self._box["finished"]
        try:
            if finished[0] != 0:
                return
            try:
                check_ptx(finished[2])
                self._box["then"] = self._then(finished[2])
            except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread by then_result
                self._box["error"] = exc
        finally:
            if not reaped:
                _wait_child(self._child)

    def ptx(self) -> str:
        """The PTX, once the child delivered it; :class:`BackendError` if code generation failed."""
        self._delivered.wait()
        finished = self._box.get("finished")
        if finished is None:  # reading the child failed: its error is the thread's
            self._waiter.join()
            raise BackendError("LLVM code generation failed: its child process could not be read")
        if finished[0] != 0:
            self._waiter.join()
        return _child_ptx(finished, *self._args)

    def then_result(self):
        """``then(ptx)``, once it finished (its exception, or :func:`check_ptx`'s, raised here)."""
        self._waiter.join()
        if "error" in self._box:
            raise self._box["error"]
        return self._box["then"]

    def wait(self) -> None:
        """Let the child and ``then`` finish (before an error of the caller's propagates)."""
        self._waiter.join()


def start_codegen(llvm_ir: str, arch: str, ptx_version: int, then: Callable[[str], object]) -> PendingCodegen | None:
    """Start :class:`PendingCodegen`, or None (memo on, no fork): use :func:`llvm_to_ptx` then."""
    from tileorch.backend import memo

    target_features(ptx_version)
    if memo.directory():
        return None
    child = _fork_start(llvm_ir, arch, ptx_version)
    return None if child is None else PendingCodegen(child, llvm_ir, arch, ptx_version, then)


def _llvmlite_version() -> str:
    """llvmlite's version and the identity (size, modification time) of its LLVM library: part of
    the code generation memo's key, read without loading LLVM (a process whose code generation
    child loads it, :func:`prefork_codegen`, then loads it only there)."""
    import glob

    import llvmlite

    libraries = sorted(glob.glob(os.path.join(os.path.dirname(llvmlite.__file__), "binding", "libllvmlite.*")))
    identity = []
    for path in libraries:
        try:
            st = os.stat(path)
        except OSError:
            continue
        identity.append(f"{os.path.basename(path)}:{st.st_size}:{st.st_mtime_ns}")
    return f"{llvmlite.__version__}/{','.join(identity) or '?'}"


def cannot_select_intrinsic(message: str) -> str | None:
    """The intrinsic named in an LLVM ``Cannot select`` message, if any."""
    match = re.search(r"(llvm\.nvvm\.[\w.]+)", message)
    return match.group(1) if match else None


def _main(argv: list[str]) -> int:
    arch, version = argv[0], int(argv[1])
    try:
        _init_llvm(direct=True)  # this process only generates code
        sys.stdout.write(codegen(sys.stdin.read(), arch, version))
    except BackendError as exc:
        print(f"tileorch: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
