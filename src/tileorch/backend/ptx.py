"""LLVM IR text -> PTX with llvmlite's NVPTX backend (LLVM 22).

An intrinsic the chosen PTX version cannot select makes LLVM abort the whole process
(``LLVM ERROR: Cannot select``).  :func:`llvm_to_ptx` therefore runs code generation
in a child process by default (``isolate=True``) and turns such an abort into a
:class:`BackendError`; ``isolate=False`` runs in process (faster, for trusted input).
The PTX is also checked for ``.extern .func llvm.`` (an intrinsic LLVM did not know).
"""

from __future__ import annotations

import re
import subprocess
import sys

DEFAULT_ARCH = "sm_90a"
DEFAULT_PTX_VERSION = 86
SUPPORTED_PTX_VERSIONS = (80, 81, 82, 83, 84, 85, 86, 87, 88, 90)


class BackendError(Exception):
    """LLVM or ptxas rejected the module; ``str()`` is the user-facing message."""


def target_features(ptx_version: int) -> str:
    if ptx_version not in SUPPORTED_PTX_VERSIONS:
        raise BackendError(f"unsupported PTX version {ptx_version}; choose one of {SUPPORTED_PTX_VERSIONS}")
    return f"+ptx{ptx_version}"


def codegen(llvm_ir: str, arch: str, ptx_version: int) -> str:
    """In-process: parse, verify and compile ``llvm_ir`` to PTX for ``arch``."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        mod = llvm.parse_assembly(llvm_ir)
        mod.verify()
    except RuntimeError as exc:
        raise BackendError(f"invalid LLVM IR: {str(exc).strip()}") from None
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    machine = target.create_target_machine(cpu=arch, features=target_features(ptx_version), opt=2)
    mod.data_layout = str(machine.target_data)
    return machine.emit_assembly(mod)


def _isolated_codegen(llvm_ir: str, arch: str, ptx_version: int) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "tileorch.backend.ptx", arch, str(ptx_version)],
        input=llvm_ir, capture_output=True, text=True,
    )
    if proc.returncode == 0:
        return proc.stdout
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    llvm_error = next((l for l in lines if "LLVM ERROR" in l), None)
    message = next((l for l in reversed(lines) if l.startswith("tileorch:")), None)
    if message is not None:
        raise BackendError(message.removeprefix("tileorch: "))
    raise BackendError(f"LLVM code generation failed: {llvm_error or (lines[-1] if lines else proc.returncode)}")


def check_ptx(ptx: str) -> None:
    """Reject PTX that calls an intrinsic LLVM did not recognise (ptxas would fail later)."""
    match = re.search(r"\.extern \.func[^\n]*?(llvm\.[\w.]+)", ptx)
    if match:
        raise BackendError(f"LLVM did not recognise intrinsic '{match.group(1)}' (it became an .extern .func)")


def llvm_to_ptx(llvm_ir: str, arch: str = DEFAULT_ARCH, ptx_version: int = DEFAULT_PTX_VERSION, isolate: bool = True) -> str:
    """PTX text for ``llvm_ir``; raises :class:`BackendError` on any failure."""
    target_features(ptx_version)
    ptx = _isolated_codegen(llvm_ir, arch, ptx_version) if isolate else codegen(llvm_ir, arch, ptx_version)
    check_ptx(ptx)
    return ptx


def cannot_select_intrinsic(message: str) -> str | None:
    """The intrinsic named in an LLVM ``Cannot select`` message, if any."""
    match = re.search(r"(llvm\.nvvm\.[\w.]+)", message)
    return match.group(1) if match else None


def _main(argv: list[str]) -> int:
    arch, version = argv[0], int(argv[1])
    try:
        sys.stdout.write(codegen(sys.stdin.read(), arch, version))
    except BackendError as exc:
        print(f"tileorch: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
