"""The SIMT lowering of ``nv_tileaa.scan`` in registers: a parallel prefix over the blocked
layout (``layout.py``), no serial walk of the row.

Contract (a mixin of ``FunctionLowering``; :meth:`ScanLowering._scan_in_registers`):

* taken for a scan (forward or ``reverse``: then every "before" below means "after") of a tile whose dimensions and thread count are powers of two
  (anything else returns ``False`` having emitted nothing, and the caller walks the scratch);
* the flat row-major index of an element is ``hi * v * T + tid * v + lo`` and the scanned
  dimension is the bit range ``[a, b)`` of it, so the element's position along the dimension is
  (from least to most significant) its ``lo`` bits in the range, then its thread's bits in the
  range (lane bits, then warp bits), then its ``hi`` bits in the range.  The scan follows that
  order:

  1. each thread scans its own elements of one *segment* (same bits outside the range, same
     ``hi`` bits) sequentially: ``p_j = p_{j-1} (+) x_j``;
  2. the segments' totals are scanned across the lanes whose bits are in the range
     (Hillis-Steele with ``shfl.sync.up``, ``down`` for a reverse scan, ``log2`` steps), the lane's exclusive prefix comes
     from one more ``shfl.sync.up``, the warp's total from ``shfl.sync.idx`` of its last lane;
  3. when warps differ in bits of the range, each warp's total goes to shared memory (one
     barrier) and every thread folds the totals of the warps before its own;
  4. segments that differ in ``hi`` bits are chained in order by a running carry (every
     thread knows each segment's total over the CTA).

  The combiner always takes the lower position first (``x_0 (+) x_1``; a reverse scan gives
  ``x_i (+) ... (+) x_n-1``, as the serial walk does), so non-commutative combiners are fine, and an element is never combined with an identity: a missing prefix is a ``select``,
  so ``-0.0`` and NaN payloads come out as the serial scan gives them;
* every lane of each warp takes part in the shuffles (the scan is not under divergent control
  flow: the lowering's ops are uniform); slots past the end of a ragged tile scan garbage among
  themselves only (their bits outside the range differ from every real element's).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Block, SSAValue

from tileorch.transforms.tileaa_to_simt.emit import Emitter, Tile, byte_size, cmpi, memory_type, reg_type


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _log2(n: int) -> int:
    return n.bit_length() - 1


class ScanLowering:
    """Mixin: the register scan (see the module docstring)."""

    def _select_all(self, e: Emitter, cond: SSAValue, a: list[SSAValue], b: list[SSAValue]) -> list[SSAValue]:
        return [e.v(arith.SelectOp(cond, x, y)) for x, y in zip(a, b)]

    def _scan_in_registers(self, e: Emitter, op, srcs: list[Tile], dim: int, body: Block, reverse: bool) -> bool:
        shape = srcs[0].shape
        threads = self.threads
        if not shape or any(not _pow2(d) for d in shape) or not _pow2(threads):
            return False
        n = 1
        for d in shape:
            n *= d
        v = self.vec(shape)
        lv, lt = _log2(v), _log2(threads)
        inner = 1
        for d in shape[dim + 1:]:
            inner *= d
        a = _log2(inner)  # the bits of the dimensions after dim
        b = a + _log2(shape[dim])
        k_ops = len(srcs)
        nslots = len(srcs[0].slots)
        if a == b:  # a dimension of extent 1: the scan is the identity
            for k, res in enumerate(op.results):
                self.vals[res] = Tile(shape, srcs[k].element, list(srcs[k].slots))
            return True
        dmask = ((1 << b) - 1) ^ ((1 << a) - 1)

        def comb(first: list[SSAValue], then: list[SSAValue]) -> list[SSAValue]:
            # ``first`` precedes ``then`` in the scan's order; the combiner takes the lower
            # position first (a reverse scan is x_i (+) x_i+1 (+) ...), as the serial walk does
            return self._combine(e, body, then, first) if reverse else self._combine(e, body, first, then)
        hi_shift = lv + lt
        # the thread bits in [a, b): tid bits [jlo, jhi)
        tid_bits = [j for j in range(lt) if a <= lv + j < b]
        jlo, jhi = (tid_bits[0], tid_bits[-1] + 1) if tid_bits else (0, 0)
        lane_bits = [j for j in tid_bits if j < 5]
        warp_bits = [j for j in tid_bits if j >= 5]
        nl, nw = len(lane_bits), len(warp_bits)

        # 1. segments: (bits outside the range, hi bits in the range) -> slots by position
        segments: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for s in range(nslots):
            fs = (s // v) * v * threads + s % v
            key = fs & ~dmask
            hseg = (fs & dmask) >> hi_shift
            segments.setdefault((key, hseg), []).append((fs & dmask & ((1 << lv) - 1), s))
        incl: dict[tuple[int, int], list[list[SSAValue]]] = {}
        for seg, members in segments.items():
            members.sort(reverse=reverse)
            acc = [srcs[k].slots[members[0][1]] for k in range(k_ops)]
            out = [acc]
            for _, s in members[1:]:
                acc = comb(acc, [srcs[k].slots[s] for k in range(k_ops)])
                out.append(acc)
            incl[seg] = out
        seg_keys = sorted(segments, key=lambda sk: (sk[0], -sk[1] if reverse else sk[1]))
        tid = e.tid
        # 2./3. each segment's exclusive prefix over the threads before this one (E, has_e) and
        # its total over the CTA
        prefix: dict = {}
        total: dict = {}
        if tid_bits:
            lane = e.v(arith.AndIOp(tid, e.const(31)))
            has_lane = has_warp = None
            lane_x: dict = {}
            warp_tot: dict = {}
            if nl:
                q = e.v(arith.AndIOp(e.v(arith.ShRUIOp(tid, e.const(jlo))), e.const((1 << nl) - 1)))
                if reverse:  # positions count down: the order's first lane is the highest
                    q = e.v(arith.XOrIOp(q, e.const((1 << nl) - 1)))
                has_lane = e.v(cmpi(q, e.const(0), "ne"))
                lane_field = ((1 << nl) - 1) << jlo
                last_lane = (e.v(arith.AndIOp(lane, e.const(~lane_field & 0xFFFFFFFF))) if reverse
                             else e.v(arith.OrIOp(lane, e.const(lane_field))))
                toward = "down" if reverse else "up"
                for seg in seg_keys:
                    x = incl[seg][-1]
                    for k in range(nl):
                        y = [e.shuffle(t, toward, e.const(1 << (jlo + k))) for t in x]
                        on = e.v(cmpi(q, e.const(1 << k), "uge"))
                        x = self._select_all(e, on, comb(y, x), x)
                    lane_x[seg] = [e.shuffle(t, toward, e.const(1 << jlo)) for t in x]
                    warp_tot[seg] = [e.shuffle_idx(t, last_lane) for t in x]
            else:
                for seg in seg_keys:
                    warp_tot[seg] = incl[seg][-1]
            if nw:
                jw0 = warp_bits[0]
                wd = 1 << nw
                per_seg = threads >> nl  # warp totals: one per thread with the lane bits of the range dropped

                def compact(t: SSAValue) -> SSAValue:
                    if not nl:
                        return t
                    low = e.v(arith.AndIOp(t, e.const((1 << jlo) - 1)))
                    high = e.v(arith.ShLIOp(e.v(arith.ShRUIOp(t, e.const(jlo + nl))), e.const(jlo)))
                    return e.v(arith.OrIOp(low, high))

                e.barrier()
                at, offs = 0, []
                for k in range(k_ops):
                    at = -(-at // 16) * 16
                    offs.append(at)
                    at += _padded_size(per_seg * len(seg_keys)) * byte_size(memory_type(reg_type(srcs[k].element)))
                self.scratch_bytes = max(self.scratch_bytes, at)
                mine = compact(tid)
                for i, seg in enumerate(seg_keys):
                    pos = e.add_i(mine, e.const(i * per_seg)) if i else mine
                    for k in range(k_ops):
                        self._write(e, offs[k], srcs[k].element, pos, warp_tot[seg][k])
                e.barrier()
                wpos = e.v(arith.AndIOp(e.v(arith.ShRUIOp(tid, e.const(jw0))), e.const(wd - 1)))
                if reverse:
                    wpos = e.v(arith.XOrIOp(wpos, e.const(wd - 1)))
                has_warp = e.v(cmpi(wpos, e.const(0), "ne"))
                cleared = e.v(arith.AndIOp(tid, e.const(~(((wd - 1) << jw0)) & 0xFFFFFFFF)))
                order = [wd - 1 - r for r in range(wd)] if reverse else list(range(wd))
                others = [compact(e.v(arith.OrIOp(cleared, e.const(r << jw0)))) if r else compact(cleared)
                          for r in order]
                for i, seg in enumerate(seg_keys):
                    vals = []
                    for r in range(wd):
                        pos = e.add_i(others[r], e.const(i * per_seg)) if i else others[r]
                        vals.append([self._read(e, offs[k], srcs[k].element, pos) for k in range(k_ops)])
                    wp = vals[0]
                    for r in range(1, wd - 1):
                        before = e.v(cmpi(wpos, e.const(r), "ugt"))
                        wp = self._select_all(e, before, comb(wp, vals[r]), wp)
                    tot = vals[0]
                    for r in range(1, wd):
                        tot = comb(tot, vals[r])
                    total[seg] = tot
                    if nl:
                        both = self._select_all(e, has_lane, comb(wp, lane_x[seg]), wp)
                        prefix[seg] = self._select_all(e, has_warp, both, lane_x[seg])
                    else:
                        prefix[seg] = wp
                has = e.v(arith.OrIOp(has_warp, has_lane)) if nl else has_warp
            else:
                for seg in seg_keys:
                    prefix[seg] = lane_x[seg]
                    total[seg] = warp_tot[seg]
                has = has_lane
        else:
            has = None
            for seg in seg_keys:
                total[seg] = incl[seg][-1]
        # 4. chain the hi segments of each key; write the results
        out_slots: list[list[SSAValue | None]] = [[None] * nslots for _ in range(k_ops)]
        carry: dict[int, list[SSAValue]] = {}
        for seg in seg_keys:
            key, _ = seg
            run = carry.get(key)
            if run is None:
                pre, pre_always = (prefix[seg], False) if has is not None else (None, False)
            else:
                pre_always = True
                pre = (self._select_all(e, has, comb(run, prefix[seg]), run)
                       if has is not None else run)
            for (_, s), p in zip(segments[seg], incl[seg]):
                if pre is None:
                    vals = p
                elif pre_always:
                    vals = comb(pre, p)
                else:
                    vals = self._select_all(e, has, comb(pre, p), p)
                for k in range(k_ops):
                    out_slots[k][s] = vals[k]
            if len(segments) > 1:
                carry[key] = total[seg] if run is None else comb(run, total[seg])
        for k, res in enumerate(op.results):
            self.vals[res] = Tile(shape, srcs[k].element, out_slots[k])
        return True


def _padded_size(n: int) -> int:
    return n + n // 32 + 1


__all__ = ["ScanLowering"]
