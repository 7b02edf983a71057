import { describe, expect, test } from "vitest";
import { runToExit, startDaemon, stopAll } from "../../test/daemon.js";
import { resolveMountMode } from "../mount/driver.js";
import { fuseMountOptions } from "../mount/options.js";
import { readConfig } from "./env.js";

describe("readConfig", () => {
  test("COMPUTERD_CRASH_AT names a sync step and a call; anything else is a ConfigError", () => {
    expect(readConfig({ COMPUTERD_CRASH_AT: "pushObjects:2" }).crashAt).toEqual({ method: "pushObjects", call: 2 });
    expect(readConfig({}).crashAt).toBeUndefined();
    for (const bad of ["pushObjects", "pushObjects:0", "exec:1", "fetchObjects:-1"]) {
      expect(() => readConfig({ COMPUTERD_CRASH_AT: bad })).toThrow(/COMPUTERD_CRASH_AT must be/);
    }
  });

  test("defaults, and RPC_CLIENT_SECRET trimmed then deleted from the env", () => {
    const env: Record<string, string | undefined> = { RPC_CLIENT_SECRET: "  abc \n", COMPUTER_VAR_FOO: "1" };
    const config = readConfig(env);
    expect(config).toMatchObject({
      port: 45_678,
      host: "0.0.0.0",
      mountPoint: "/workspace",
      mount: "auto",
      execLogMaxBytes: 16 * 1024 * 1024,
      secret: "abc",
      computerVars: { FOO: "1" },
    });
    expect("RPC_CLIENT_SECRET" in env).toBe(false);
    expect(readConfig({ RPC_CLIENT_SECRET: "   " }).secret).toBeUndefined();
    expect(readConfig({ COMPUTERD_DEFAULT_PORT: "8080" }).port).toBe(8080);
  });

  test("the default FUSE options are the reference's, and the knobs change them", () => {
    expect(fuseMountOptions(readConfig({}).fuse).join(",")).toBe(
      "big_writes,use_ino,max_write=1048576,max_read=524288,auto_cache,attr_timeout=1,entry_timeout=1,negative_timeout=0,ac_attr_timeout=1",
    );
    const tuned = readConfig({
      COMPUTERD_FUSE_AUTO_CACHE: "off",
      COMPUTERD_FUSE_KERNEL_CACHE: "1",
      COMPUTERD_FUSE_ATTR_TIMEOUT: "",
      COMPUTERD_FUSE_ENTRY_TIMEOUT: "0.5",
      COMPUTERD_FUSE_EXTRA_OPTS: "writeback_cache,noatime",
    }).fuse;
    expect(fuseMountOptions(tuned).join(",")).toBe(
      "big_writes,use_ino,max_write=1048576,max_read=524288,kernel_cache,entry_timeout=0.5,negative_timeout=0,ac_attr_timeout=1,noatime",
    );
    // auto_cache wins when both are on.
    expect(readConfig({ COMPUTERD_FUSE_KERNEL_CACHE: "yes" }).fuse).toMatchObject({
      autoCache: true,
      kernelCache: false,
    });
  });

  test("the driver, the writeback cache and fuse-napi's page-cache policy", () => {
    expect(readConfig({}).fuse).toMatchObject({
      driver: "auto",
      writebackCache: false,
      pageCache: "kernel",
      epochTimeouts: { entry: 30, negative: 30 },
      loop: "main",
    });
    expect(readConfig({ COMPUTERD_FUSE_LOOP: "threads" }).fuse.loop).toBe("threads");
    expect(() => readConfig({ COMPUTERD_FUSE_LOOP: "workers" })).toThrow(/COMPUTERD_FUSE_LOOP must be main or threads/);
    expect(readConfig({ COMPUTERD_FUSE_NEGATIVE_TIMEOUT: "0" }).fuse.epochTimeouts).toBeUndefined();
    expect(readConfig({ COMPUTERD_FUSE_DRIVER: "fuse-native" }).fuse.driver).toBe("fuse-native");
    expect(readConfig({ COMPUTERD_FUSE_DRIVER: "fuse-napi" }).fuse.driver).toBe("fuse-napi");
    expect(readConfig({ COMPUTERD_FUSE_DRIVER: "kernel" }).fuse.driver).toBe("kernel");
    expect(() => readConfig({ COMPUTERD_FUSE_DRIVER: "fuse3" })).toThrow(/COMPUTERD_FUSE_DRIVER/);
    expect(readConfig({ COMPUTERD_FUSE_WRITEBACK_CACHE: "1" }).fuse.writebackCache).toBe(true);
    expect(readConfig({ COMPUTERD_FUSE_AUTO_CACHE: "1" }).fuse.pageCache).toBe("auto");
    expect(readConfig({ COMPUTERD_FUSE_AUTO_CACHE: "0" }).fuse.pageCache).toBe("none");
    expect(readConfig({ COMPUTERD_FUSE_AUTO_CACHE: "0", COMPUTERD_FUSE_KERNEL_CACHE: "1" }).fuse.pageCache).toBe(
      "kernel",
    );
  });

  test("busy polling: auto with 50 µs spins by default; qos, spin, off and the spin length", () => {
    expect(readConfig({}).fuse.busyPoll).toEqual({ setting: "auto", spinMicros: 50 });
    for (const setting of ["qos", "spin", "off"]) {
      expect(readConfig({ COMPUTERD_FUSE_BUSY_POLL: setting }).fuse.busyPoll.setting).toBe(setting);
    }
    expect(readConfig({ COMPUTERD_FUSE_SPIN_US: "0" }).fuse.busyPoll.spinMicros).toBe(0);
    expect(readConfig({ COMPUTERD_FUSE_SPIN_US: "200" }).fuse.busyPoll.spinMicros).toBe(200);
    expect(() => readConfig({ COMPUTERD_FUSE_BUSY_POLL: "always" })).toThrow(
      /COMPUTERD_FUSE_BUSY_POLL must be auto, qos, spin or off; got "always"/,
    );
    expect(() => readConfig({ COMPUTERD_FUSE_SPIN_US: "-5" })).toThrow(/COMPUTERD_FUSE_SPIN_US must be an integer/);
  });

  test("no-open: on by default, off keeps handles for every open", () => {
    expect(readConfig({}).fuse.noOpen).toBe(true);
    expect(readConfig({ COMPUTERD_FUSE_NO_OPEN: "" }).fuse.noOpen).toBe(true);
    expect(readConfig({ COMPUTERD_FUSE_NO_OPEN: "on" }).fuse.noOpen).toBe(true);
    expect(readConfig({ COMPUTERD_FUSE_NO_OPEN: "off" }).fuse.noOpen).toBe(false);
    expect(() => readConfig({ COMPUTERD_FUSE_NO_OPEN: "0" })).toThrow(
      /COMPUTERD_FUSE_NO_OPEN must be on or off; got "0"/,
    );
  });

  test.each([
    [{ FUSE_MOUNT: "fuse2" }, /FUSE_MOUNT/],
    [{ MOUNT_POINT: "workspace" }, /MOUNT_POINT must be an absolute path/],
    [{ PORT: "65536" }, /PORT must be an integer/],
    [{ PORT: "80a" }, /PORT must be an integer/],
    [{ EXEC_LOG_MAX_BYTES: "0" }, /EXEC_LOG_MAX_BYTES must be a positive integer/],
    [{ EXEC_LOG_MAX_BYTES: "1.5" }, /EXEC_LOG_MAX_BYTES/],
    [{ DISABLE_FUSE: "1" }, /DISABLE_FUSE is no longer supported/],
    [{ FUSE_SHIM: "1" }, /FUSE_SHIM/],
    [{ WSD_FUSE_BACKEND: "x" }, /WSD_FUSE_BACKEND/],
    [{ COMPUTERD_FUSE_ATTR_TIMEOUT: "soon" }, /COMPUTERD_FUSE_ATTR_TIMEOUT/],
  ])("%o is refused", (env, message) => {
    expect(() => readConfig(env)).toThrow(message);
  });
});

