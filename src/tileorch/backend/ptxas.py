"""Run ``ptxas`` on PTX text: the user learns at compile time, not at launch, that it is wrong.

ptxas reports a dropped ``setmaxnreg`` (C7504, C7508) as an info line and succeeds, but a
warp-specialized kernel then runs without its register reallocation (the consumer warp groups
may spill): :func:`run_ptxas` treats those two codes as errors unless asked not to.

Which ``ptxas`` runs (:func:`find_ptxas`): the file named by ``TILEORCH_PTXAS``, else the one
inside NVIDIA's ``nvidia-cuda-nvcc`` pip wheel (a dependency of tileorch, so ``pip install``
alone brings it), else the first ``ptxas`` on ``PATH``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from tileorch.backend.ptx import BackendError, seconds_from_env

IGNORED_SETMAXNREG_CODES = ("C7504", "C7508")
SETMAXNREG_HINT = (
    "setmaxnreg needs the register count at kernel entry: give the kernel nvvm.maxntid and "
    "nvvm.minctasm (C7508), and do not call external device functions (func.func private "
    "declarations become .extern .func, relocatable code compiled separately: C7504)"
)


class PtxasUnavailable(BackendError):
    """No ptxas can run: none found, ``TILEORCH_PTXAS`` naming no executable file, a file that
    does not execute, or a ptxas that failed without a word.  A fault of the installation, not of
    the program: reported as ``ptxas: error: ...`` (no source position)."""


class IgnoredSetmaxnregError(BackendError):
    """ptxas dropped ``setmaxnreg``; ``kernels`` are the PTX entry points that use it."""

    def __init__(self, message: str, kernels: list[str]):
        super().__init__(message)
        self.kernels = kernels


def setmaxnreg_kernels(ptx: str) -> list[str]:
    """Names of the ``.entry`` functions whose bodies contain ``setmaxnreg``."""
    names: list[str] = []
    current = None
    for line in ptx.splitlines():
        header = re.match(r"\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?(\w+)", line)
        if header:
            current = header.group(2) if header.group(1) == "entry" else None
        elif current is not None and "setmaxnreg" in line and current not in names:
            names.append(current)
    return names


@dataclass(frozen=True)
class PtxasResult:
    """What ptxas produced: the cubin, its size, warning lines and ``-v`` resource lines."""

    cubin_bytes: int
    messages: list[str]  # ptxas warning lines (e.g. C7508 'setmaxnreg ignored')
    cubin: bytes = field(default=b"", repr=False)  # the assembled ELF
    info: list[str] = field(default_factory=list, repr=False)  # ``ptxas -v`` resource lines

    @property
    def resources(self) -> dict[str, dict[str, int]]:
        """Per function, what ``ptxas -v`` reported: ``registers``, ``spill_stores``,
        ``spill_loads``, ``stack`` (bytes) and ``smem`` (static shared bytes)."""
        return parse_resources(self.info or self.messages)

    def summary(self) -> str:
        """``"k: 168 registers, 0 spills, 0 B stack"`` per kernel (``;``-separated), for remarks."""
        return resource_summary(self.resources)

    def spill_warnings(self) -> list[str]:
        """One line per function that spills registers to local memory (slow: a warning)."""
        return spill_warnings(self.resources)


def resource_summary(resources: dict[str, dict[str, int]]) -> str:
    parts = []
    for fn, r in resources.items():
        if "registers" not in r:  # a device function ptxas folded into its callers
            continue
        spills = r.get("spill_stores", 0) + r.get("spill_loads", 0)
        parts.append(f"{fn}: {r.get('registers', 0)} registers, "
                     + (f"{r.get('spill_stores', 0)} B spill stores + {r.get('spill_loads', 0)} B spill loads"
                        if spills else "0 spills")
                     + f", {r.get('stack', 0)} B stack")
    return "; ".join(parts)


def spill_warnings(resources: dict[str, dict[str, int]]) -> list[str]:
    return [f"warning: ptxas spilled registers of {fn}: {r['spill_stores']} B stores, {r['spill_loads']} B loads "
            f"({r.get('registers', 0)} registers)"
            for fn, r in resources.items() if r.get("spill_stores", 0) or r.get("spill_loads", 0)]


def resource_remarks(resources: dict[str, dict[str, int]]) -> list[str]:
    """``remark: ptxas: <summary>`` and the spill warnings (empty without resources)."""
    summary = resource_summary(resources)
    return ([f"remark: ptxas: {summary}"] if summary else []) + spill_warnings(resources)


WGMMA_SERIALIZED = "wgmma.mma_async instructions are serialized"
"""ptxas's info when it serialized the WGMMAs of a function, whatever the reason it gives: C7513 (a
register the code writes or reads while a WGMMA reading or writing it may be in flight), C7512
(insufficient register resources); ptxas then waits after every WGMMA."""


def wgmma_serialization_warnings(lines: list[str]) -> list[str]:
    """``warning: ptxas: ...`` for each ptxas line saying it serialized the WGMMAs of a function
    (correct code, lost overlap; for a kernel built to overlap WGMMAs a bug of its lowering)."""
    return [f"warning: ptxas: {l.split(':', 1)[1].strip()}" for l in lines if WGMMA_SERIALIZED in l]


_FN_RE = re.compile(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?")
_SPILL_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers")
_SMEM_RE = re.compile(r"(\d+) bytes smem")


def parse_resources(lines: list[str]) -> dict[str, dict[str, int]]:
    """Registers, spills, stack and static shared memory per function from ``ptxas -v`` lines."""
    out: dict[str, dict[str, int]] = {}
    current = None
    for line in lines:
        m = _FN_RE.search(line)
        if m:
            current = out.setdefault(m.group(1), {})
            continue
        if current is None:
            continue
        m = _SPILL_RE.search(line)
        if m:
            current.update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = _USED_RE.search(line)
        if m:
            current["registers"] = int(m.group(1))
            sm = _SMEM_RE.search(line)
            if sm:
                current["smem"] = int(sm.group(1))
    return out


PTXAS_ENV = "TILEORCH_PTXAS"
TIMEOUT_ENV = "TILEORCH_PTXAS_TIMEOUT"
DEFAULT_TIMEOUT_S = 300.0
"""Seconds one ptxas run may take before it is stopped with an error (``TILEORCH_PTXAS_TIMEOUT``
overrides; ``0`` or ``none``: no limit).  The largest kernels assemble in a few seconds: a run
this long is a hung ptxas, not a slow one, and a compile must not wait on it without end."""


def ptxas_timeout() -> float | None:
    """:data:`DEFAULT_TIMEOUT_S`, or ``TILEORCH_PTXAS_TIMEOUT`` (seconds; ``0``/``none``: None, no
    limit).  A value that is not a number of seconds >= 0 raises :class:`BackendError`."""
    return seconds_from_env(TIMEOUT_ENV, DEFAULT_TIMEOUT_S)


WHEEL_DISTRIBUTION = "nvidia-cuda-nvcc"
# where the wheels put it, below a ``nvidia`` namespace package directory (CUDA 13: cu13/bin;
# CUDA 12's nvidia-cuda-nvcc-cu12: cuda_nvcc/bin)
WHEEL_SUBDIRS = ("cu13/bin", "cu12/bin", "cuda_nvcc/bin")
_EXE = "ptxas.exe" if os.name == "nt" else "ptxas"


@dataclass(frozen=True)
class PtxasLocation:
    """The ptxas executable found and where it was found."""

    path: str
    source: str  # "TILEORCH_PTXAS", "nvidia-cuda-nvcc wheel" or "PATH"


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def wheel_ptxas() -> str | None:
    """The ``ptxas`` shipped in the installed ``nvidia-cuda-nvcc`` wheel, or None.

    Looked for first where that wheel installs it (``nvidia/<cu13|cu12|cuda_nvcc>/bin`` of the
    ``nvidia`` namespace package: a few ``stat`` calls), then in the wheel's file list
    (``importlib.metadata``: reading every installed distribution's metadata costs ~60 ms, a
    tenth of a small cold compile, so only for an odd layout)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        spec = None
    for root in (spec.submodule_search_locations or []) if spec is not None else []:
        for sub in WHEEL_SUBDIRS:
            path = os.path.join(root, sub, _EXE)
            if _executable(path):
                return path
    import importlib.metadata as md

    try:
        files = md.files(WHEEL_DISTRIBUTION) or []
    except md.PackageNotFoundError:
        files = []
    for f in files:
        if f.name == _EXE and f.parent.name == "bin":
            path = str(f.locate())
            if _executable(path):
                return path
    return None


