import { describe, expect, it } from "vitest";
import { SyncQueue } from "./queue.js";

describe("SyncQueue (`docs/sync.md`)", () => {
  it("runs jobs one after another, in call order", async () => {
    const queue = new SyncQueue();
    const events: string[] = [];
    // Each job takes a fixed time on purpose: "a" is the slowest, so the order proves the queue, not the timers.
    const job = (name: string, ms: number) => async () => {
      events.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([queue.run(job("a", 30)), queue.run(job("b", 1)), queue.run(job("c", 10))]);
    expect(results).toEqual(["a", "b", "c"]);
    expect(events).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"]);
  });

  it("a rejected job fails its own caller only; the next job still runs", async () => {
    const queue = new SyncQueue();
    const first = queue.run(async () => {
      throw new Error("push failed");
    });
    const second = queue.run(async () => "pushed");
    await expect(first).rejects.toThrow("push failed");
    await expect(second).resolves.toBe("pushed");
  });
});
