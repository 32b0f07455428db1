#!/usr/bin/env python3
# Synthetic larger windows (N free poses) in the AK_DUMP_BA format, to see how both solvers scale
# beyond the 7 free poses of the real calls. Cameras walk along a line looking at a wall of points;
# 0.5 px noise, 3% gross outliers, start perturbed (1 cm, 0.3 deg, points 1 cm). Two poses fixed.
import numpy as np, struct, sys
def rot(axis, ang):
    axis = axis / np.linalg.norm(axis); K = np.array([[0,-axis[2],axis[1]],[axis[2],0,-axis[0]],[-axis[1],axis[0],0]])
    return np.eye(3) + np.sin(ang)*K + (1-np.cos(ang))*K@K
def make(n_free, seed, path):
    rng = np.random.default_rng(seed)
    fx = fy = 500.0; cx, cy = 320.0, 240.0
    nc = n_free + 2
    pts = np.column_stack([rng.uniform(-1, 1 + 0.1*nc, 40*nc), rng.uniform(-1, 1, 40*nc), rng.uniform(2.5, 4, 40*nc)])
    poses = []
    for c in range(nc):
        R = rot(rng.normal(size=3), np.deg2rad(3)); C = np.array([0.1*c, 0, 0])
        poses.append((R, -R@C))
    obs = []
    for c,(R,t) in enumerate(poses):
        Xc = pts@R.T + t
        u = fx*Xc[:,0]/Xc[:,2]+cx; v = fy*Xc[:,1]/Xc[:,2]+cy
        for i in np.nonzero((Xc[:,2]>0)&(u>0)&(u<640)&(v>0)&(v<480))[0]:
            x, y = u[i]+rng.normal(0,.5), v[i]+rng.normal(0,.5)
            if rng.random() < 0.03: a = rng.uniform(0,2*np.pi); m = rng.uniform(10,50); x += m*np.cos(a); y += m*np.sin(a)
            obs.append((c, i, x, y))
    seen = np.zeros(len(pts), int)
    for c,i,_,_ in obs: seen[i] += 1
    # perturb the start of free poses/points
    start = []
    for c,(R,t) in enumerate(poses):
        if c < 2: start.append((R,t)); continue
        dR = rot(rng.normal(size=3), np.deg2rad(0.3)); start.append((dR@R, t + rng.normal(0, .01, 3)))
    spts = pts + rng.normal(0, .01, pts.shape)
    with open(path, 'wb') as f:
        f.write(b'AKBA0001'); f.write(struct.pack('<4d', fx, fy, cx, cy))
        f.write(struct.pack('<3i', nc, len(pts), len(obs))); f.write(struct.pack('<idd i', 20, np.sqrt(5.991), 2.5, 1))
        for R,t in start: f.write(struct.pack('<12d', *np.column_stack([R, t]).ravel()))
        f.write(bytes([1 if c < 2 else 0 for c in range(nc)]))
        f.write(struct.pack(f'<{3*len(pts)}d', *spts.ravel())); f.write(bytes([1 if s < 2 else 0 for s in seen]))
        for c,i,x,y in obs: f.write(struct.pack('<iiff', c, int(i), x, y))
        f.write(struct.pack('<i', 0)); f.write(bytes(8*(12*nc + 3*len(pts)) + len(obs)))
        f.write(struct.pack('<iiddd i q', 0, 0, 0, 0, 0, 0, 0))
    print(path, nc, len(pts), len(obs), (seen >= 2).sum())
for n in [int(a) for a in sys.argv[1:]]:
    make(n, n, f'synthetic/syn_{n:03d}.bin')
