"""The backend: cutlass/nvvm/std MLIR -> ``llvm`` dialect -> LLVM IR -> PTX -> ptxas.

:func:`compile_lowered` takes a module of the backend's tier; :func:`tileorch.driver.compile_module`
and :func:`tileorch.driver.compile_text` (the in-process compile API) route every input kind here.

Every failure is raised as :class:`CompileError` whose lines read
``file:line:col: error: message`` (parse, verify, pass, translation, LLVM, ptxas).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import tileorch.dialects.lazy_formats  # noqa: F401,I001  (first: the op formats of dialects defined from here parse on first use)
import tileorch.dialects.mro_checks  # noqa: F401,I001  (then: IR classes answer isinstance from their MRO)
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError

from tileorch import settings
from tileorch import timing
from tileorch.backend import pipeline
from tileorch.backend.llvm_translate import translate_module
from tileorch.backend.ptx import (DEFAULT_ARCH, DEFAULT_PTX_VERSION, BackendError, cannot_select_intrinsic, llvm_to_ptx,
                                  start_codegen)
from tileorch.backend.ptxas import PtxasResult, prepare_run, run_ptxas
from tileorch.diagnostics import (CompileError, LocatedError, format_error, format_exception, parse_module, suffixed,
                                  verify_located)

STAGES = ("mlir", "llvm", "ptx")


@dataclass
class CompileResult:
    """The outputs of :func:`compile_lowered`: lowered MLIR, LLVM IR, PTX, the ptxas result and the phase timings."""

    mlir: str = ""  # the module after the lowering pipeline (llvm dialect)
    llvm_ir: str = ""
    ptx: str = ""
    ptxas: PtxasResult | None = None
    arch: str = DEFAULT_ARCH
    timings: dict[str, float] = field(default_factory=dict)
    """Wall seconds per phase and per pass, in order (:mod:`tileorch.timing`: ``parse``,
    ``verify``, ``tile-program/<pass>``, ``lower/<pass>``, ``translate``, ``codegen``, ``ptxas``,
    ``total``); :func:`tileorch.timing.format_report` prints it as ``--timings`` does."""
    kind: str = ""  # tile programs: "gemm" (TileAS tier) or "simt"; "" for cutlass/nvvm/llvm modules
    remarks: list[str] = field(default_factory=list)  # how a tile program was compiled (and refusals)
    pdl: list[str] = field(default_factory=list)
    """The kernels compiled for programmatic dependent launch (``TILEORCH_PDL=1``, transforms/gdc_insertion.py):
    they wait before their first global access, so only they may be launched with programmatic stream
    serialization."""


ARCH_SPECIFIC_OPS = ("nvvm.tcgen05.", "cute_nvgpu.")
"""Ops whose verifiers check the module's ``cutlass.target`` (Blackwell-only instructions)."""


def module_arch(module: ModuleOp, default: str) -> str:
    """``cutlass.target`` of the module if set, else ``default``."""
    target = module.attributes.get("cutlass.target")
    return target.data if isinstance(target, StringAttr) else default


def _verify(module: ModuleOp, stage: str) -> None:
    with timing.timed("verify"):
        errors = verify_located(module)
    if errors:
        raise CompileError(errors if stage == "input" else [suffixed(e, f" (after {stage})") for e in errors])


VERIFY_EACH_PASS_ENV = "TILEORCH_VERIFY_EACH_PASS"


def verify_each_pass() -> bool:
    """``TILEORCH_VERIFY_EACH_PASS`` is set (not ``0``): verify after every pass and between the
    pipelines, not only the input and the final result (the test suite sets it)."""
    return settings.value(VERIFY_EACH_PASS_ENV) not in ("", "0")


def lower(ctx: Context, module: ModuleOp, extra_pipeline: str = "", simt_program: bool = False,
          verify: bool = True, debug_timeout: int = 0) -> str:
    """Run :data:`pipeline.PIPELINE` then ``extra_pipeline`` on ``module`` (in place); for a tile
    program's SIMT lowering (``simt_program``) :func:`pipeline.lowering_pipeline` leaves out the
    cutlass passes, which have nothing to lower there.  Returns the name of the last pass run
    (what a verification error of the result is reported ``after``).

    The module is verified after the last pass (``verify=False``: the caller verifies it, e.g.
    while LLVM generates code); with ``TILEORCH_VERIFY_EACH_PASS=1`` after every pass (a lowering
    bug is then reported at the pass that made it; the test suite sets it)."""
    try:
        passes = (pipeline.make_passes(pipeline.lowering_pipeline(module, simt_program, debug_timeout))
                  + pipeline.parse_pipeline(extra_pipeline))
    except ValueError as exc:
        raise CompileError([f"{module_location(module)}: error: {exc}"]) from None
    each = verify_each_pass()
    for i, p in enumerate(passes):
        try:
            pipeline.apply_pass(ctx, module, p)
        except (DiagnosticException, NotImplementedError, ValueError) as exc:
            raise CompileError(format_exception(exc, module)) from None
        if each or (verify and i == len(passes) - 1):
            _verify(module, p.name)
    return passes[-1].name if passes else "input"


