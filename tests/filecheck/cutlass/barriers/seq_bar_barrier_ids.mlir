// cutlass.seq_bar.init claims depth x length named-barrier ids when barrier(named_barrier),
// none when mbarrier-based; the allocator hands them out in order after the 8 reserved ids.
// RUN: tileorch-opt %s -p cutlass-allocate-barrier-ids | filecheck %s

func.func @ids() {
  %a = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ra = cutlass.seq_bar.init %a group_size(128) barrier(named_barrier)
  %b = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %rb = cutlass.seq_bar.init %b group_size(128)
  %c = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 1, length = 2>
  %rc = cutlass.seq_bar.init %c group_size(64) barrier(named_barrier)
  func.return
}
// 2 x 2 = 4 ids: 8..11; the mbarrier one claims none; 1 x 2 = 2 ids: 12..13.
// CHECK: %ra = cutlass.seq_bar.init %a group_size(128) barrier(named_barrier) barrier_id_base(8){{$}}
// CHECK: %rb = cutlass.seq_bar.init %b group_size(128){{$}}
// CHECK: %rc = cutlass.seq_bar.init %c group_size(64) barrier(named_barrier) barrier_id_base(12){{$}}
