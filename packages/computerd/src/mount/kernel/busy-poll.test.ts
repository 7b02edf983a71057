/**
 * Busy polling's two ways, with a plain file standing in for
 * /dev/cpu_dma_latency (it records every value written, as the device
 * would apply it): the latency request is taken at the first request and
 * released after a quiet IDLE_RELEASE_MS; where the device cannot be
 * written, auto falls back to spinning, which rests after empty spins
 * until requests come close together again.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { BusyPoll, IDLE_RELEASE_MS } from "./busy-poll.js";

const IDLE = 2_000_000_000;

function written(device: string): number[] {
  const bytes = readFileSync(device);
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readInt32LE(i * 4));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("qos: 0 µs is requested at the first request, kept while requests come, released once they stop", async () => {
  const device = join(mkdtempSync(join(tmpdir(), "busy-poll-")), "latency");
  writeFileSync(device, "");
  const poll = new BusyPoll({ setting: "auto", spinMicros: 50, device });
  expect(poll.mode).toBe("qos");
  expect(poll.spinBudget()).toBe(0);
  expect(written(device)).toEqual([IDLE]);
  poll.busy();
  poll.busy();
  expect(written(device)).toEqual([IDLE, 0]);
  // Requests within every interval keep the hold.
  for (let i = 0; i < 3; i++) {
    await sleep(IDLE_RELEASE_MS / 2);
    poll.busy();
  }
  expect(written(device)).toEqual([IDLE, 0]);
  await sleep(IDLE_RELEASE_MS * 3);
  expect(written(device)).toEqual([IDLE, 0, IDLE]);
  poll.busy();
  expect(written(device)).toEqual([IDLE, 0, IDLE, 0]);
  expect(poll.stats()).toMatchObject({ busy_poll_holds: 2 });
  poll.close();
  expect(written(device)).toEqual([IDLE, 0, IDLE, 0, IDLE]);
});

test("auto spins where the device cannot be written; qos asked for there is off", () => {
  const missing = join(mkdtempSync(join(tmpdir(), "busy-poll-")), "no", "such", "device");
  const auto = new BusyPoll({ setting: "auto", spinMicros: 50, device: missing });
  expect(auto.mode).toBe("spin");
  expect(auto.spinBudget()).toBe(0.05);
  const errors: string[] = [];
  const log = { info: () => {}, error: (message: string) => errors.push(message) };
  const qos = new BusyPoll({ setting: "qos", spinMicros: 50, device: missing }, log);
  expect(qos.mode).toBe("off");
  expect(errors.join()).toMatch(/not writable \(ENOENT\); off/);
  expect(new BusyPoll({ setting: "spin", spinMicros: 0 }).mode).toBe("off");
  expect(new BusyPoll({ setting: "off", spinMicros: 50 }).spinBudget()).toBe(0);
});

test("spin: two empty spins in a row rest it; a request soon after the loop's last sleep wakes it", async () => {
  const poll = new BusyPoll({ setting: "spin", spinMicros: 50 });
  poll.busy();
  expect(poll.spinBudget()).toBe(0.05);
  poll.hit();
  poll.missed(performance.now());
  expect(poll.spinBudget()).toBe(0.05);
  poll.missed(performance.now());
  expect(poll.spinBudget()).toBe(0);
  // A request long after the loop went to sleep: still resting (a trickle costs no CPU).
  await sleep(5);
  poll.busy();
  expect(poll.spinBudget()).toBe(0);
  // One within four spin lengths of its next sleep: spinning again.
  poll.idle();
  poll.busy();
  expect(poll.spinBudget()).toBe(0.05);
  expect(poll.stats()).toEqual({ busy_poll_holds: 0, busy_poll_spin_hits: 1, busy_poll_spin_misses: 2 });
});
