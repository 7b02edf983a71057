/**
 * The tutor: a Durable Object with a Workspace whose agent turns a prompt
 * into a document. Its tools are `createAITools` with `exec` on
 * container-shell (pandoc and groff are in the container) and `publish`,
 * because the workspace has assets: a file shared from R2 behind a
 * presigned URL.
 */
import { DurableObject } from "cloudflare:workers";
import { withWorkspace, workspaceOf } from "@cloudflare/computer";
import { type S3Options, workspaceAssets } from "@cloudflare/computer/assets";
import { CloudflareContainerBackend, withWorkspaceContainer } from "@cloudflare/computer/backends/container";
import { createAITools } from "@cloudflare/computer/tools";
import { generateText, stepCountIs } from "ai";
import { DAY_MS, tutorialDemoScript } from "./demo-script.js";
import { LOCAL_CREDENTIALS } from "./local-r2.js";
import { chooseModel, type ModelEnv, NO_MODEL_NOTE } from "./model.js";

export interface Env extends ModelEnv {
  TUTOR: DurableObjectNamespace<Tutor>;
  /** Where published PDFs are put. */
  ASSETS: R2Bucket;
  /** The R2 bucket's name, for the presigned URLs. */
  ASSETS_BUCKET_NAME: string;
  /** Deployed: S3 credentials for presigning (secrets); see docs/assets.md. */
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  CLOUDFLARE_ACCOUNT_ID?: string;
  R2_ENDPOINT?: string;
  /** Dev and tests: this Worker's own origin + /_r2, served by the local stand-in (src/local-r2.ts). */
  LOCAL_R2_ENDPOINT?: string;
  /** Set by `npm run dev` (and the tests): the local container host's URL. */
  COMPUTER_CONTAINER_HOST?: string;
}

export interface PromptReply {
  summary: string;
  url: string | null;
  model: string;
  demo: boolean;
  note?: string;
}

const SYSTEM = `You write short tutorials as PDF documents. For the user's topic: write a Markdown document
(a title in YAML front matter, a few sections, a numbered list) to /workspace/tutorial/<slug>.md with the write
tool; render it in the container with exec, in /workspace/tutorial:
  pandoc -s -t ms <slug>.md -o <slug>.ms && groff -ms -t -e -Tpdf -Kutf8 <slug>.ms > <slug>.pdf
then publish <slug>.pdf with expiresAfterMs ${DAY_MS} (24 hours). Finish with a two-sentence summary.`;

/** S3 options for presigning: the local stand-in when LOCAL_R2_ENDPOINT is set, else R2 with the env's credentials. */
function s3Options(env: Env): S3Options {
  if (env.LOCAL_R2_ENDPOINT)
    return { bucket: env.ASSETS_BUCKET_NAME, endpoint: env.LOCAL_R2_ENDPOINT, ...LOCAL_CREDENTIALS };
  return { bucket: env.ASSETS_BUCKET_NAME };
}

export class Tutor extends withWorkspace(withWorkspaceContainer(DurableObject<Env>, { binding: "TUTOR" }), (self) => ({
  storage: self.ctx.storage,
  backends: [new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer() })],
  // Credentials come from `env` (R2_ACCESS_KEY_ID, …): createAssets says which one is missing.
  assets: workspaceAssets({ bucket: self.env.ASSETS, s3: s3Options(self.env), env: self.env }),
})) {
  async prompt(prompt: string): Promise<PromptReply> {
    const workspace = workspaceOf(this);
    await workspace.fs.mkdir("/workspace/tutorial", { recursive: true });
    const { model, label, demo } = chooseModel(this.env, tutorialDemoScript);
    const tools = createAITools({
      workspace,
      shell: {
        backends: { "container-shell": { description: "Linux with pandoc and groff; /workspace is mounted" } },
      },
    });
    const result = await generateText({ model, system: SYSTEM, prompt, tools, stopWhen: stepCountIs(12) });
    // The URL of the last successful publish.
    let url: string | null = null;
    for (const step of result.steps) {
      for (const toolResult of step.toolResults) {
        const output = toolResult.output as { ok?: boolean; url?: string };
        if (toolResult.toolName === "publish" && output.ok === true && typeof output.url === "string") url = output.url;
      }
    }
    // Every step's text (result.text is only the last step's).
    const summary = result.steps.map((step) => step.text).join("");
    return { summary, url, model: label, demo, ...(demo ? { note: NO_MODEL_NOTE } : {}) };
  }
}
