"""Blacks out frames of a sequence stored as PNG frames (a covered lens), in place.

    python3 cover_frames.py FRAMES_FOLDER FIRST-LAST [FIRST-LAST ...]
"""
import struct
import sys
import zlib
from pathlib import Path

folder = Path(sys.argv[1])
first = sorted(folder.glob("*.png"))[0]
width, height = struct.unpack(">II", first.read_bytes()[16:24])  # IHDR


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


black = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
         + chunk(b"IDAT", zlib.compress(b"".join(b"\x00" * (width + 1) for _ in range(height)))) + chunk(b"IEND", b""))
for span in sys.argv[2:]:
    a, b = map(int, span.split("-"))
    for i in range(a, b + 1):
        (folder / f"{i:06d}.png").write_bytes(black)
