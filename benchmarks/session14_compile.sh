# Session 14 (s14-compile): compile time against tileiras 13.4 after the compile-time changes (kept
# dataclass code, verification memo by attribute numbers, signature traits, shared emitter attributes,
# one-shot `tileorch gemm --compile`), for the fixed set (cold, warm, cached relaunch in a fresh process).
# compile_time.py byte-compiles the sources and fills the dataclass code table first
# (python -m tileorch.tools.warm_dataclass_code), as pip + the first run leave an installation.
# Run (after stage_tc x2, carry .whl): CMD="bash benchmarks/session14_compile.sh" bash benchmarks/device_session.sh shell
# Everything lands in $OUT/s14compile.tgz; compare with benchmarks/results/compile_time_2026-12-03h.json.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl 2>/dev/null
S="$OUT/s14compile"; mkdir -p "$S"
timeout ${CT_TIMEOUT:-400} python3 benchmarks/compile_time.py --repeat 2 --tileiras /tmp/tc/nvidia/cu13/bin/tileiras \
  --only gemm_f16 gemm_bias_relu_f16 linear_gelu_bf16 bmm_f16 gemm_fp8_e4m3_scaled attention_fwd_f16 attention_fwd_causal_f16 \
  mlp_chain_f16 softmax_f16 layernorm_bf16 row_sum_f32 --out "$S/ct" 2>&1 | tee "$S/compile_time.log" | tail -n 16
rm -rf "$S/ct/bytecode"
for i in 1 2 3; do /usr/bin/time -f "gemm_cli wall %e s cpu %U+%S" python3 -m tileorch gemm 4096 4096 4096 --compile; done \
  2>&1 | tee "$S/gemm_cli.log" | grep -E "seconds|gemm_cli"
tar czf "$OUT/s14compile.tgz" -C "$OUT" s14compile
