"""The eight ``nv_tileas.async.*`` patterns.

=================================  ==========================================================
pattern                            lowering
=================================  ==========================================================
AsyncWaitOpConversionMbarrier      parity wait on every token's (barrier, phase)
AsyncWaitOpConversionTMASTGAndTMAREDG  ``cp.async.bulk.commit.group`` + ``wait_group pending``
AsyncWaitOpConversionGMMA          ``wgmma.commit.group.sync.aligned`` + ``wait.group pending``
AsyncToAsyncOpConversion           ``builtin.unrealized_conversion_cast``
CreateNoneOpConversion             ``llvm.mlir.poison``
AsyncFutureWaitMbarrier            spin loop of ``mbarrier.try_wait`` (shorter suspend hint)
AsyncFutureWaitGroup               ``cp.async.bulk.wait_group`` / ``wgmma.wait.group``
TokenToAsyncOpConversion           ``builtin.unrealized_conversion_cast``
=================================  ==========================================================

Group waits are tagged with :data:`DEDUP_TAG` so the dedup walker may merge them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr, UnrealizedConversionCastOp
from xdsl.ir import Operation

from tileorch.diagnostics import location_str
from tileorch.dialects import llvm_ext, nv_tileas, nvvm
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering, OptionsLowering
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.sync import FUTURE_SUSPEND_HINT_NS, parity_wait, spin_parity
from tileorch.transforms.pipeline_to_nvvm.timeout import WaitSite

DEDUP_TAG = "tileorch.group_wait"


def emit_group_wait(e: Emitter, flavor: str, pending: int, commit: bool) -> None:
    """Optionally commit the open group, then wait until at most ``pending`` groups are in flight."""
    if flavor == "tma":
        if commit:
            e.add_op(nvvm.CpAsyncBulkCommitGroupOp())
        wait = nvvm.CpAsyncBulkWaitGroupOp(pending)
    else:
        if commit:
            e.add_op(nvvm.WgmmaGroupSyncAlignedOp())
        wait = nvvm.WgmmaWaitGroupSyncOp(pending)
    wait.attributes[DEDUP_TAG] = UnitAttr()
    e.add_op(wait)


class _AsyncWait(OptionsLowering):
    OP = "nv_tileas.async.wait"
    FLAVOR = ""

    def applies_to(self, op: Operation) -> bool:
        return op.flavor() == self.FLAVOR


class AsyncWaitOpConversionMbarrier(_AsyncWait):
    FLAVOR = "mbarrier"

    def lower(self, op: Operation, e: Emitter):
        for k, token in enumerate(op.tokens):
            record = self.operand(e, token)
            addr = e.extract(record, 0, nvvm.PTR_SHARED)
            phase = e.extract(record, 1)
            site = WaitSite(op, f"mbarrier token {k} of nv_tileas.async.wait {location_str(op)}", (("phase", phase),))
            parity_wait(e, addr, phase, self.options, site)
        return None


class AsyncWaitOpConversionTMASTGAndTMAREDG(_AsyncWait):
    FLAVOR = "tma"

    def lower(self, op: Operation, e: Emitter):
        emit_group_wait(e, "tma", op.pending_groups(), commit=True)
        return None


class AsyncWaitOpConversionGMMA(_AsyncWait):
    FLAVOR = "gmma"

    def lower(self, op: Operation, e: Emitter):
        emit_group_wait(e, "gmma", op.pending_groups(), commit=True)
        return None


class _Cast(OpLowering):
    def lower(self, op: Operation, e: Emitter):
        target = nv_tileas.lowered_async_type(op.results[0].type.flavor.data)
        return [e.emit(UnrealizedConversionCastOp.get([self.operand(e, op.operands[0])], [target]))]


class AsyncToAsyncOpConversion(_Cast):
    OP = "nv_tileas.async.to_async"


class TokenToAsyncOpConversion(_Cast):
    OP = "nv_tileas.async.token_to_async"


class CreateNoneOpConversion(OpLowering):
    OP = "nv_tileas.create_none"

    def lower(self, op: Operation, e: Emitter):
        return [e.emit(llvm_ext.PoisonOp(nv_tileas.lowered_async_type(op.results[0].type.flavor.data)))]


class _FutureWait(OptionsLowering):
    OP = "nv_tileas.async.future_wait"
    MBARRIER = True

    def applies_to(self, op: Operation) -> bool:
        return (op.flavor() == "mbarrier") == self.MBARRIER


class AsyncFutureWaitMbarrier(_FutureWait):
    """The future carries (barrier, phase): poll with the shorter future suspend hint."""

    def lower(self, op: Operation, e: Emitter):
        record = self.operand(e, op.future)
        addr = e.extract(record, 0, nvvm.PTR_SHARED)
        phase = e.extract(record, 1)
        parity = e.and_(phase, e.const(1))
        hint = e.const(FUTURE_SUSPEND_HINT_NS)
        site = WaitSite(op, f"mbarrier future of nv_tileas.async.future_wait {location_str(op)}", (("phase", phase),))
        spin_parity(e, addr, parity, hint, self.options, site)
        return None


class AsyncFutureWaitGroup(_FutureWait):
    MBARRIER = False

    def lower(self, op: Operation, e: Emitter):
        emit_group_wait(e, op.flavor(), op.pending_groups(), commit=False)
        return None


def patterns(options: LoweringOptions) -> list[OpLowering]:
    return [
        AsyncWaitOpConversionMbarrier(options),
        AsyncWaitOpConversionTMASTGAndTMAREDG(options),
        AsyncWaitOpConversionGMMA(options),
        AsyncToAsyncOpConversion(),
        CreateNoneOpConversion(),
        AsyncFutureWaitMbarrier(options),
        AsyncFutureWaitGroup(options),
        TokenToAsyncOpConversion(),
    ]