NO_KERNEL = ("nothing to compile: the module defines no kernel (no cuda_tile.entry, nv_tileaa.func or function "
             "marked nvvm.kernel), so the PTX has no entry point to launch")
"""The warning of a module without a kernel (an empty file, an empty ``cuda_tile.module``): it
compiles, as MLIR tools take an empty module, but not silently."""


def check_debug_timeout(value: object) -> int:
    """``value`` as a debug timeout (polls, 0 = off); TypeError / ValueError naming it otherwise."""
    from tileorch.transforms.bound_waits import MAX_DEBUG_TIMEOUT

    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"debug_timeout must be an int (polls before a wait traps; 0 = off), got {type(value).__name__}")
    if not 0 <= value <= MAX_DEBUG_TIMEOUT:
        raise ValueError(f"debug_timeout must be in [0, {MAX_DEBUG_TIMEOUT}] polls (0 = off), got {value}")
    return value


def module_location(module: ModuleOp) -> str:
    return format_error(module, "").rsplit(": error:", 1)[0]


def _locate_backend_error(module: ModuleOp, exc: BackendError) -> CompileError:
    from xdsl.dialects import llvm

    from tileorch.backend.ptxas import PtxasUnavailable

    if isinstance(exc, PtxasUnavailable):  # the installation's, not the program's: no source position
        way = "" if "--no-ptxas" in str(exc) else " (compile without ptxas: --no-ptxas, ptxas=False)"
        return CompileError([f"ptxas: error: {exc}{way}"])

    name = cannot_select_intrinsic(str(exc))
    if name is not None:
        for op in module.walk():
            if isinstance(op, llvm.CallIntrinsicOp) and op.intrin.data == name:
                return CompileError([format_error(op, str(exc))])
    if (fn := re.search(r"in function '@([\w.$]+)'", str(exc))) is not None:  # an LLVM abort
        for op in module.walk():
            if isinstance(op, llvm.FuncOp) and op.sym_name.data == fn.group(1):
                return CompileError([format_error(op, str(exc))])
    return CompileError([format_error(module, str(exc))])


def print_module(module: ModuleOp, generic: bool = False) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue() + "\n"


def compile_lowered(module: ModuleOp, ctx: Context, arch: str | None = None, ptx_version: int = DEFAULT_PTX_VERSION,
                    emit: str = "ptx", ptxas: bool = True, extra_pipeline: str = "", isolate: bool = False,
                    kind: str = "", remarks: list[str] | None = None, debug_timeout: int = 0) -> CompileResult:
    """Compile a module of the backend's tier (cutlass / nv_tileas / nvvm / std ops; a tile
    program is lowered to it first by :func:`tileorch.driver.compile_module`, which names the
    path it took in ``kind``) up to ``emit``: the lowering pipeline, LLVM IR, PTX, ptxas.
    ``debug_timeout`` > 0 bounds every wait (:func:`pipeline.lowering_pipeline`), with a remark."""
    remarks = [] if remarks is None else remarks
    check_debug_timeout(debug_timeout)
    if debug_timeout:
        remarks.append(f"{module_location(module)}: remark: debug-timeout={debug_timeout}: every mbarrier wait and "
                       f"spin loop of the kernel traps after {debug_timeout} unsuccessful polls, printing what it "
                       "waited on (named barriers, bar.sync, are hardware waits and stay unbounded)")
    if kind and arch is None:
        arch = module_arch(module, DEFAULT_ARCH)
    target = module.attributes.get("cutlass.target")
    if arch is not None and isinstance(target, StringAttr) and target.data != arch:
        from tileorch.diagnostics import format_error

        raise CompileError([format_error(module, f"the target given ({arch}) differs from the module's cutlass.target "
                                                 f"\"{target.data}\"; drop --arch or make them agree")])
    if target is None:
        names = {op.name for op in module.walk()}
        if arch is not None and any(n.startswith("cutlass.") for n in names):
            # the rules that compare pipelines and schedulers with the module's target then check --arch
            module.attributes["cutlass.target"] = StringAttr(arch)
        elif any(n.startswith(ARCH_SPECIFIC_OPS) for n in names):
            # ops that exist on some targets only are checked against the target compiled for
            # (LLVM aborts on them elsewhere): the default target too
            module.attributes["cutlass.target"] = StringAttr(arch or DEFAULT_ARCH)
    result = CompileResult(arch=module_arch(module, arch or DEFAULT_ARCH) if arch is None else arch,
                           kind=kind, remarks=remarks)
    if not kind or verify_each_pass():  # a tile program's lowering is verified after the pipeline
        _verify(module, "input")
    # the lowered module is verified while a forked child generates its code (PTX through an
    # isolated codegen: the verification then costs no wall time where a core is free)
    overlap = emit == "ptx" and isolate and not verify_each_pass()
    hinted = _hinted_kernels(module) if kind == "simt" else set()
    with timing.timed("lower"):
        last = lower(ctx, module, extra_pipeline, simt_program=kind == "simt", verify=not overlap,
                     debug_timeout=debug_timeout)
    if not any("nvvm.kernel" in op.attributes for op in module.body.block.ops):
        remarks.append(f"{module_location(module)}: warning: {NO_KERNEL}")
    _pdl_record(module, result)
    if emit == "mlir":
        with timing.timed("print"):
            result.mlir = print_module(module)
        return result
    try:
        with timing.timed("translate"):
            result.llvm_ir = translate_module(module)
    except LocatedError as exc:
        if overlap:  # an invalid module's own error comes first, as when verified before translating
            _verify(module, last)
        raise CompileError([str(exc)]) from None
    if emit == "llvm":
        return result
    try:
        pending = None
        if overlap and ptxas:  # ptxas starts on the PTX while the verification may still run
            pending = start_codegen(result.llvm_ir, result.arch, ptx_version,
                                    lambda ptx: run_ptxas(ptx, result.arch))
        if pending is not None:
            with timing.timed("codegen"):
                try:
                    prepare_run()  # ptxas's imports while the child generates code, not once the PTX is there
                    _verify(module, last)
                except BaseException:
                    pending.wait()
                    raise
                result.ptx = pending.ptx()
            with timing.timed("ptxas"):  # what of it the verification did not hide
                result.ptxas = pending.then_result()
        else:
            with timing.timed("codegen"):
                result.ptx = llvm_to_ptx(result.llvm_ir, result.arch, ptx_version, isolate=isolate,
                                         meanwhile=(lambda: _verify(module, last)) if overlap else None)
            if ptxas:
                with timing.timed("ptxas"):
                    result.ptxas = run_ptxas(result.ptx, result.arch)
    except BackendError as exc:
        raise _locate_backend_error(module, exc) from None
    if hinted and result.ptxas is not None:
        _drop_spilling_hints(result, hinted)
    return result


