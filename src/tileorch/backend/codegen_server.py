"""A code generation server: a small process that forks the LLVM code generation children of a
long-running process (``isolate=True`` in :func:`tileorch.backend.ptx.llvm_to_ptx`).

Why: a fork copies the parent's page tables and then pays a copy-on-write fault for every page
either side writes, so its cost grows with the parent's memory: measured on a 2-core host, fork
and exit of a child took 10 ms of CPU at 100 MB resident, 31 ms at 500 MB, 50 ms at 1 GB and
91 ms at 2 GB.  A process that compiles many kernels and keeps what it built (a test worker's
compile memos and lowered modules) paid that on every code generation.  :func:`start` forks this
server once, early, while the process is small; it loads LLVM and then forks one child per
request from its own small heap.  The child runs the same code as a child forked by the caller
(:func:`tileorch.backend.ptx._codegen_to_fds`): the same PTX, the same errors, an LLVM abort
reported the same way (the server passes the child's wait status back).

Protocol (one Unix stream socket; the server only reads it)
    The caller sends a 28-byte header (IR length, PTX version, target, ``!QI16s``) carrying
    three pipe ends as ``SCM_RIGHTS`` (PTX, stderr, status), then the LLVM IR.  The server forks
    the child, which writes the PTX or its ``tileorch:`` error line to the first two; the server
    writes the child's pid (8 bytes) to the status pipe at once and, when it has reaped it, its
    wait status (4 bytes) and CPU seconds (user + sys, a double: :func:`children_cpu_s`)
    (``SIGCHLD`` through a wakeup pipe: requests are never queued behind a running child).

The server belongs to the process that started it: a process forked from it after :func:`start`
(which shares the socket) forks its own children as before; so does every process when the
server is gone (it stops when the socket closes, at the owner's exit or :func:`stop`).
"""

from __future__ import annotations

import os
import struct
import sys
import threading

_HEADER = struct.Struct("!QI16s")

_SERVER: tuple[int, int, object] | None = None
"""(owner pid, server pid, the owner's socket) while a server runs."""

_LOCK = threading.Lock()  # one request on the socket at a time

_STATUS = struct.Struct("<id")
_CHILDREN_CPU_S = [0.0]


def children_cpu_s() -> float:
    """The CPU seconds (user + sys) of the server's children this process has waited for: CPU that
    ``resource.getrusage(RUSAGE_CHILDREN)`` shows only once the server itself is reaped."""
    return _CHILDREN_CPU_S[0]


def running() -> bool:
    """Whether this process has a server to send code generation to."""
    return _SERVER is not None and _SERVER[0] == os.getpid()


def start() -> bool:
    """Fork the server now; False (nothing started) where the process cannot fork or this process
    has a server already.  Call it early in a long-running process (its size is this process's
    now) and where no other thread runs.  ``llvm_to_ptx(isolate=True)`` uses it from then on."""
    global _SERVER
    import socket

    if running() or not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
        return False
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        return False
    if pid == 0:  # the server: never returns into the caller's code
        code = 3
        try:
            ours.close()
            code = _serve(theirs)
        finally:
            os._exit(code)
    theirs.close()
    _SERVER = (os.getpid(), pid, ours)
    return True


def stop() -> None:
    """Close this process's socket (the server then exits) and reap the server."""
    global _SERVER
    if _SERVER is None:
        return
    owner, pid, sock = _SERVER
    _SERVER = None
    sock.close()
    if owner == os.getpid():
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def submit(llvm_ir: str, arch: str, ptx_version: int) -> tuple[int, int, int, int] | None:
    """Have the server fork a code generation child for ``llvm_ir``: (child pid, PTX fd, stderr
    fd, status fd) for :func:`tileorch.backend.ptx._fork_finish`, or None when this process has no
    server (or it is gone: it is then forgotten, and the caller forks its own child)."""
    if not running():
        return None
    import socket

    payload = llvm_ir.encode()
    header = _HEADER.pack(len(payload), ptx_version, arch.encode())
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    st_r, st_w = os.pipe()
    pid = None
    with _LOCK:
        try:
            sock = _SERVER[2]
            socket.send_fds(sock, [header], [out_w, err_w, st_w])
            sock.sendall(payload)
        except OSError:
            pass
        finally:
            for fd in (out_w, err_w, st_w):
                os.close(fd)
        data = _read_exactly(st_r, 8)
        if len(data) == 8:
            pid = int.from_bytes(data, "little", signed=True)
    if pid is None:  # the server is gone
        for fd in (out_r, err_r, st_r):
            os.close(fd)
        stop()
        return None
    return pid, out_r, err_r, st_r


