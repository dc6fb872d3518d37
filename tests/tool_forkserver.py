"""A fork server for the test suite's Python command-line tools: ``tileorch-opt``, ``tileorch``
and ``filecheck`` in the lit suite's RUN lines, ``python -m tileorch.cli.main`` /
``python -m tileorch.tools.opt`` in the unit tests that run the real commands.

Each start of a fresh Python for one of them spends most of its CPU importing xDSL and tileorch
(about 0.4 s of the 0.5-1 s a typical ``tileorch-opt`` run takes).  This server imports them once;
client scripts (named like the tools, or ``python-m-MODULE``) hand their arguments, environment,
working directory and standard streams (the file descriptors themselves) to the server, which
forks a child per call.  The child takes the client's streams, environment, directory and
``sys.argv`` and runs the tool as a fresh process would: a console script's
``sys.exit(main())``, or the module as ``__main__`` for ``python -m`` (uncaught exceptions print
their traceback and exit 1, ``atexit`` handlers run); its exit status goes back to the client,
which exits with it.  A child starts from the server's state after the imports, never from
another call's.  A client that cannot reach the server runs the installed tool itself
(``os.execv``), so the results never depend on the server being there.

tests/test_lit.py starts one for its shards (tests/filecheck/lit.cfg.py puts the clients first on
PATH when ``TILEORCH_TOOL_FORKSERVER_BIN`` names their folder; run alone, lit uses the installed
tools); :func:`forked` gives the unit tests' commands (``TILEORCH_TEST_FORKSERVER=0``: fresh Pythons).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib import import_module

# tool name -> console-script entry point (pyproject.toml's [project.scripts], filecheck's own)
TOOLS = {
    "tileorch-opt": "tileorch.tools.opt:main",
    "tileorch": "tileorch.cli.main:main",
    "filecheck": "filecheck.main:main",
}
BIN_ENV = "TILEORCH_TOOL_FORKSERVER_BIN"  # the clients' folder, read by tests/filecheck/lit.cfg.py
# modules run as ``python -m MODULE`` (the unit tests' command-line cases, :func:`python_m`)
MODULES = ("tileorch.cli.main", "tileorch.tools.opt")

_HEADER = 8  # bytes of the request's length prefix

CLIENT = """\
#!{python} -IS
# fork-server client for {tool} (tests/tool_forkserver.py); runs {real} when the server is gone.
# Only C modules are imported (_socket, not socket: no enum, selectors; the request as ascii(), not
# json: no re): about half the CPU of a client that imports socket and json, ~1,000 clients a run
import os, sys, _socket
try:
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    s.connect({sock!r})
except OSError:
    os.execv({real[0]!r}, [*{real!r}, *sys.argv[1:]])
