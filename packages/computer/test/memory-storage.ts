/** A `LaunchStorage` in memory: what a Durable Object's KV storage is to the container's launch records. */
import type { LaunchStorage } from "../src/backends/container/host/launch.js";

export class MemoryStorage implements LaunchStorage {
  readonly map = new Map<string, unknown>();

  async get<T>(key: string): Promise<T | undefined> {
    return this.map.get(key) as T | undefined;
  }

  async put<T>(key: string, value: T): Promise<void> {
    this.map.set(key, value);
  }

  async delete(key: string): Promise<boolean> {
    return this.map.delete(key);
  }
}
