#!/usr/bin/env python3
# Summarises a CSV from driver/bench:  python3 analyse.py results.csv
import csv, sys, statistics as st
path = sys.argv[1] if len(sys.argv) > 1 else 'results.csv'
rows = list(csv.DictReader(open(path)))
f = lambda r, k: float(r[k])
def pct(v, q):
    v = sorted(v); return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]
seq = lambda r: r['file'].split('/')[0].replace('problems_', '').replace('problems', 'room-walk')
print(f"== {path}: {len(rows)} problems; {sum(int(r['no']) for r in rows)} observations; free poses/problem {min(int(r['free_c']) for r in rows)}-{max(int(r['free_c']) for r in rows)}; free points {min(int(r['free_p']) for r in rows)}-{max(int(r['free_p']) for r in rows)}; obs {min(int(r['no']) for r in rows)}-{max(int(r['no']) for r in rows)}")
print("   per sequence:", ", ".join(f"{s}: {sum(seq(r)==s for r in rows)}" for s in sorted(set(map(seq, rows)))))
repro = [r for r in rows if f(r,'repro_pose_maxdiff') == 0 and f(r,'repro_point_maxdiff') == 0 and r['repro_inliers_same'] == '1' and r['repro_iters_same'] == '1']
print(f"   ours in driver == dumped app output bit-exactly (poses, points, inlier flags, iterations): {len(repro)}/{len(rows)}")
print(f"   initial RMS px: median {st.median(f(r,'initial_rms') for r in rows):.3f}, max {max(f(r,'initial_rms') for r in rows):.3f}")
print(f"   app-side ours (clang, in-process, dumped): median {st.median(f(r,'dump_ms') for r in rows):.3f} ms, total {sum(f(r,'dump_ms') for r in rows):.1f} ms")
variants = [k[:-3] for k in rows[0] if k.endswith('_ms') and k.startswith('ceres')]
print()
print(f"{'solver':24s} {'inlRMS med':>10s} {'mean':>7s} {'max':>7s} {'inliers':>8s} {'robust cost':>11s} {'ms med':>7s} {'ms p90':>7s} {'ms max':>7s} {'ms total':>9s} {'x ours':>6s} {'iters':>6s}")
ours_tot = sum(f(r, 'ours_ms') for r in rows)
def line(name, pre, timed=True):
    ir = [f(r, pre + '_inlier_rms') for r in rows]
    cost = sum(f(r, pre + '_cost') for r in rows)
    inl = sum(int(r[pre + '_inliers']) for r in rows)
    if timed:
        ms = [f(r, pre + '_ms') for r in rows]; tot = sum(ms)
        print(f"{name:24s} {st.median(ir):10.4f} {st.mean(ir):7.4f} {max(ir):7.4f} {inl:8d} {cost:11.1f} {st.median(ms):7.3f} {pct(ms,.9):7.3f} {max(ms):7.2f} {tot:9.1f} {tot/ours_tot:6.2f} {sum(int(r[pre+'_iters']) for r in rows):6d}")
    else:
        print(f"{name:24s} {st.median(ir):10.4f} {st.mean(ir):7.4f} {max(ir):7.4f} {inl:8d} {cost:11.1f}   (untimed reference)")
line('ours', 'ours')
for v in variants: line(v, v)
line('ceres tight reference', 'ref', False)
print()
print("Differences, per problem (max over its free poses): ceres vs ours; and each vs the tight-tolerance reference optimum.")
print("ctr = camera-centre distance in world units (mm if metric); rel = ctr / scene scale (median camera-to-point distance)")
def dist(name, rot, ctr, rel):
    print(f"{name:34s} rot deg med {st.median(rot):.1e} p90 {pct(rot,.9):.1e} max {max(rot):.1e} | ctr mm med {1e3*st.median(ctr):.3f} p90 {1e3*pct(ctr,.9):.3f} max {1e3*max(ctr):.3f} | rel med {st.median(rel):.1e} max {max(rel):.1e}")
for v in variants[:1] + [x for x in variants if 'analytic_t1' in x]:
    dist(v + ' vs ours', [f(r, v+'_rot_max_deg') for r in rows], [f(r, v+'_ctr_max') for r in rows], [f(r, v+'_ctr_max')/f(r,'scale') for r in rows])
dist('ours vs reference', [f(r,'ours_ref_rot_max_deg') for r in rows], [f(r,'ours_ref_ctr_max') for r in rows], [f(r,'ours_ref_ctr_max')/f(r,'scale') for r in rows])
for v in variants[:1]:
    dist(v + ' vs reference', [f(r, v+'_ref_rot_max_deg') for r in rows], [f(r, v+'_ref_ctr_max') for r in rows], [f(r, v+'_ref_ctr_max')/f(r,'scale') for r in rows])
v = variants[0]
d = [f(r, v + '_inlier_rms') - f(r, 'ours_inlier_rms') for r in rows]
di = [int(r[v + '_inliers']) - int(r['ours_inliers']) for r in rows]
print(f"inlier RMS ceres-ours px: median {st.median(d):+.1e}, min {min(d):+.1e}, max {max(d):+.1e}; inlier count diff min {min(di)} max {max(di)}; "
      f"ours lower robust cost in {sum(f(r,'ours_cost') < f(r, v+'_cost') for r in rows)}/{len(rows)}; "
      f"ours closer to reference (rot) in {sum(f(r,'ours_ref_rot_max_deg') < f(r, v+'_ref_rot_max_deg') for r in rows)}/{len(rows)}")
rc = [f(r,'ours_cost')/f(r,'ref_cost')-1 for r in rows]; cc = [f(r,v+'_cost')/f(r,'ref_cost')-1 for r in rows]
print(f"robust cost above reference optimum: ours median {st.median(rc):.1e} max {max(rc):.1e}; {v} median {st.median(cc):.1e} max {max(cc):.1e}")
print("per-sequence scene scale (median):", ", ".join(f"{s}: {st.median(f(r,'scale') for r in rows if seq(r)==s):.2f}" for s in sorted(set(map(seq, rows)))))
