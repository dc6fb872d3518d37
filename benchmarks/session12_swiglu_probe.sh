# Session 12 device probe (s12-swiglu): the chained-dots kernel with several first dots sharing A (SwiGLU's gate and
# up projections as one n = 2 tn WGMMA, then the down projection): the GPU tests of the SwiGLU / three-gate /
# two-A-tile programs, then the timing against the SIMT path, tileiras and torch.
# Run: CMD="bash benchmarks/session12_swiglu_probe.sh" bash benchmarks/device_session.sh shell  (carry .whl)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_user_sweep3_gpu.py \
    -k "swiglu or three_gates or geglu or relu_sq_chain or every_program" 2>&1 | tail -5
for env in TILEORCH_PROBE_DEFAULT=1 TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_PERSISTENT=0; do
  echo "== $env"
  env $env timeout 120 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_user_sweep3_gpu.py -k "swiglu or three_gates" \
      2>&1 | tail -2
done
timeout 300 python3 benchmarks/swiglu_mlp.py --out $OUT/swiglu_mlp.json 2>&1 | tail -5
