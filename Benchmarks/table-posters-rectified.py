#!/usr/bin/env python3
"""Posters lying on a table, searched in a top view of the table (issue 23, a feasibility check).

Each chosen frame of a rendered sequence (default Generated/images-table, `anchorkit synth
images-table`) is warped to a top view of the plane each named poster lies on, at PPM pixels a
metre, over a region MARGIN poster widths beyond the poster on every side and shifted by SHIFT
widths (so that the poster is not centred); the view is searched as a still photo by `anchorkit
track --references` among all the sequence's references. The plane comes from the ground truth
(the poster's corners), as a found table plane would give it: this measures whether a rectified
view is enough for detection, not how a plane would be found. Prints, per view, what was found
and the found corners' largest error in the original frame's pixels.

    python3 Benchmarks/table-posters-rectified.py [SEQUENCE] [--frames 0,30,...] [--ppm 325]
        [--margin 1.5] [--shift 0.4] [--names graf,box] [--anchorkit PATH]

Needs numpy only (PNG read and written here with zlib).
"""
import argparse, json, math, os, struct, subprocess, sys, tempfile, zlib
import numpy as np


def read_png(path):
    """8-bit gray, gray+alpha, RGB or RGBA PNG (not interlaced) as a float gray image."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit(f'{path}: not a PNG')
    pos, idat = 8, b''
    while pos < len(data):
        n, = struct.unpack('>I', data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
    if depth != 8 or interlace != 0:
        sys.exit(f'{path}: only 8-bit, non-interlaced PNGs')
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw, stride = zlib.decompress(idat), w * ch
    out, prev = np.zeros((h, stride), np.int32), np.zeros(stride, np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)], np.uint8).astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        else:  # sub, average, Paeth: each byte depends on the one ch to its left
            cur = np.zeros(stride, np.int32)
            for x in range(stride):
                a = cur[x - ch] if x >= ch else 0
                b, c = prev[x], (prev[x - ch] if x >= ch else 0)
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + p) & 255
        out[y], prev = cur, cur
    img = out.reshape(h, w, ch).astype(np.float64)
    return img[..., :3].mean(axis=2) if ch >= 3 else img[..., 0]


def write_png(path, gray):
    g = np.clip(np.round(gray), 0, 255).astype(np.uint8)
    h, w = g.shape
    raw = b''.join(b'\x00' + g[y].tobytes() for y in range(h))
    chunk = lambda k, b: struct.pack('>I', len(b)) + k + b + struct.pack('>I', zlib.crc32(k + b) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
                           + chunk(b'IDAT', zlib.compress(raw, 6)) + chunk(b'IEND', b''))


def homography(src, dst):
    """The 3x3 H with dst ~ H src, from four or more point pairs (DLT)."""
    rows = []
    for (x, y), (u, v) in zip(src, dst):
        rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y, -u], [0, 0, 0, x, y, 1, -v * x, -v * y, -v]]
    H = np.linalg.svd(np.array(rows))[2][-1].reshape(3, 3)
    return H / H[2, 2]


def apply(H, points):
    q = H @ np.vstack([np.asarray(points, float).T, np.ones(len(points))])
    return (q[:2] / q[2]).T


def bilinear(img, x, y):
    """img at (x, y), pixel centres at integers; 128 outside."""
    h, w = img.shape
    inside = (x >= 0) & (y >= 0) & (x <= w - 1.001) & (y <= h - 1.001)
    x, y = np.clip(x, 0, w - 1.001), np.clip(y, 0, h - 1.001)
    x0, y0 = x.astype(int), y.astype(int)
    fx, fy = x - x0, y - y0
    v = (img[y0, x0] * (1 - fx) * (1 - fy) + img[y0, x0 + 1] * fx * (1 - fy)
         + img[y0 + 1, x0] * (1 - fx) * fy + img[y0 + 1, x0 + 1] * fx * fy)
    return np.where(inside, v, 128.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('sequence', nargs='?', default='Generated/images-table')
    ap.add_argument('--frames', default='0,30,60,90,120,150,179')
    ap.add_argument('--ppm', type=float, default=325, help='top-view pixels a metre')
    ap.add_argument('--margin', type=float, default=1.5, help='table shown beyond the poster, poster widths')
    ap.add_argument('--shift', type=float, default=0.4, help='the view moved off the poster, poster widths')
    ap.add_argument('--names', default='graf,box')
    ap.add_argument('--anchorkit', default='.build-bench/release/anchorkit')
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.sequence, 'groundtruth.jsonl')):
        sys.exit(f'table-posters-rectified: {a.sequence}: no groundtruth.jsonl (make one: anchorkit synth images-table)')
    if not os.access(a.anchorkit, os.X_OK):
        sys.exit(f'table-posters-rectified: no anchorkit at {a.anchorkit} (swift build -c release --scratch-path .build-bench, or --anchorkit)')
    truth = {}
    for line in open(os.path.join(a.sequence, 'groundtruth.jsonl')):
        record = json.loads(line)
        truth[record['frame']] = record
    work = tempfile.mkdtemp(prefix='table-posters-')
    references = os.path.join(work, 'references.akrefs')
    subprocess.run([a.anchorkit, 'reference-db', a.sequence, '-o', references], check=True, capture_output=True)
    names, found_views, views = a.names.split(','), 0, 0
    for f in [int(s) for s in a.frames.split(',')]:
        image = read_png(os.path.join(a.sequence, 'frames', '%06d.png' % f))
        for anchor in truth[f]['anchors']:
            if anchor['name'] not in names or not anchor.get('corners'):
                continue
            W, H = anchor['extent']
            margin, shift = a.margin * W, a.shift * W
            # Top view: pixel (u, v) is the plane point ((u + 0.5) / ppm - margin + shift,
            # (v + 0.5) / ppm - margin - shift), metres from the poster's top-left corner.
            plane_to_image = homography([(0, 0), (W, 0), (W, H), (0, H)], anchor['corners'])
            view_to_plane = np.array([[1 / a.ppm, 0, 0.5 / a.ppm - margin + shift],
                                      [0, 1 / a.ppm, 0.5 / a.ppm - margin - shift], [0, 0, 1]])
            view_to_image = plane_to_image @ view_to_plane
            w, h = int(round((W + 2 * margin) * a.ppm)), int(round((H + 2 * margin) * a.ppm))
            u, v = np.meshgrid(np.arange(w), np.arange(h))
            q = apply(view_to_image, np.stack([u.ravel(), v.ravel()], axis=1))
            photo, camera, stream = (os.path.join(work, n) for n in ('view.png', 'camera.json', 'view.jsonl'))
            write_png(photo, bilinear(image, q[:, 0], q[:, 1]).reshape(h, w))
            json.dump({'fx': 525, 'fy': 525, 'cx': (w - 1) / 2, 'cy': (h - 1) / 2, 'width': w, 'height': h}, open(camera, 'w'))
            if os.path.exists(stream):
                os.remove(stream)
            run = subprocess.run([a.anchorkit, 'track', photo, '--camera', camera, '--references', references,
                                  '-o', stream, '--quiet'], capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(run.stderr.strip())
            found = []
            for line in open(stream):
                for got in json.loads(line).get('anchors', []):
                    if got.get('corners'):
                        corners = apply(view_to_image, got['corners'])
                        error = max(math.dist(p, t) for p, t in zip(corners, anchor['corners']))
                        found.append(f"{got['name']} {error:.2f} px" if got['name'] == anchor['name'] else f"{got['name']} (false)")
            views += 1
            found_views += any(s.startswith(anchor['name'] + ' ') for s in found)
            print(f"frame {f:4d} {anchor['name']:6s} top view {w}x{h}: {', '.join(found) or 'nothing'}")
    print(f'{found_views} of {views} views found their poster')


if __name__ == '__main__':
    main()