def find_ptxas() -> PtxasLocation | None:
    """``TILEORCH_PTXAS``, then the ``nvidia-cuda-nvcc`` wheel, then ``PATH``; None if none.

    A ``TILEORCH_PTXAS`` that names no executable file raises :class:`BackendError` (a typo
    there must not silently pick another ptxas)."""
    env = os.environ.get(PTXAS_ENV)
    if env:
        if not _executable(env):
            raise PtxasUnavailable(f"{PTXAS_ENV}={env} is not an executable file")
        return PtxasLocation(env, PTXAS_ENV)
    path = wheel_ptxas()
    if path is not None:
        return PtxasLocation(path, f"{WHEEL_DISTRIBUTION} wheel")
    import shutil

    path = shutil.which("ptxas")
    return PtxasLocation(path, "PATH") if path is not None else None


NOT_FOUND = (
    f"ptxas not found: set {PTXAS_ENV}, `pip install {WHEEL_DISTRIBUTION}`, or put CUDA's bin "
    "directory on PATH (or use --no-ptxas to skip assembling)"
)


def ptxas_path() -> str:
    """The ``ptxas`` to run; raises :class:`BackendError` when there is none."""
    loc = find_ptxas()
    if loc is None:
        raise PtxasUnavailable(NOT_FOUND)
    return loc.path