def _pdl_record(module: ModuleOp, result: CompileResult) -> None:
    """The kernels ``nvvm-auto-gdc-insertion`` compiled for PDL (its module attributes) into ``result``: their
    names and remarks (the pass's module imported only where it ran: a SIMT compile imports no payload dialect)."""
    if not any(key.startswith("tileorch.pdl_") for key in module.attributes):
        return
    from tileorch.transforms.gdc_insertion import PDL_KERNELS, PDL_REMARKS

    names = module.attributes[PDL_KERNELS]
    result.pdl = [n.data for n in names.data]
    result.remarks.extend(r.data for r in module.attributes[PDL_REMARKS].data)


HINT_ATTR = "tileorch.gather_min_ctas"
"""A kernel attribute (tileaa_to_simt/gather_occupancy.py) that marks its ``nvvm.minctasm`` as the
compiler's own occupancy hint, dropped again where ptxas spills to meet it."""


HINT_ATTRS = (HINT_ATTR, "tileorch.combined_min_ctas")
"""The attributes that mark a kernel's ``nvvm.minctasm`` as the compiler's own hint (a gather's; a kernel running
several instances per CTA, tileaa_to_simt/combined_atomics.py)."""


def _hinted_kernels(module: ModuleOp) -> set[str]:
    """Names of the kernels whose resident-CTA count is the compiler's hint (:data:`HINT_ATTRS`)."""
    return {op.sym_name.data for op in module.ops
            if hasattr(op, "sym_name") and any(a in op.attributes for a in HINT_ATTRS)}


def _drop_spilling_hints(result: CompileResult, hinted: set[str]) -> None:
    """Where ptxas spilled registers to keep a hinted kernel's CTAs resident, assemble it again
    without the hint (a spill costs more than the occupancy gains) and say so in a remark."""
    from tileorch.backend.ptxas import run_ptxas, spilled, without_ctas_hint

    bad = spilled(result.ptxas, hinted)
    if not bad:
        return
    result.ptx = without_ctas_hint(result.ptx, bad)
    with timing.timed("ptxas"):
        result.ptxas = run_ptxas(result.ptx, result.arch)
    result.remarks.append(f"remark: {', '.join(sorted(bad))}: the resident-CTA hint (.minnctapersm) dropped: ptxas "
                          "spilled registers to meet it (assembled again without it)")


def parse_text(ctx: Context, text: str, name: str = "<input>") -> ModuleOp:
    """Parse ``text`` into a module whose ops carry ``name:line:col``; raises :class:`CompileError`."""
    try:
        with timing.timed("parse"):
            return parse_module(ctx, text, name)
    except (ParseError, DiagnosticException) as exc:
        raise CompileError(format_exception(exc)) from None
