/**
 * fsx (packages/dofs/test/fsx.ts, shared with dofs' own run) against a real
 * computerd FUSE mount, with each driver. Every op is done by real system
 * calls on a file on the mount and on a file in a tmpfs (/dev/shm), and both
 * are compared with the in-memory model after every op (the tmpfs file
 * keeps the model honest: the kernel's own answer). Writes, truncates,
 * fsync, close/reopen and O_TRUNC come from node:fs; mmap writes (MAP_SHARED,
 * msync'd before munmap) and copy_file_range come from one long-lived python3
 * helper, since Node has neither. A pull op pulls over WorkspaceRPC into a
 * separate dofs store (the Durable Object's side) while the file is open,
 * and that copy is compared too; before each whole-file compare the file's
 * pages are dropped from the kernel's cache (POSIX_FADV_DONTNEED), so the
 * daemon answers, not the page cache.
 *
 * What is compared after each op is described in fsx.ts. Longer runs:
 * `FSX_SEEDS=8 FSX_OPS=100000 npx vitest run --project computerd:node packages/computerd/src/mount/fsx.fuse.test.ts`
 * (FSX_SEED=k runs seed k alone).
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce } from "@cloudflare/computer-rpc/driver";
import { type Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type FsxOp, type FsxTarget, fsxSettings, runFsx } from "../../../dofs/test/fsx.js";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

// Seeds 1 and 2 per driver in CI, as for dofs; FSX_SEEDS/FSX_OPS run more.
const { seeds, ops } = fsxSettings({ seeds: 2, ops: 20_000 });

/** mmap writes, copy_file_range and cache drops, one request at a time: a JSON line, then the bytes for mmap. */
const HELPER = `
import json, mmap, os, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    line = inp.readline()
    if not line:
        break
    req = json.loads(line)
    data = inp.read(req["length"]) if req["op"] == "mmap" else b""
    try:
        fd = os.open(req["path"], os.O_RDWR)
        try:
            if req["op"] == "mmap":
                start = req["offset"] - req["offset"] % mmap.ALLOCATIONGRANULARITY
                at = req["offset"] - start
                m = mmap.mmap(fd, at + len(data), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=start)
                m[at:at + len(data)] = data
                m.flush()
                m.close()
                done = len(data)
            elif req["op"] == "copy":
                # The bytes up to the end as it is now: a retry after a short copy must not read the hole it grew.
                length = max(0, min(req["length"], os.fstat(fd).st_size - req["src"]))
                done = 0
                while done < length:
                    n = os.copy_file_range(fd, fd, length - done, req["src"] + done, req["dst"] + done)
                    if n == 0:
                        break
                    done += n
            else:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                done = 0
        finally:
            os.close(fd)
        out.write(b"ok %d\\n" % done)
    except OSError as error:
        out.write(("err %s\\n" % error).encode())
    out.flush()
`;

class PythonHelper {
  readonly #child: ChildProcess;
  readonly #waiting: ((line: string) => void)[] = [];
  #pending = "";

  constructor() {
    this.#child = spawn("python3", ["-u", "-c", HELPER], { stdio: ["pipe", "pipe", "inherit"] });
    this.#child.stdout?.setEncoding("utf8");
    this.#child.stdout?.on("data", (text: string) => {
      this.#pending += text;
      for (let end = this.#pending.indexOf("\n"); end >= 0; end = this.#pending.indexOf("\n")) {
        const line = this.#pending.slice(0, end);
        this.#pending = this.#pending.slice(end + 1);
        this.#waiting.shift()?.(line);
      }
    });
  }

  async call(request: Record<string, unknown>, data?: Uint8Array): Promise<number> {
    const reply = new Promise<string>((resolve) => this.#waiting.push(resolve));
    this.#child.stdin?.write(`${JSON.stringify(request)}\n`);
    if (data !== undefined) this.#child.stdin?.write(data);
    const line = await reply;
    if (!line.startsWith("ok ")) throw new Error(`python3 ${String(request.op)}: ${line}`);
    return Number(line.slice(3));
  }

  close(): void {
    this.#child.stdin?.end();
  }
}

interface Peer {
  store: Database;
  client: WorkspaceClient;
  /** The file's path as computerd names it (the mount point it sees; another in the image). */
  pathOf(path: string): string;
}

