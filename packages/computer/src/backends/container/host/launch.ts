/**
 * The durable half of a container's lifecycle, shared by both container
 * implementations: the client secret, the runtime id and the launch record,
 * kept in the Durable Object's storage so a new DO incarnation can adopt the
 * container that is still running — or know that it must replace it.
 */
import type { ContainerLaunch, EgressMode } from "./types.js";

export const CONTAINER_STORAGE_KEYS = {
  runtimeIdentity: "computer:container-runtime-identity",
  clientSecret: "computer:container-client-secret",
  launchRecord: "computer:container-launch-record",
} as const;

/** The secret is passed in the environment but never part of the digest: rotating it is not a new launch. */
export const SECRET_ENV = "RPC_CLIENT_SECRET";

/** The slice of `DurableObjectStorage` used here. */
export interface LaunchStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export interface LaunchRecord {
  enableInternet: boolean;
  /** Absent in records written before egress modes were recorded: read as `egressOf(enableInternet)`. */
  egress?: EgressMode;
  /** SHA-256 (hex) of the sorted environment, the secret excluded. */
  envDigest: string;
  runtimeId: string;
}

export async function envDigest(env: Record<string, string>): Promise<string> {
  const entries = Object.entries(env)
    .filter(([key]) => key !== SECRET_ENV)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const bytes = new TextEncoder().encode(JSON.stringify(entries));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The client secret: 16 random bytes as hex, made once per Durable Object. */
export async function clientSecret(storage: LaunchStorage): Promise<string> {
  const stored = await storage.get<string>(CONTAINER_STORAGE_KEYS.clientSecret);
  if (stored) return stored;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const secret = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  await storage.put(CONTAINER_STORAGE_KEYS.clientSecret, secret);
  return secret;
}

/** How a start went, decided from the record and what is running. */
export type LaunchDecision = { action: "adopt"; runtimeId: string } | { action: "launch" } | { action: "relaunch" };

/** The egress mode of a launch or record, defaulted from `enableInternet` where it is not stated. */
export function egressOf(launch: { enableInternet: boolean; egress?: EgressMode }): EgressMode {
  return launch.egress ?? (launch.enableInternet ? "direct" : "none");
}

export async function decideLaunch(
  storage: LaunchStorage,
  running: boolean,
  launch: ContainerLaunch,
): Promise<LaunchDecision> {
  if (!running) return { action: "launch" };
  const record = await storage.get<LaunchRecord>(CONTAINER_STORAGE_KEYS.launchRecord);
  const runtimeId = await storage.get<string>(CONTAINER_STORAGE_KEYS.runtimeIdentity);
  if (
    record !== undefined &&
    runtimeId !== undefined &&
    record.runtimeId === runtimeId &&
    record.enableInternet === launch.enableInternet &&
    egressOf(record) === egressOf(launch) &&
    record.envDigest === (await envDigest(launch.env))
  ) {
    return { action: "adopt", runtimeId };
  }
  return { action: "relaunch" };
}

/** Records a fresh launch and returns its new runtime id. */
export async function recordLaunch(storage: LaunchStorage, launch: ContainerLaunch): Promise<string> {
  const runtimeId = crypto.randomUUID();
  const record: LaunchRecord = {
    enableInternet: launch.enableInternet,
    egress: egressOf(launch),
    envDigest: await envDigest(launch.env),
    runtimeId,
  };
  await storage.put(CONTAINER_STORAGE_KEYS.launchRecord, record);
  await storage.put(CONTAINER_STORAGE_KEYS.runtimeIdentity, runtimeId);
  return runtimeId;
}

/** On exit: forget the runtime id, but only if it is still the one that exited (a stale monitor must not). */
export async function recordExit(storage: LaunchStorage, runtimeId: string): Promise<void> {
  const current = await storage.get<string>(CONTAINER_STORAGE_KEYS.runtimeIdentity);
  if (current === runtimeId) await storage.delete(CONTAINER_STORAGE_KEYS.runtimeIdentity);
}