describe("COMPUTERD_EXEC_NETWORK", () => {
  test("host by default, none on request, anything else refused", () => {
    expect(readConfig({}).execNetwork).toBe("host");
    expect(readConfig({ COMPUTERD_EXEC_NETWORK: "none" }).execNetwork).toBe("none");
    expect(readConfig({ COMPUTERD_EXEC_NETWORK: "none" }).egress).toBeUndefined();
    expect(() => readConfig({ COMPUTERD_EXEC_NETWORK: "off" })).toThrow(
      /COMPUTERD_EXEC_NETWORK must be host, none or gateway/,
    );
  });

  test("gateway needs the host's tunnel URL and the CA files", () => {
    const gateway = {
      COMPUTERD_EXEC_NETWORK: "gateway",
      COMPUTERD_EGRESS_TUNNEL: "http://127.0.0.1:45600/v1/containers/a/egress/tunnel",
      COMPUTERD_EGRESS_CA: "/tmp/ca/ca.pem",
      COMPUTERD_EGRESS_CA_BUNDLE: "/tmp/ca/bundle.pem",
    };
    expect(readConfig({ ...gateway })).toMatchObject({
      execNetwork: "gateway",
      egress: { tunnel: gateway.COMPUTERD_EGRESS_TUNNEL, caCert: "/tmp/ca/ca.pem", caBundle: "/tmp/ca/bundle.pem" },
    });
    expect(() => readConfig({ ...gateway, COMPUTERD_EGRESS_TUNNEL: "" })).toThrow(/COMPUTERD_EGRESS_TUNNEL/);
    expect(() => readConfig({ ...gateway, COMPUTERD_EGRESS_CA: "ca.pem" })).toThrow(/COMPUTERD_EGRESS_CA/);
  });
});

