"""A content-addressed memo of the backend's pure steps, for test sessions: LLVM code generation
(LLVM IR -> PTX) and ptxas (PTX -> cubin and its messages).

Off unless ``TILEORCH_BACKEND_MEMO`` names a directory (the test suite's conftest sets one per
run, shared by its xdist workers): the same LLVM IR or PTX reaching the backend again, in any
process of the run, is then answered from the directory instead of running LLVM or ptxas
again.  Only successful results are stored; a failure always runs the step.  The key is a
SHA-256 of every input of the step (the text, the target, the options and, for ptxas, the
binary's path, size and modification time), so a hit returns what the step would have
returned.  The compile-once cache of whole programs is :mod:`tileorch.cache`; this memo only
saves the repeated back-end work of many tests compiling the same kernels.
"""

from __future__ import annotations

import os

ENV = "TILEORCH_BACKEND_MEMO"


def directory() -> str | None:
    """The memo directory, or ``None`` when the memo is off."""
    return os.environ.get(ENV) or None


def key(*parts: str | bytes) -> str:
    """SHA-256 of ``parts`` (each length-prefixed, so no two part lists collide)."""
    import hashlib  # (here: a compile without the memo does not load OpenSSL's hashlib)

    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def load(kind: str, digest: str) -> bytes | None:
    """The bytes stored under ``kind/digest``, or ``None`` (memo off, or no entry)."""
    root = directory()
    if root is None:
        return None
    try:
        with open(os.path.join(root, kind, digest), "rb") as f:
            return f.read()
    except OSError:
        return None


def store(kind: str, digest: str, data: bytes) -> None:
    """Store ``data`` under ``kind/digest`` (atomically: concurrent workers never read half an
    entry); a directory that cannot be written is ignored."""
    root = directory()
    if root is None:
        return
    folder = os.path.join(root, kind)
    try:
        os.makedirs(folder, exist_ok=True)
        tmp = os.path.join(folder, f".{digest}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(folder, digest))
    except OSError:
        pass
