/**
 * Bringing computerd up to a WorkspaceRPC session, stage by stage: start (or
 * adopt) the container, set up egress, probe `/health` with backoff (restart
 * once if it never answers), check that `/api` refuses strangers, ask
 * computerd to dial back (`POST /connect`), and wait for its socket. Every
 * failure names its stage, so "container didn't boot" and "container booted
 * but can't reach us" read differently.
 */
import { withTimeout } from "@cloudflare/computer-rpc";
import { WorkspaceTransportError } from "../../../runtime/errors.js";
import { safeErrorMessage } from "../../../runtime/transport.js";
import type { ContainerExit, ContainerLaunch, ContainerStart, WorkspaceContainer } from "./types.js";

/** Per-probe timeout, and the backoff between probes (doubling). */
export const PROBE_TIMEOUT_MS = 2000;
export const PROBE_BACKOFF_MS = { initial: 250, max: 2000 } as const;

export type ConnectStage = "start" | "egress" | "health" | "restart" | "auth" | "connect" | "upgrade";

export interface ConnectPlan {
  backendId: string;
  container: WorkspaceContainer;
  launch: ContainerLaunch;
  port: number;
  connectTimeoutMs: number;
  restartAttempts: number;
  /** Routes the container's outbound traffic (dial-back host, gateway) before computerd needs it. */
  egress(container: WorkspaceContainer): Promise<void>;
  /** Arms the slot computerd's socket will arrive in; must happen before `POST /connect`. */
  arm(): { socket: Promise<WebSocket>; disarm(reason: Error): void };
  /** The `base` computerd dials back to, e.g. `http://computer.internal`. */
  dialBase: string;
  secret: string;
  /** The `/health` probe: per-probe timeout and the doubling backoff between probes (defaults above). */
  probe?: { timeoutMs: number; initialDelayMs: number; maxDelayMs: number };
  sleep?(ms: number): Promise<void>;
  now?(): number;
}

export interface Connected {
  socket: WebSocket;
  runtimeId: string;
  start: ContainerStart;
}

export class ConnectError extends WorkspaceTransportError {
  readonly stage: ConnectStage;

  constructor(message: string, stage: ConnectStage, options: { backend?: string; cause?: unknown }) {
    super(message, options);
    this.stage = stage;
  }
}

export async function connectContainer(plan: ConnectPlan): Promise<Connected> {
  const now = plan.now ?? Date.now;
  const sleep = plan.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + plan.connectTimeoutMs;
  const attempts = plan.restartAttempts + 1;
  let restarts = 0;
  let priorExit: ContainerExit | undefined;
  let lastError: unknown;
  const fail = (stage: ConnectStage, attempt: number, cause: unknown): ConnectError =>
    new ConnectError(
      `${plan.backendId} connect failed at stage=${stage} port=${plan.port} attempt=${attempt}/${attempts} ` +
        `restarts=${restarts} timeoutMs=${plan.connectTimeoutMs}` +
        (priorExit ? ` priorExit=${describeExit(priorExit)}` : "") +
        ` lastError=${safeErrorMessage(cause)}`,
      stage,
      { backend: plan.backendId, cause },
    );

  let start: ContainerStart;
  try {
    priorExit = await plan.container.exitInfo();
    start = await plan.container.start(plan.launch);
  } catch (error) {
    throw fail("start", 1, error);
  }
  try {
    await plan.egress(plan.container);
  } catch (error) {
    throw fail("egress", 1, error);
  }

  for (let attempt = 1; ; attempt++) {
    const budget = Math.max(250, Math.floor((deadline - now()) / (attempts - attempt + 1)));
    const healthy = await probeHealth(plan, now() + budget, sleep, now).catch((error: unknown) => {
      lastError = error;
      return false;
    });
    if (healthy) break;
    if (attempt >= attempts) {
      priorExit = (await plan.container.exitInfo().catch(() => undefined)) ?? priorExit;
      throw fail("health", attempt, lastError ?? new Error("no answer from /health"));
    }
    try {
      start = await plan.container.restart(plan.launch);
      restarts++;
    } catch (error) {
      throw fail("restart", attempt, error);
    }
  }

  // A computerd that serves /api to anyone would hand the workspace to every process in the container.
  try {
    const response = await plan.container.fetchPort(plan.port, new Request(`http://container/api`));
    await response.body?.cancel();
    if (response.status !== 401) {
      throw new Error(`unauthenticated GET /api answered ${response.status}, expected 401`);
    }
  } catch (error) {
    if (error instanceof Error && /expected 401/.test(error.message)) throw fail("auth", 1, error);
    // A network error here is not proof of an open door; the bearer is checked again on the dial-back.
  }

  const slot = plan.arm();
  try {
    const response = await plan.container.fetchPort(
      plan.port,
      new Request("http://container/connect", {
        method: "POST",
        headers: { authorization: `Bearer ${plan.secret}`, "content-type": "application/json" },
        body: JSON.stringify({
          base: plan.dialBase,
          health: "/health",
          api: "/api",
          healthTimeoutMs: Math.max(1000, deadline - now()),
        }),
      }),
    );
    const text = await response.text();
    if (!response.ok) throw new Error(`POST /connect answered ${response.status}: ${text.slice(0, 200)}`);
  } catch (error) {
    const failure = fail("connect", 1, error);
    slot.disarm(failure);
    throw failure;
  }
  let socket: WebSocket;
  try {
    const waitMs = Math.max(1000, deadline - now());
    socket = await withTimeout(slot.socket, waitMs, `computerd did not dial back within ${waitMs} ms`);
  } catch (error) {
    const failure = fail("upgrade", 1, error);
    slot.disarm(failure);
    throw failure;
  }
  return { socket, runtimeId: start.runtimeId, start };
}

async function probeHealth(
  plan: ConnectPlan,
  until: number,
  sleep: (ms: number) => Promise<void>,
  now: () => number,
): Promise<boolean> {
  const probe = plan.probe ?? {
    timeoutMs: PROBE_TIMEOUT_MS,
    initialDelayMs: PROBE_BACKOFF_MS.initial,
    maxDelayMs: PROBE_BACKOFF_MS.max,
  };
  let backoff: number = probe.initialDelayMs;
  let last: unknown;
  while (now() < until) {
    try {
      const probeMs = Math.min(probe.timeoutMs, Math.max(1, until - now()));
      const response = await withTimeout(
        plan.container.fetchPort(plan.port, new Request("http://container/health", { method: "HEAD" })),
        probeMs,
        `health probe timed out within ${probeMs} ms`,
      );
      await response.body?.cancel();
      if (response.ok) return true;
      last = new Error(`/health answered ${response.status}`);
    } catch (error) {
      last = error;
      if (/container exited/i.test(String((error as Error)?.message))) break;
    }
    await sleep(Math.min(backoff, Math.max(0, until - now())));
    backoff = Math.min(probe.maxDelayMs, backoff * 2);
  }
  throw last ?? new Error("health probe timed out");
}

function describeExit(exit: ContainerExit): string {
  const code = exit.exitCode === null ? (exit.signal ?? "unknown") : String(exit.exitCode);
  return exit.message ? `${code}(${exit.message})` : code;
}
