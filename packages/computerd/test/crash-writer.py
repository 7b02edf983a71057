"""
One writer of the crash test (store/crash.fuse.test.ts): writes files of
1 byte to 1.5 MiB under DIR, each closed (and every third one fsynced
first), and prints "<path> <sha256>" once close(2) returned: what the
daemon acknowledged. Stops at the first error (the daemon was killed).
Usage: crash-writer.py DIR SEED
"""
import hashlib
import os
import random
import sys

directory, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
os.makedirs(directory, exist_ok=True)
index = 0
try:
    while True:
        path = os.path.join(directory, f"f{index:05d}")
        size = rng.choice([1, 100, 4096, 70_000, 600_000, 1_500_000])
        data = rng.randbytes(size)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        # In pieces, as a copy would: the daemon sees several writes per file.
        for at in range(0, size, 128 * 1024):
            os.write(fd, data[at : at + 128 * 1024])
        if index % 3 == 0:
            os.fsync(fd)
        os.close(fd)
        print(path, hashlib.sha256(data).hexdigest(), flush=True)
        index += 1
except OSError as error:
    print(f"stopped: {error}", file=sys.stderr, flush=True)
