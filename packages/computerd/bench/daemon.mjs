/**
 * The benches' computerd: the built daemon on a FUSE mount, resolved once it
 * says it is listening (its port in `child.port`, what it printed in
 * `child.output()`). COMPUTERD_* variables (the driver, its options) pass
 * through, so one bench compares settings.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

export async function startComputerd(mountPoint, extraEnv = {}) {
  const child = spawn(process.execPath, [main], {
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith("COMPUTERD_"))),
      PATH: process.env.PATH,
      HOST: "127.0.0.1",
      PORT: "0",
      FUSE_MOUNT: "fuse",
      MOUNT_POINT: mountPoint,
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.output = () => output;
  await new Promise((resolve, reject) => {
    const onData = (data) => {
      output += data;
      const match = /listening host=\S+ port=(\d+)/.exec(output);
      if (match) {
        child.port = Number(match[1]);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`computerd exited ${code}: ${output}`)));
  });
  return child;
}