def ptxas_version(path: str) -> str | None:
    """``13.0.88`` from ``ptxas --version`` (None if it does not run)."""
    import subprocess

    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"\bV(\d+\.\d+\.\d+)", proc.stdout)
    return m.group(1) if m else None


def ptxas_available() -> bool:
    try:
        return find_ptxas() is not None
    except BackendError:
        return False


def _clean(line: str, path: str) -> str:
    return line.replace(path, "<ptx>").strip()


PTX_SYSTEM_CALLS = frozenset({"vprintf", "__assertfail", "malloc", "free"})
"""Functions ptxas resolves itself (the PTX ABI's system calls): a program that calls only these
stays a whole program (no ``-c``)."""


def external_functions(ptx: str) -> set[str]:
    """Names of the functions ``ptx`` declares ``.extern .func`` (with or without a return
    parameter list)."""
    return set(re.findall(r"^\.extern \.func\s*(?:\([^)]*\)\s*)?([\w$]+)", ptx, re.M))


def run_ptxas(
    ptx: str, arch: str, extra_args: tuple[str, ...] = (), allow_ignored_setmaxnreg: bool = False
) -> PtxasResult:
    """Assemble ``ptx`` for ``arch``; raise :class:`BackendError` with ptxas's errors, and
    :class:`IgnoredSetmaxnregError` when ptxas ignored ``setmaxnreg`` (C7504 / C7508) unless
    ``allow_ignored_setmaxnreg``.

    PTX that calls functions declared ``.extern`` (external device functions) is relocatable
    code, linked later: it is assembled with ``-c`` (compile only), like ``nvcc -rdc``.
    """
    if external_functions(ptx) - PTX_SYSTEM_CALLS and "-c" not in extra_args:
        extra_args = ("-c", *extra_args)
    if "-v" not in extra_args:  # registers, spills and stack per function (PtxasResult.resources)
        extra_args = (*extra_args, "-v")
    exe = ptxas_path()
    lines, cubin = _assemble(exe, ptx, arch, extra_args)
    ignored = [l for l in lines if any(f"({code})" in l for code in IGNORED_SETMAXNREG_CODES)]
    if ignored and not allow_ignored_setmaxnreg:
        kernels = setmaxnreg_kernels(ptx)
        raise IgnoredSetmaxnregError(
            f"ptxas ignored setmaxnreg in kernel {', '.join(kernels) or '<unknown>'}: "
            + "; ".join(ignored) + f"; {SETMAXNREG_HINT}",
            kernels,
        )
    info = [l for l in lines if l.startswith("ptxas info") or "bytes stack frame" in l]
    return PtxasResult(len(cubin), [l for l in lines if l not in info], cubin, info)


