/**
 * The task the demo model runs on each runtime, through the real tools:
 * write a file of numbers, sort it, then count with a one-second `sleep`
 * per tick so the output arrives live (the run's task text may say
 * `ticks: N`, default 3). The backend is never named: each run's `exec`
 * tool has only its own runtime.
 */
import { DEMO_LABEL, type DemoStep, type DemoTurn } from "@cloudflare/computer/tools";

const numbers = Array.from({ length: 200 }, (_, i) => ((i + 1) * 7919) % 1000).join("\n");

function stdoutOf(result: unknown): string {
  const output = (result ?? {}) as { stdout?: string; error?: string };
  return typeof output.error === "string" ? `error: ${output.error}` : (output.stdout ?? "").trim();
}

export function compareDemoScript({ text, results }: DemoTurn): DemoStep[] {
  const ticks = Math.min(60, Math.max(1, Number(/ticks:\s*(\d+)/.exec(text)?.[1] ?? 3)));
  const [top = "?"] = stdoutOf(results[1]).split("\n").slice(-2);
  return [
    {
      say: `(${DEMO_LABEL}) Writing 200 numbers, sorting them, then ${ticks} tick(s).\n`,
      calls: [{ tool: "write", input: { path: "/workspace/task/numbers.txt", content: `${numbers}\n` } }],
    },
    {
      calls: [{ tool: "exec", input: { command: "sort -n task/numbers.txt | tail -n 3 && wc -l < task/numbers.txt" } }],
    },
    {
      calls: [
        { tool: "exec", input: { command: `for i in $(seq 1 ${ticks}); do echo "tick $i"; sleep 1; done; echo done` } },
      ],
    },
    { say: `The largest number is ${top}; all ${ticks} tick(s) done.` },
  ];
}
