/**
 * The comparison API end to end: the Worker under Miniflare (SQLite Durable
 * Objects, the Worker Loader for worker-shell), container-shell on a real
 * computerd under a local container host started here, the demo model. Both
 * sides of a run produce events and finish; a stop ends both while their
 * command still runs. Needs root and the packages built (dist/).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";
import type { RunEvent, RunState } from "../src/events.js";
import { readEvents } from "./events.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let host: RunningHost;
beforeAll(async () => {
  host = await startHost({ port: 0, log: () => {} });
});
afterAll(async () => {
  await host?.close();
});

const { request } = useExampleWorker(example, () => ({
  durableObjects: { RUNNER: { className: "Runner", useSQLite: true } },
  workerLoaders: { LOADER: {} },
  bindings: { COMPUTER_CONTAINER_HOST: host.url },
}));

interface Created {
  id: string;
  task: string;
  runtimes: string[];
  events: Record<string, string>;
}

async function createRun(body: unknown): Promise<Created> {
  const response = await request("/api/runs", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Created;
}

type Of<T extends RunEvent["type"]> = Extract<RunEvent, { type: T }>;

describe("examples/think-compare-runtimes", () => {
  it("serves the page", async () => {
    const page = await request("/");
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain('data-runtime="container-shell"');
    expect(html).toContain('data-runtime="worker-shell"');
    expect(html).toContain("new EventSource(url)");
    // The page's script at least parses (no build step checks it otherwise).
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
    expect(script).toContain("/api/runs");
    expect(() => new Function(script)).not.toThrow();
  });

  it("runs the same task on both runtimes; both stream events and finish", async () => {
    const run = await createRun({ task: "ticks: 2" });
    expect(run.runtimes).toEqual(["container-shell", "worker-shell"]);
    const [container, shell] = await Promise.all(
      run.runtimes.map(async (runtime) => (await readEvents(await request(run.events[runtime] as string))).events),
    );
    for (const [runtime, events] of [
      ["container-shell", container],
      ["worker-shell", shell],
    ] as const) {
      expect(events?.[0]).toMatchObject({ type: "start", runtime, task: "ticks: 2", demo: true });
      const finish = events?.at(-1) as Of<"finish">;
      // On failure, every event of the side: what it did before it finished.
      expect(finish, JSON.stringify(events)).toMatchObject({ type: "finish", status: "completed" });
      expect(finish.durationMs).toBeGreaterThan(0);
      const calls = events?.filter((e): e is Of<"tool-call"> => e.type === "tool-call") ?? [];
      expect(calls.map((c) => c.tool)).toEqual(["write", "exec", "exec"]);
      const results = events?.filter((e): e is Of<"tool-result"> => e.type === "tool-result" && !e.preliminary) ?? [];
      const [, sorted, ticks] = results.map((r) => r.output as { backend: string; stdout: string; exitCode: number });
      // The backend is the run's own runtime: each side's exec tool has only that one.
      expect(sorted).toMatchObject({ backend: runtime, exitCode: 0, stdout: "981\n984\n987\n200\n" });
      expect(ticks).toMatchObject({ backend: runtime, exitCode: 0, stdout: "tick 1\ntick 2\ndone\n" });
      const text = events
        ?.filter((e): e is Of<"text"> => e.type === "text")
        .map((e) => e.delta)
        .join("");
      expect(text).toContain("The largest number is 987; all 2 tick(s) done.");
      // Events are timed from the run's start, in order.
      const times = events?.map((e) => e.t) ?? [];
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }

    const status = await request(`/api/runs/${run.id}`);
    const { runs } = (await status.json()) as { runs: Record<string, RunState> };
    expect(runs["container-shell"]).toMatchObject({ status: "completed", runId: run.id });
    expect(runs["worker-shell"]).toMatchObject({ status: "completed", runId: run.id });

    // A stream opened after the run replays it, and Last-Event-ID resumes after an event.
    const again = await readEvents(await request(run.events["worker-shell"] as string));
    expect(again.events).toEqual(shell);
    const resumed = await readEvents(
      await request(run.events["worker-shell"] as string, { headers: { "last-event-id": String(again.ids.at(-2)) } }),
    );
    expect(resumed.events).toEqual([shell?.at(-1)]);
  });

  it("stops both sides while their command runs", async () => {
    const run = await createRun({ task: "ticks: 30" });
    // Wait until each side's ticking command is running, then stop the run.
    const started = run.runtimes.map(
      (runtime) =>
        new Promise<void>((resolve) => {
          void request(run.events[runtime] as string).then((response) =>
            readEvents(response, (event) => {
              if (event.type === "tool-call" && String((event.input as { command?: string }).command).includes("tick"))
                resolve();
            }),
          );
        }),
    );
    await Promise.all(started);
    const stop = await request(`/api/runs/${run.id}/stop`, { method: "POST" });
    expect(stop.status).toBe(200);
    for (const runtime of run.runtimes) {
      const { events } = await readEvents(await request(run.events[runtime] as string));
      const finish = events.at(-1) as Of<"finish">;
      expect(finish).toMatchObject({ type: "finish", status: "stopped" });
      // Far fewer than the 30 ticks the command would have printed.
      expect(finish.durationMs).toBeLessThan(30_000);
    }
    const { runs } = (await (await request(`/api/runs/${run.id}`)).json()) as { runs: Record<string, RunState> };
    expect(runs["container-shell"]?.status).toBe("stopped");
    expect(runs["worker-shell"]?.status).toBe("stopped");
  });

  it("runs one runtime when asked, and refuses bad requests", async () => {
    const run = await createRun({ runtimes: ["worker-shell"] });
    expect(run.task).toMatch(/count to three/);
    const { events } = await readEvents(await request(run.events["worker-shell"] as string));
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "completed" });
    const { runs } = (await (await request(`/api/runs/${run.id}`)).json()) as { runs: Record<string, RunState> };
    expect(Object.keys(runs)).toEqual(["worker-shell"]);

    const bad = (body: string) => request("/api/runs", { method: "POST", body });
    expect((await bad("{")).status).toBe(400);
    expect((await bad(JSON.stringify({ task: 7 }))).status).toBe(400);
    expect((await bad(JSON.stringify({ runtimes: ["vm"] }))).status).toBe(400);
    expect((await bad(JSON.stringify({ runtimes: [] }))).status).toBe(400);
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await request(`/api/runs/${unknown}`)).status).toBe(404);
    expect((await request(`/api/runs/${unknown}/stop`, { method: "POST" })).status).toBe(404);
    expect((await request(`/api/runs/${unknown}/events/worker-shell`)).status).toBe(404);
    expect((await request(`/api/runs/${run.id}/events/vm`)).status).toBe(404);
    expect((await request("/api/runs")).status).toBe(405);
  });
});
