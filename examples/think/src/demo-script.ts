/**
 * What the demo model does every turn: save the user's message to a file
 * with the `write` tool, look at it with `ls`/`cat` on worker-shell, count
 * the lines of every saved message on container-shell (which writes its
 * answer into the workspace too), then sum up. Real tools, real backends.
 */
import { DEMO_LABEL, type DemoStep, type DemoTurn } from "@cloudflare/computer/tools";

interface ExecOutput {
  stdout?: string;
  exitCode?: number | null;
  error?: string;
}

function stdoutOf(result: unknown): string {
  const output = (result ?? {}) as ExecOutput;
  if (typeof output.error === "string") return `error: ${output.error}`;
  return (output.stdout ?? "").trim();
}

export function thinkDemoScript({ text, turn, results }: DemoTurn): DemoStep[] {
  const file = `chat/turn-${turn}.md`;
  const [uname = "?", lines = "?"] = stdoutOf(results[2]).split("\n");
  return [
    {
      say: `(${DEMO_LABEL}) Saving your message to ${file}, then reading it from both runtimes.\n`,
      calls: [{ tool: "write", input: { path: `/workspace/${file}`, content: `# Turn ${turn}\n\n${text}\n` } }],
    },
    { calls: [{ tool: "exec", input: { backend: "worker-shell", command: `ls chat && cat ${file}` } }] },
    {
      calls: [
        {
          tool: "exec",
          input: { backend: "container-shell", command: "uname -s && cat chat/*.md | wc -l | tee chat/lines.txt" },
        },
      ],
    },
    {
      say:
        `worker-shell listed ${
          stdoutOf(results[1])
            .split("\n")
            .filter((l) => l.startsWith("turn-")).length
        } ` +
        `saved message(s); container-shell (${uname}) counted ${lines.trim()} lines and wrote chat/lines.txt. ` +
        `This is turn ${turn} of our conversation.`,
    },
  ];
}
