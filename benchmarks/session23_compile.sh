#!/usr/bin/env bash
# Session 23, s23-compile: where the first launch of the fused-epilogue GEMMs goes, on the GPU host (issue 22; session
# 22 measured 3.8-5.1 s there against tileiras's ~1-1.8 s; on the CPU these programs are retiled to 128x256 on a
# 132-SM device, whose unrolled epilogue is twice the program's 128x128 one: 2.3-2.9 s CPU of full compile here). Runs from the repository root on
# the device (compiler installed, .whl carried as for session23_gpu.sh; tileiras staged for its column, else an error
# note per row). One fresh process per program, empty cache; prints one line per program with the launcher's steps
# (export, deferred compile, full compile, load) and each compile's phases. < 150 s.
S="$OUT/s23_compile"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl >/dev/null 2>&1
timeout ${FIRST_LAUNCH_TIMEOUT:-140} python3 benchmarks/first_launch_phases.py --size 4096 --out "$S" \
  linear_gelu_bf16 gemm_scale_residual_bf16 gemm_rowscale_sigmoid_f16_f32 gemm_bias_relu_f16 gemm_persistent_f16 \
  2>&1 | tee "$S/first_launch_phases.log"
