// finding:hang: tests/filecheck/backend/inline_asm_quotes.mlir#0:generic [dict_entry_delete, hex_mask]
"builtin.module"() ({
  "llvm.func"() <{unnamed_addr = 0 : i64, sym_name = "k", function_type = !llvm.func<void ()>, CConv = #llvm.cconv<ccc>, linkage = #llvm.linkage<"external">, visibility_ = 0 : i64}> ({
    "llvm.inline_asm"() <{ constraints = "", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>}> : () -> ()
    "llvm.inline_asm"() <{asm_string = ".pragma \22global knob SchedResBusyXU64=1\0x10000000000000000;\0A", constraints = "", has_side_effects, tail_call_kind = #llvm.tailcallkind<none>}> : () -> ()
    "llvm.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
