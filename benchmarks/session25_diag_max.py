"""Session 25 diagnostic (GPU): sweep 17's nan_inf_max_min_argmax on the H200 lost +inf in the NaN-ignoring
``ct.max`` (103 of 512 rows, all the rows with inf; the PTX emulator gives the right result on the same
specialization).  One launch per setting given on the command line (NAME=value or 'default'), each in
this process after clearing tileorch's caches; prints the rows that differ and writes the PTX."""

import os
import sys

import torch

import tileorch.cutile
from tileorch.launchers import cutile as rc
from tileorch.testing import user_programs17 as up

out_dir = os.environ.get("OUT", "/tmp")
for setting in sys.argv[1:] or ["default"]:
    name, _, value = setting.partition("=")
    if value:
        os.environ[name] = value
    rc.clear_caches()
    g = torch.Generator(device="cuda").manual_seed(1705)
    for cols, bn in ((3001, 4096), (100, 128), (3001, 4096)):
        x = torch.randn(512, cols, device="cuda", generator=g)
        x[::7, min(5, cols - 1)] = float("nan")
        x[::5, cols - 2] = float("inf")
        x[3] = float("nan")
        outs = [torch.full((512,), float("nan"), device="cuda") for _ in range(3)]
        am = [torch.full((512,), -7, device="cuda", dtype=torch.int32) for _ in range(2)]
        tileorch.cutile.launch(torch.cuda.current_stream(), (512,), up.nan_inf_max_min_argmax, (x, *outs, *am, bn))
        torch.cuda.synchronize()
        want = torch.nan_to_num(x, nan=-float("inf")).max(1).values
        bad = (outs[0] != want).nonzero().flatten().tolist()
        print(f"[{setting}] cols={cols} bn={bn}: {len(bad)} rows wrong; first {bad[:6]}; got {outs[0][bad[:4]].tolist()} "
              f"want {want[bad[:4]].tolist()}; mxp wrong {int((outs[2] != torch.max(x, 1).values).logical_and(~torch.isnan(outs[2])).sum())}")
    if value:
        del os.environ[name]