describe("resolveMountMode", () => {
  test("auto: /dev/fuse on Linux is fuse, without it shim; explicit fuse without it throws", () => {
    expect(resolveMountMode("auto", "linux", () => true)).toBe("fuse");
    expect(resolveMountMode("auto", "linux", () => false)).toBe("shim");
    expect(resolveMountMode("auto", "darwin", (path) => path.includes("macfuse"))).toBe("macfuse");
    expect(() => resolveMountMode("fuse", "linux", () => false)).toThrow(/not available/);
    expect(resolveMountMode("none", "linux", () => false)).toBe("none");
  });
});

describe("the process", () => {
  test.each([
    { FUSE_MOUNT: "bogus" },
    { MOUNT_POINT: "relative/path" },
    { PORT: "-1" },
    { EXEC_LOG_MAX_BYTES: "lots" },
    { DISABLE_FUSE: "1" },
  ])("%o exits non-zero with a message and never listens", async (env) => {
    const { code, output } = await runToExit(env as unknown as Record<string, string>);
    expect(code).toBe(2);
    expect(output).toMatch(/\[error\] computerd: /);
    expect(output).not.toMatch(/listening/);
  });

  test("auto on a machine without /dev/fuse answers /__computerd/info with kind shim", async () => {
    // The test machine has /dev/fuse, so FUSE_MOUNT=shim stands in for `auto` here (resolveMountMode is tested above).
    const daemon = await startDaemon({ FUSE_MOUNT: "shim" });
    try {
      const info = await (await fetch(`${daemon.url}/__computerd/info`)).json();
      expect(info).toEqual({ backend: { kind: "shim" }, mountPoint: daemon.mountPoint, port: daemon.port });
    } finally {
      await stopAll();
    }
  });
});

describe("COMPUTERD_STORE", () => {
  test("COMPUTERD_STATE_DIR: unset by default, an absolute path (slash trimmed), anything else refused", () => {
    expect(readConfig({}).stateDir).toBeUndefined();
    expect(readConfig({ COMPUTERD_STATE_DIR: "" }).stateDir).toBeUndefined();
    expect(readConfig({ COMPUTERD_STATE_DIR: "/var/lib/computerd/" }).stateDir).toBe("/var/lib/computerd");
    expect(() => readConfig({ COMPUTERD_STATE_DIR: "state" })).toThrow(
      'COMPUTERD_STATE_DIR must be an absolute path, got "state"',
    );
  });
  test("file by default, memory on request, anything else refused", () => {
    expect(readConfig({}).store).toBe("file");
    expect(readConfig({ COMPUTERD_STORE: "" }).store).toBe("file");
    expect(readConfig({ COMPUTERD_STORE: "memory" }).store).toBe("memory");
    expect(() => readConfig({ COMPUTERD_STORE: "disk" })).toThrow('COMPUTERD_STORE must be file or memory, got "disk"');
  });
});

describe("COMPUTERD_IDLE_RECLAIM_MS", () => {
  test("3 s by default, 0 turns it off, anything but an integer >= 0 refused", () => {
    expect(readConfig({}).idleReclaimMs).toBe(3_000);
    expect(readConfig({ COMPUTERD_IDLE_RECLAIM_MS: "0" }).idleReclaimMs).toBe(0);
    expect(readConfig({ COMPUTERD_IDLE_RECLAIM_MS: "500" }).idleReclaimMs).toBe(500);
    for (const bad of ["-1", "1.5", "soon"]) {
      expect(() => readConfig({ COMPUTERD_IDLE_RECLAIM_MS: bad })).toThrow(
        `COMPUTERD_IDLE_RECLAIM_MS must be an integer >= 0, got "${bad}"`,
      );
    }
  });
});
