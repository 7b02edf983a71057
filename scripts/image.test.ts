/**
 * The workspace image's build cannot produce an image whose computerd dies
 * at boot: its native addons are checked against the Node that ships in it
 * (containers/check-abi.mjs, the last step of containers/build.sh), and the
 * two builds of the image, `docker build` of containers/Dockerfile and
 * containers/rootfs.sh (what CI boots), read the same inputs.
 *
 * The mismatch is a real one: better-sqlite3 as the workspace built it (for
 * the project's Node, .node-version) under the lowest Node the README
 * promises (scripts/lib/floor-node.ts), which really refuses to load it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FLOOR_NODE, floorNode } from "./lib/floor-node.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), "utf8");
const work = mkdtempSync(join(tmpdir(), "image-abi-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** better-sqlite3's addon as the workspace built it, for the project's Node. */
const SQLITE_ADDON = join(
  dirname(createRequire(join(root, "packages/dofs/package.json")).resolve("better-sqlite3/package.json")),
  "build/Release/better_sqlite3.node",
);

/** A minimal image context: `node/bin/node` is `node`, with better-sqlite3's addon in node_modules. */
function dist(name: string, node: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, "node/bin"), { recursive: true });
  mkdirSync(join(dir, "node_modules/better-sqlite3/build/Release"), { recursive: true });
  symlinkSync(node, join(dir, "node/bin/node"));
  copyFileSync(SQLITE_ADDON, join(dir, "node_modules/better-sqlite3/build/Release/better_sqlite3.node"));
  return dir;
}

function checkAbi(dir: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [join(root, "containers/check-abi.mjs"), dir], { encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("the image's ABI check", () => {
  it("passes addons built for the Node that ships with them, and records them", () => {
    const dir = dist("fits", process.execPath);
    const { status, output } = checkAbi(dir);
    expect(output).toContain(`1 addons fit Node ${process.versions.node} (ABI ${process.versions.modules})`);
    expect(status).toBe(0);
    const image = JSON.parse(readFileSync(join(dir, "image.json"), "utf8"));
    expect(image).toEqual({
      node: process.versions.node,
      abi: process.versions.modules,
      addons: [
        { path: "node_modules/better-sqlite3/build/Release/better_sqlite3.node", abi: process.versions.modules },
      ],
    });
  });

  it(`fails the build when the image's Node is another (Node ${FLOOR_NODE}), naming the addon and both ABIs`, () => {
    const node = floorNode();
    const floorAbi = execFileSync(node, ["-p", "process.versions.modules"], { encoding: "utf8" }).trim();
    expect(floorAbi).not.toBe(process.versions.modules);
    // What computerd would have met at boot: that Node refuses the addon.
    const load = spawnSync(node, ["-e", "process.dlopen({ exports: {} }, process.argv[1])", SQLITE_ADDON], {
      encoding: "utf8",
    });
    expect(load.status).not.toBe(0);
    expect(load.stderr).toContain(`NODE_MODULE_VERSION ${process.versions.modules}`);

    const dir = dist("mismatch", node);
    const { status, output } = checkAbi(dir);
    expect(status).toBe(1);
    expect(output).toContain(
      `node_modules/better-sqlite3/build/Release/better_sqlite3.node: built for NODE_MODULE_VERSION ${process.versions.modules}, the image's Node ${FLOOR_NODE} is ${floorAbi}`,
    );
    expect(existsSync(join(dir, "image.json"))).toBe(false);
  }, 300_000);

  it("refuses a file that is no Node addon for this machine", () => {
    const dir = dist("stray", process.execPath);
    copyFileSync(join(root, "containers/packages.txt"), join(dir, "node_modules/stray.node"));
    const { status, output } = checkAbi(dir);
    expect(status).toBe(1);
    expect(output).toContain(`node_modules/stray.node: not a Node addon for linux-${process.arch}`);
  });
});

describe("one set of inputs for the Dockerfile and the rootfs build", () => {
  it("the image's Node is the project's, carried in the build context, never a base image's", () => {
    const dockerfile = read("containers/Dockerfile");
    expect(dockerfile).not.toMatch(/^FROM\s+node:/m);
    expect(dockerfile).toMatch(/^FROM debian:bookworm-slim$/m);
    expect(dockerfile).toContain("COPY dist/ /opt/computerd/");
    expect(read("containers/node-version.sh")).toContain(".node-version");
    expect(read("containers/build.sh")).toContain('"$package@$IMAGE_NODE_VERSION"');
    expect(read("containers/build.sh")).toContain("node containers/check-abi.mjs");
  });

  it("both install containers/packages.txt, and the rootfs takes ENV and ENTRYPOINT from the Dockerfile", () => {
    expect(read("containers/Dockerfile")).toMatch(/COPY packages\.txt[\s\S]*xargs apt-get install/);
    expect(read("containers/Dockerfile")).not.toMatch(/apt-get install[^\n]*\b(fuse3|git|curl)\b/);
    const rootfs = read("containers/rootfs.sh");
    expect(rootfs).toContain("containers/packages.txt");
    expect(rootfs).toContain("node containers/image-config.mjs containers/Dockerfile");
    const config = JSON.parse(
      execFileSync(process.execPath, [join(root, "containers/image-config.mjs"), join(root, "containers/Dockerfile")], {
        encoding: "utf8",
      }),
    );
    expect(config.entrypoint).toEqual(["/opt/computerd/node/bin/node", "/opt/computerd/computerd.mjs"]);
    expect(config.env.PATH.split(":")[0]).toBe("/opt/computerd/node/bin");
    expect(config.env).toMatchObject({ PORT: "8080", MOUNT_POINT: "/workspace", FUSE_MOUNT: "auto" });
  });
});
