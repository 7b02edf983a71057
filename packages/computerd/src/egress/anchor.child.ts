/**
 * Runs once per container, as `unshare --net -- node anchor.child.js`, inside the
 * network namespace the container's commands will share: it brings the
 * loopback up, listens on an ephemeral port of it (the commands' HTTP proxy
 * port) and hands the listening socket to computerd over the IPC channel,
 * with its own pid as /proc numbers it, so computerd can hold the namespace
 * open. Then it waits to be told to go: the socket, and the namespace, live
 * on in computerd. See namespace.ts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

// A fresh network namespace has only `lo`, and it is down.
execFileSync(existsSync("/usr/sbin/ip") ? "/usr/sbin/ip" : "ip", ["link", "set", "lo", "up"]);
const server = createServer();
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  // `process.pid` counts in computerd's pid namespace; /proc (the host's) counts in its own.
  const procPid = Number(readlinkSync("/proc/self"));
  process.send?.({ port, procPid }, server, () => server.close());
});
process.on("disconnect", () => process.exit(0));
