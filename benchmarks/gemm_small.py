"""One small GEMM per schedule, checked against torch fp32: the program compute-sanitizer runs
(``benchmarks/gemm_gpu_session.sh``).  Exit status 1 on a wrong result."""

import os
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("TILEORCH_CACHE_DIR", str(ROOT / "build" / "gemm_cache"))

import torch  # noqa: E402

import tileorch  # noqa: E402
from tileorch.kernels.gemm.config import GemmConfig  # noqa: E402

bad = 0
for schedule in sys.argv[1:] or ["persistent", "streamk"]:
    cfg = replace(GemmConfig(), schedule=schedule)
    m, n, k = 512, 768, 1024
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t()
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    tileorch.gemm(a, b, out, config=cfg)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    err = float((out.float() - ref).norm() / ref.norm())
    ok = bool(torch.isfinite(out).all()) and err < 1e-2
    bad += not ok
    print(f"{schedule}: rel err {err:.2e} {'ok' if ok else 'WRONG'}")
sys.exit(1 if bad else 0)
