# Session 15, mid-session device call: the GEMM tier's computed batch indices on the H200 (sweep-5 GPU
# tests of the 4-D heads, tile-table grouped and split-K workspace programs, the dot zoo's bmm_heads_4d_f16)
# and its speed beside torch.matmul (tileiras when staged).
# Run: CMD="bash benchmarks/session15_mid.sh" bash benchmarks/device_session.sh shell
S="$OUT/s15mid"; mkdir -p "$S"
python3 -m pytest -q -p no:cacheprovider tests/gpu/test_user_sweep5_gpu.py tests/gpu/test_tier_programs.py \
  -k "${K:-4d_heads or tile_table or splitk or heads_4d or bmm}" 2>&1 | tee "$S/gpu_tests.log" | tail -n 15
timeout 200 python3 benchmarks/tile_programs.py --programs ${TP:-bmm_heads_4d_f16,bmm_f16} --sizes ${TS:-4096x4096x4096,1024x1024x1024} \
  --iters 20 --out "$S/tile" 2>&1 | tee "$S/tile_programs.log" | tail -n 12
