"""FlashAttention forward (tileorch.testing.attention_programs.attention_fwd) through tileorch.cutile.launch vs
torch SDPA (flash backend) in one process: CUDA-event means of 20 launches behind torch.cuda._sleep, fp16,
non-causal; prints TFLOP/s and the max error against the fp32 reference.  Needs a Hopper GPU."""
import sys, time, torch, math
import tileorch.cutile
from tileorch.runtime import cutile as rc
from tileorch.testing.attention_programs import attention_args
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

def bench(fn, iters=20):
    fn(); torch.cuda.synchronize()
    torch.cuda._sleep(10_000_000)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(iters): fn()
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / iters

for bh, seq, d in [(64, 4096, 64), (32, 4096, 128), (16, 8192, 128)]:
    for tm, tn in [(128, 64), (128, 128)]:
        kernel, args, grid, out, ref = attention_args(bh, seq, d, tm, tn, seed=1)
        st = torch.cuda.current_stream()
        t0 = time.time(); tileorch.cutile.launch(st, grid, kernel, args); torch.cuda.synchronize(); first = time.time() - t0
        ms = bench(lambda: tileorch.cutile.launch(st, grid, kernel, args))
        flops = 4 * bh * seq * seq * d
        q, k, v = args[0].unsqueeze(0), args[1].unsqueeze(0), args[2].unsqueeze(0)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            ms_fa = bench(lambda: F.scaled_dot_product_attention(q, k, v))
        err = (out.float() - ref).abs().max().item()
        kind = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent").program.kind
        print(f"bh={bh} seq={seq} d={d} tiles={tm}x{tn} kind={kind} first={first:.1f}s tileorch {ms:.3f} ms {flops/ms/1e9:.0f} TFLOP/s | SDPA flash {ms_fa:.3f} ms {flops/ms_fa/1e9:.0f} TFLOP/s | maxerr {err:.2e}", flush=True)