body = ascii({{{kind!r}: {tool!r}, "argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd()}}).encode()
fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # the C ints of SCM_RIGHTS
s.sendmsg([len(body).to_bytes({header}, "little") + body], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
for fd in (0, 1, 2):  # only the child holds the streams now: a pipe's reader sees its end when the child exits
    os.close(fd)
status = b""
while len(status) < 4:
    chunk = s.recv(4 - len(status))
    if not chunk:
        os._exit(1)  # the child died without an exit status (killed)
    status += chunk
os._exit(int.from_bytes(status, "little", signed=True) & 0xFF)
"""


def _entry(tool: str):
    module, _, attr = TOOLS[tool].partition(":")
    return getattr(import_module(module), attr)


def _preload() -> None:
    """Import the tools and every module the tileorch registry names (dialects, passes, targets,
    checks), so that a child imports none of them again.  An import that fails here is left to
    the child, which reports it as the tool would."""
    for tool in TOOLS:
        with contextlib.suppress(Exception):
            _entry(tool)
    for module in MODULES:
        with contextlib.suppress(Exception):
            import_module(module)
    with contextlib.suppress(Exception):
        from tileorch import registry

        for table in (registry.DIALECTS, registry.PASSES, registry.TARGETS):
            for ref in table.values():
                with contextlib.suppress(Exception):
                    registry.resolve(ref)
        for ref in registry.OP_CHECKS:
            with contextlib.suppress(Exception):
                registry.resolve(ref)
    for module in _on_first_use():
        with contextlib.suppress(Exception):
            import_module(module)


LAZY_PACKAGES = ("tileorch.transforms", "tileorch.dialects", "tileorch.backend", "tileorch.analysis",
                 "tileorch.kernels", "tileorch.frontend")
"""Packages whose modules the passes import on first use, inside a function (a tier pass's helpers:
``chained_dots`` and the ~15 modules it reads): preloaded too, else every child imports them again."""
XDSL_ON_FIRST_USE = ("xdsl.targets.mlir", "xdsl.syntax_printer", "xdsl.utils.color_printer",
                     "xdsl.irdl.declarative_assembly_format_parser")
"""xDSL modules ``tileorch-opt`` imports on first use (printing its result: the MLIR target)."""


def _on_first_use() -> list[str]:
    """:data:`XDSL_ON_FIRST_USE` and every module of :data:`LAZY_PACKAGES` (packages that fail to import are
    left out: the child reports that as the tool would)."""
    import pkgutil

    names = list(XDSL_ON_FIRST_USE)
    for package in LAZY_PACKAGES:
        try:
            path = import_module(package).__path__
        except Exception:  # noqa: BLE001
            continue
        names += [m.name for m in pkgutil.walk_packages(path, package + ".", onerror=lambda _name: None)
                  if not m.name.endswith("__main__")]
    return names


def _fresh_std_streams() -> None:
    """New ``sys.stdin``/``stdout``/``stderr`` on fds 0-2, made as the interpreter makes them at
    startup (the server's own objects remember its streams: seekable, buffered, tty or not)."""
    buffered = not os.environ.get("PYTHONUNBUFFERED")  # the client's environment (no -u on the tools' shebangs)
    streams = []
    for fd, old in ((0, sys.__stdin__), (1, sys.__stdout__), (2, sys.__stderr__)):
        writing = fd > 0
        raw = open(fd, "wb" if writing else "rb", buffering=-1 if buffered or not writing else 0, closefd=False)
        streams.append(io.TextIOWrapper(raw, encoding=old.encoding, errors=old.errors, newline="\n",
                                        line_buffering=buffered and (fd == 2 or os.isatty(fd)),
                                        write_through=not buffered))
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams


def _run_tool(request: dict) -> int:
    """Run one tool call in this (forked) process: the client's directory, environment and
    arguments, its streams already on fds 0-2.  Returns the exit status."""
    import atexit
    import traceback

    from tileorch.cli.main import exit_status  # the status sys.exit(code) gives, as the real program

    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    _fresh_std_streams()
    sys.argv = list(request["argv"])
    sys.argv[0] = sys.argv[0].removesuffix(".exe")
    try:
        if "module" in request:  # python -m MODULE: the module's code as __main__, its return ignored
            import runpy

            sys.modules.pop(request["module"], None)  # as in a fresh ``python -m``: not imported under its name
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            status = 0
        else:  # the console script: sys.exit(main())
            status = exit_status(_entry(request["tool"])())
    except SystemExit as exc:
        status = exit_status(exc.code)
    except BaseException:  # noqa: BLE001  (as the interpreter reports an uncaught exception)
        traceback.print_exc()
        status = 1
    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that stopped early; a stream the tool closed
            status = status or 120
    return status


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    if not data:
        raise EOFError("the client closed the connection before its request")
    size = int.from_bytes(data[:_HEADER], "little")
    body = data[_HEADER:]
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise EOFError("the client closed the connection mid-request")
        body += chunk
    return ast.literal_eval(body.decode("ascii")), fds  # the client's ascii() of its request (literals only)


def _child(conn: socket.socket, listener: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: take the client's streams, run the tool, report, exit."""
    status = 1
    try:
        listener.close()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        status = _run_tool(request)
    finally:
        with contextlib.suppress(OSError):
            conn.sendall(int(status).to_bytes(4, "little", signed=True))
        os._exit(0)


def _reap(block: bool = False) -> None:
    """Wait for finished children (their CPU then counts in this process's children's usage)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(path: str) -> None:
    """Accept tool calls on the UNIX socket ``path`` until SIGTERM; prints ``ready`` when listening."""
    _preload()
    import gc

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.settimeout(0.2)

    def stop(_signum, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    gc.collect()
    gc.freeze()  # the imported objects stay out of the children's collections (no copy-on-write churn)
    parent = os.getppid()
    print("ready", flush=True)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                _reap()
                if os.getppid() != parent:  # the test process is gone without stopping us
                    break
                continue
            conn.settimeout(None)
            fds: list[int] = []
            try:
                request, fds = _receive(conn)
                sys.stdout.flush()
                sys.stderr.flush()
                if os.fork() == 0:
                    _child(conn, listener, request, fds)
            except (OSError, EOFError, ValueError) as exc:
                print(f"tool fork server: dropped a request: {exc}", file=sys.stderr, flush=True)
            finally:
                for fd in fds:  # the child has its own copies: a pipe closes when the child exits
                    os.close(fd)
                conn.close()
            _reap()
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
        _reap(block=True)


def write_clients(folder: str, sock: str) -> None:
    """One client script per tool (named as the tool) and per module (``python-m-MODULE``) in
    ``folder``, each talking to the server at ``sock`` and falling back to the installed tool or
    ``python -m MODULE``."""
    bindir = os.path.dirname(sys.executable)
    clients = [(tool, "tool", tool, [os.path.join(bindir, tool)]) for tool in TOOLS]
    clients += [(f"python-m-{module}", "module", module, [sys.executable, "-m", module]) for module in MODULES]
    for name, kind, tool, real in clients:
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(CLIENT.format(python=sys.executable, kind=kind, tool=tool, real=real, sock=sock, header=_HEADER))
        os.chmod(path, 0o755)


@contextlib.contextmanager
def running() -> Iterator[dict[str, str]]:
    """A server for the duration of the block; yields the environment variables that make lit
    (tests/filecheck/lit.cfg.py) use it.  Stopped (SIGTERM) and waited for on exit."""
    with tempfile.TemporaryDirectory(prefix="tileorch-tool-fork-") as tmp:
        sock = os.path.join(tmp, "s")
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        write_clients(bindir, sock)
        proc = subprocess.Popen([sys.executable, __file__, sock], stdout=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"the tool fork server did not start (said {line!r}, exit {proc.poll()})")
            yield {BIN_ENV: bindir}
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()


_SHARED: list = []  # the process's server for python_m: [context manager, its environment]


def python_m(module: str) -> list[str]:
    """The command that runs ``python -m module`` (one of :data:`MODULES`) in a fork of a server
    started on first use in this process and stopped at its exit (CPU then counted in the
    process's children); ``[sys.executable, "-m", module]`` when ``TILEORCH_TEST_FORKSERVER=0``."""
    if module not in MODULES or os.environ.get("TILEORCH_TEST_FORKSERVER", "1") == "0":
        return [sys.executable, "-m", module]
    if not _SHARED:
        import atexit

        context = running()
        _SHARED[:] = [context, context.__enter__()]
        atexit.register(stop_shared)
    return [os.path.join(_SHARED[1][BIN_ENV], f"python-m-{module}")]


def forked(cmd: list[str]) -> list[str]:
    """``cmd`` with a leading ``sys.executable -m MODULE`` (one of :data:`MODULES`) replaced by
    :func:`python_m`'s command, and ``sys.executable -m tileorch`` (the package's ``__main__``, the
    ``tileorch`` command) by the ``tileorch`` tool's client (:func:`tool`); any other command unchanged."""
    if len(cmd) >= 3 and cmd[0] == sys.executable and cmd[1] == "-m" and cmd[2] in MODULES:
        return [*python_m(cmd[2]), *cmd[3:]]
    if len(cmd) >= 3 and cmd[0] == sys.executable and cmd[1] == "-m" and cmd[2] == "tileorch":
        return [*tool("tileorch"), *cmd[3:]]
    return list(cmd)


def tool(name: str) -> list[str]:
    """The command that runs the tool ``name`` (one of :data:`TOOLS`) in a fork of the server :func:`python_m`
    starts (its console-script entry point, as in lit's RUN lines: ``tileorch.cli.main:main`` for ``tileorch``, the
    status and streams of ``python -m tileorch``); ``python -m tileorch`` for ``tileorch`` and the installed script
    otherwise when ``TILEORCH_TEST_FORKSERVER=0``."""
    if os.environ.get("TILEORCH_TEST_FORKSERVER", "1") == "0":
        return [sys.executable, "-m", "tileorch"] if name == "tileorch" else [os.path.join(os.path.dirname(
            sys.executable), name)]
    python_m(MODULES[0])  # the shared server (started on first use)
    return [os.path.join(_SHARED[1][BIN_ENV], name)]


def stop_shared() -> None:
    """Stop the server :func:`python_m` started (tests/conftest.py calls it at the session's end)."""
    if _SHARED:
        context = _SHARED[0]
        _SHARED.clear()
        context.__exit__(None, None, None)


if __name__ == "__main__":
    serve(sys.argv[1])
