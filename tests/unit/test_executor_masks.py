"""Executor masks are unsigned 64-bit sets: a mask with bit 63 set (``0xffffffff00000000``,
threads 32-63 of a ``thread`` executor) arrives from its ``i64`` attribute as a negative integer,
and every reader must treat it as units 32..63 (and terminate: issue 23 item 5)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from tool_forkserver import forked

from tileorch.dialects.cutlass.executors import expand
from tileorch.transforms.pipeline_to_nvvm.context import thread_range_of_mask

UPPER_HALF = """\
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @upper_half(%n: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type thread>, participants = array<i64: 0x1>, consumers = array<i64: 0xffffffff00000000>}
    cutlass.async.exec thread mask(0x1) {
      %s = cutlass.pipeline.state.create %r producer
      cutlass.pipeline.producer_acquire %r, %s
      cutlass.pipeline.producer_commit %r, %s
    }
    cutlass.async.exec thread mask(0xffffffff00000000) {
      %s = cutlass.pipeline.state.create %r consumer
      cutlass.pipeline.consumer_wait %r, %s
      cutlass.pipeline.consumer_release %r, %s
    }
    func.return
  }
}
"""

SIGNED_UPPER_HALF = 0xFFFFFFFF00000000 - (1 << 64)  # how array<i64: 0xffffffff00000000> reads back


@pytest.mark.parametrize("mask", [0xFFFFFFFF00000000, SIGNED_UPPER_HALF])
def test_thread_range_of_an_upper_half_mask(mask):
    assert thread_range_of_mask(mask, 1) == [(32, 64)]
    assert thread_range_of_mask(mask, 32) == [(1024, 2048)]


def test_thread_range_of_masks_with_bit_63_terminates():
    assert thread_range_of_mask(-1, 1) == [(0, 64)]  # every unit, bit 63 included
    assert thread_range_of_mask(1 << 63, 1) == [(63, 64)]
    assert thread_range_of_mask(-(1 << 63), 1) == [(63, 64)]
    assert thread_range_of_mask(0x5, 32) == [(0, 32), (64, 96)]
    assert thread_range_of_mask(0, 32) == []


def test_expand_reads_negative_masks_as_unsigned():
    assert expand(SIGNED_UPPER_HALF, 1) == expand(0xFFFFFFFF00000000, 1) == 0xFFFFFFFF00000000
    assert expand(-1, 1) == (1 << 64) - 1


def test_compile_upper_half_thread_consumers(tmp_path):
    """``tileorch compile`` returns (it hung forever) and guards the consumer region by threads
    [32, 64): ``tid - 32 <u 32``; the empty barriers count the 32 consumer threads."""
    src = tmp_path / "upper_half.mlir"
    src.write_text(UPPER_HALF)
    try:
        proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "compile", str(src), "--emit", "llvm",
                               "--no-cache"]), capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("tileorch compile hangs on a thread executor mask with bit 63 set")
    assert proc.returncode == 0, proc.stderr
    llvm_ir = proc.stdout
    guards = re.findall(r'= sub i32 %"[.\w]+", (\d+)\n\s*%"[.\w]+" = icmp ult i32 %"[.\w]+", (\d+)', llvm_ir)
    assert ("32", "32") in guards, guards  # the consumer region: threads 32..63
    inits = re.findall(r'mbarrier\.init\.shared"\(ptr addrspace\(3\) %"[.\w]+", i32 (\d+)\)', llvm_ir)
    assert sorted(inits) == ["1", "1", "32", "32"], inits  # full: 1 producer; empty: 32 consumer threads
