/**
 * What the demo model does with a prompt, through the real tools: write a
 * Markdown document built around the prompt, render it to PDF in the
 * container with pandoc and groff, publish the PDF for 24 hours, and sum up.
 */
import { DEMO_LABEL, type DemoStep, type DemoTurn } from "@cloudflare/computer/tools";

export const DAY_MS = 24 * 60 * 60 * 1000;

/** `Brewing green tea!` → `brewing-green-tea`. */
export function slugOf(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return slug || "document";
}

function markdown(topic: string): string {
  return `---
title: "${topic.replace(/["\\]/g, "")}"
---

# Overview

This short tutorial is about *${topic}*. It was written by the ${DEMO_LABEL},
rendered by pandoc and groff in a container, and shared for 24 hours.

# Steps

1. Read the overview.
2. Try the example below.
3. Change one thing and try again.

| Step | Time |
|------|------|
| Read | 2 min |
| Try  | 5 min |

\`\`\`sh
echo "practice makes perfect"
\`\`\`

# Summary

Small steps, repeated, are how ${topic} gets easier.
`;
}

export function tutorialDemoScript({ text, results }: DemoTurn): DemoStep[] {
  const topic = text.trim() || "an untitled topic";
  const slug = slugOf(topic);
  const render = (results[1] ?? {}) as { stdout?: string };
  const size = /(\d+) bytes/.exec(render.stdout ?? "")?.[1] ?? "?";
  const published = (results[2] ?? {}) as { ok?: boolean };
  return [
    {
      say: `(${DEMO_LABEL}) Writing a short tutorial about "${topic}".\n`,
      calls: [{ tool: "write", input: { path: `/workspace/tutorial/${slug}.md`, content: markdown(topic) } }],
    },
    {
      calls: [
        {
          tool: "exec",
          input: {
            cwd: "/workspace/tutorial",
            command:
              `pandoc -s -t ms ${slug}.md -o ${slug}.ms && groff -ms -t -e -Tpdf -Kutf8 ${slug}.ms > ${slug}.pdf ` +
              `&& echo "$(wc -c < ${slug}.pdf) bytes"`,
          },
        },
      ],
    },
    { calls: [{ tool: "publish", input: { path: `/workspace/tutorial/${slug}.pdf`, expiresAfterMs: DAY_MS } }] },
    {
      say:
        `Wrote tutorial/${slug}.md, rendered it to a ${size}-byte PDF with pandoc and groff in the container` +
        (published.ok ? ", and published it for 24 hours." : ", but publishing it failed."),
    },
  ];
}
