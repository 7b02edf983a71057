/**
 * Stands in for the undici just-bash bundles for its DNS-pinning fetch. The
 * worker-shell gives curl the Worker's own `fetch` (fetch.ts), so undici is
 * never called; stubbing it keeps ~500 KB out of the Dynamic Worker.
 */
function unavailable(): never {
  throw new Error("undici is not available in the worker-shell; curl uses the Worker's fetch");
}

export class Agent {
  constructor() {
    unavailable();
  }
}

export function fetch(): never {
  return unavailable();
}

export default { Agent, fetch };