def wait_status(status_fd: int) -> int | None:
    """The child's wait status (as ``os.waitpid`` gives it), read from its status fd (closed
    here); None when the server stopped before it could report one."""
    try:
        data = _read_exactly(status_fd, _STATUS.size)
    finally:
        os.close(status_fd)
    if len(data) != _STATUS.size:
        return None
    status, cpu = _STATUS.unpack(data)
    _CHILDREN_CPU_S[0] += cpu
    return status


def _read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _recv_exactly(sock, size: int, into: bytearray) -> bool:
    """Append the next ``size`` bytes of ``sock`` to ``into``; False at the end of the stream."""
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            return False
        into += chunk
        size -= len(chunk)
    return True


def _serve(sock) -> int:
    """The server's loop: its exit status.  Its standard input and output are ``/dev/null`` and
    it holds none of the owner's other files."""
    import select
    import signal
    import socket

    from tileorch.backend import ptx

    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    ptx.close_all_but({0, 1, 2, sock.fileno()})
    import faulthandler

    faulthandler.disable()  # an abort in a child is the owner's to report (as in ptx._fork_start)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the owner decides; its exit closes the socket
    try:
        ptx._init_llvm(direct=True)  # llvm_direct, as ptx._fork_start: no llvmlite.binding import
        failure = None
    except BaseException as exc:  # noqa: BLE001 - reported by each child, as a preforked child does
        failure = exc
    import gc

    # what the server holds is never garbage, and a child runs one code generation and exits:
    # no collection of the inherited heap in either (a child's would also fault its pages in)
    gc.freeze()
    gc.disable()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    waiting: dict[int, int] = {}  # child pid -> its status fd
    while True:
        readable, _, _ = select.select([sock, wake_r], [], [])
        if wake_r in readable:
            os.read(wake_r, 4096)
            _reap(waiting)
        if sock not in readable:
            continue
        header, fds, _, _ = socket.recv_fds(sock, _HEADER.size, 3)
        if not header:  # the owner closed the socket
            break
        got = bytearray(header)
        if len(fds) != 3 or not _recv_exactly(sock, _HEADER.size - len(header), got):
            break
        size, ptx_version, arch = _HEADER.unpack(bytes(got))
        body = bytearray()
        if not _recv_exactly(sock, size, body):
            break
        out_w, err_w, st_w = fds
        pid = os.fork()
        if pid == 0:  # the code generation child
            code = 3
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for fd in (wake_r, wake_w, st_w, *waiting.values()):
                    os.close(fd)
                sock.close()
                os.dup2(err_w, 2)  # LLVM writes "LLVM ERROR: ..." to fd 2 before it aborts
                code = ptx._codegen_to_fds(body.decode(), arch.rstrip(b"\0").decode(), ptx_version,
                                           out_w, err_w, failure)
            finally:
                os._exit(code)
        os.close(out_w)
        os.close(err_w)
        os.write(st_w, pid.to_bytes(8, "little", signed=True))
        waiting[pid] = st_w
        _reap(waiting)
    while waiting:  # the owner is gone: let the running children finish
        pid, status, usage = os.wait4(-1, 0)
        _report(waiting, pid, status, usage)
    return 0


def _reap(waiting: dict[int, int]) -> None:
    while waiting:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _report(waiting, pid, status, usage)


def _report(waiting: dict[int, int], pid: int, status: int, usage) -> None:
    fd = waiting.pop(pid, None)
    if fd is None:
        return
    try:
        os.write(fd, _STATUS.pack(status, usage.ru_utime + usage.ru_stime))
    except OSError:  # the owner stopped waiting for it (a cancelled child)
        pass
    os.close(fd)