/** One file driven by real system calls; on the mount it has a sync peer that pulls. */
class PosixTarget implements FsxTarget {
  readonly name: string;
  readonly #path: string;
  readonly #helper: PythonHelper;
  readonly #peer: Peer | undefined;
  #fd: number;

  constructor(name: string, path: string, helper: PythonHelper, peer?: Peer) {
    this.name = name;
    this.#path = path;
    this.#helper = helper;
    this.#peer = peer;
    this.#fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC, 0o644);
  }

  async apply(op: FsxOp, data: Uint8Array | undefined): Promise<void> {
    switch (op.kind) {
      case "write":
        for (let done = 0; done < op.length; ) {
          done += writeSync(this.#fd, data as Uint8Array, done, op.length - done, op.offset + done);
        }
        return;
      case "mmap":
        if (data !== undefined && data.length > 0) {
          await this.#helper.call({ op: "mmap", path: this.#path, offset: op.offset, length: data.length }, data);
        }
        return;
      case "truncate":
        if (op.via === "fd") ftruncateSync(this.#fd, op.size);
        else if (op.via === "path") truncateSync(this.#path, op.size);
        else {
          closeSync(this.#fd);
          truncateSync(this.#path, op.size);
          this.#fd = openSync(this.#path, constants.O_RDWR);
        }
        return;
      case "copy":
        await this.#helper.call({ op: "copy", path: this.#path, src: op.src, dst: op.dst, length: op.length });
        return;
      case "fsync":
        fsyncSync(this.#fd);
        return;
      case "pull":
        if (this.#peer !== undefined) await pullOnce({ db: this.#peer.store }, this.#peer.client.sync);
        return;
      case "reopen":
        closeSync(this.#fd);
        this.#fd = openSync(this.#path, constants.O_RDWR | (op.trunc ? constants.O_TRUNC : 0));
        return;
    }
  }

  async size(): Promise<number> {
    return fstatSync(this.#fd).size;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const out = Buffer.alloc(length);
    for (let done = 0; done < length; ) {
      const got = readSync(this.#fd, out, done, length - done, offset + done);
      if (got === 0) return out.subarray(0, done);
      done += got;
    }
    return out;
  }

  get pulled(): (() => Promise<Uint8Array>) | undefined {
    const peer = this.#peer;
    if (peer === undefined) return undefined;
    return async () => {
      const stream = await new WorkspaceFilesystem(peer.store).readFile(peer.pathOf(this.#path));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    };
  }

  get settle(): (() => Promise<void>) | undefined {
    if (this.#peer === undefined) return undefined;
    return async () => {
      await this.#helper.call({ op: "drop", path: this.#path });
    };
  }

  async close(): Promise<void> {
    closeSync(this.#fd);
    unlinkSync(this.#path);
  }
}

describe.each(["fuse-napi", "fuse-native", "kernel"])("fsx on the FUSE mount with %s", (driver) => {
  let daemon: TestDaemon;
  let peer: Peer;
  let helper: PythonHelper;
  let tmpfs: string;

  beforeAll(async () => {
    daemon = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: driver });
    expect(daemon.output()).toContain(`(${driver},`);
    peer = {
      store: openNodeDatabase(),
      client: await createWorkspaceClient({ url: `${daemon.url}/api` }),
      pathOf: (path) => daemon.ownMountPoint + path.slice(daemon.mountPoint.length),
    };
    helper = new PythonHelper();
    tmpfs = mkdtempSync("/dev/shm/fsx-");
  });

  afterAll(async () => {
    helper?.close();
    await peer?.client.close();
    await stopAll();
    if (tmpfs !== undefined) rmSync(tmpfs, { recursive: true, force: true });
  });

  test.each(seeds)(
    `seed %i: ${ops} random ops on one file agree with tmpfs and the model`,
    async (seed) => {
      let run = 0;
      const stats = await runFsx({
        seed,
        ops,
        open: async () => {
          const name = `fsx-${seed}-${run++}`;
          return [
            new PosixTarget("tmpfs", join(tmpfs, name), helper),
            new PosixTarget(driver, join(daemon.mountPoint, name), helper, peer),
          ];
        },
      });
      console.log(`fsx ${driver} seed ${seed}: ${JSON.stringify(stats)}`);
      expect(stats.ops).toBe(ops);
    },
    600_000,
  );
});