def without_ctas_hint(ptx: str, kernels: set[str]) -> str:
    """``ptx`` without the ``.minnctapersm`` directive of the entries named in ``kernels`` (the
    header between ``.entry NAME(`` and the body's ``{``); other entries unchanged."""
    out, current = [], None
    for line in ptx.split("\n"):
        m = re.match(r"\s*(?:\.visible\s+)?\.entry\s+([\w$.]+)", line)
        if m:
            current = m.group(1)
        elif line.strip() == "{":
            current = None
        if current in kernels and line.strip().startswith(".minnctapersm"):
            continue
        out.append(line)
    return "\n".join(out)


def spilled(result: PtxasResult, kernels: set[str]) -> set[str]:
    """The kernels of ``kernels`` that ``result`` says spill registers."""
    return {k for k, r in result.resources.items()
            if k in kernels and (r.get("spill_stores", 0) or r.get("spill_loads", 0))}


def prepare_run() -> None:
    """Make :func:`run_ptxas`'s imports (``subprocess``, ``tempfile``: 5-10 ms of CPU in a fresh
    process) and find ptxas now: a caller waiting for a code generation child calls it then, so
    that the thread that runs ptxas the moment the PTX arrives does not import them on the
    critical path.  No ptxas is no error here (:func:`run_ptxas` raises it)."""
    import subprocess  # noqa: F401
    import tempfile  # noqa: F401

    try:
        ptxas_path()
    except BackendError:
        pass


def _assemble(exe: str, ptx: str, arch: str, extra_args: tuple[str, ...]) -> tuple[list[str], bytes]:
    """(ptxas's output lines, the cubin) of a successful run; :class:`BackendError` with its
    errors otherwise.  Answered by :mod:`tileorch.backend.memo` when it is on."""
    import subprocess  # here, not at the top: a cache hit imports this module and runs no ptxas
    import tempfile

    from tileorch.backend import memo

    digest = None
    if memo.directory() is not None:
        try:
            st = os.stat(exe)
            digest = memo.key(exe, f"{st.st_size}:{st.st_mtime_ns}", arch, "\0".join(extra_args), ptx)
        except OSError:
            digest = None
        hit = memo.load("ptxas", digest) if digest else None
        if hit is not None:
            head, _, cubin = hit.partition(b"\0")
            return json.loads(head), cubin
    with tempfile.TemporaryDirectory(prefix="tileorch-ptxas-") as tmp:
        src, out = os.path.join(tmp, "kernel.ptx"), os.path.join(tmp, "kernel.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        timeout = ptxas_timeout()
        try:
            proc = subprocess.run(
                [exe, f"-arch={arch}", *extra_args, src, "-o", out], capture_output=True, text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:  # killed by subprocess.run; never a wait without end
            raise PtxasUnavailable(f"ptxas {exe} did not finish within {timeout:g} s and was stopped (a hung "
                                   f"ptxas; {TIMEOUT_ENV} sets the limit in seconds, 0: none)") from None
        except OSError as exc:  # not a program (Exec format error), gone since it was found, ...
            raise PtxasUnavailable(f"cannot run ptxas {exe}: {exc.strerror or exc}") from None
        lines = [_clean(l, src) for l in (proc.stdout + proc.stderr).splitlines() if l.strip()]
        if proc.returncode != 0:
            if not lines:  # not a rejection of the PTX: the program failed without a word
                how = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
                       else f"exited with status {proc.returncode}")
                raise PtxasUnavailable(f"ptxas {exe} {how} and printed nothing")
            errors = [l for l in lines if "error" in l.lower()] or lines
            raise BackendError("ptxas rejected the PTX:\n  " + "\n  ".join(errors))
        try:
            with open(out, "rb") as f:
                cubin = f.read()
        except OSError:
            raise PtxasUnavailable(f"ptxas {exe} exited with status 0 but wrote no cubin") from None
    if digest:
        memo.store("ptxas", digest, json.dumps(lines).encode() + b"\0" + cubin)
    return lines, cubin
