/**
 * Preloaded (`NODE_OPTIONS=--require`) into node processes of an egress
 * `http-gateway` container: Node 20 and 22's `fetch` ignores HTTP(S)_PROXY,
 * so this installs a global dispatcher that sends it through the proxy. The
 * dispatcher is a stand-in that loads undici's ProxyAgent on first use, so a
 * node process that never fetches pays nothing for it. Node 24's fetch
 * (undici 7) honors NODE_USE_ENV_PROXY instead, and is left alone.
 */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

type Dispatcher = Record<string | symbol, unknown>;

function install(): void {
  const proxy = process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy;
  if (!proxy || !process.versions.undici?.startsWith("6.")) return;
  const globals = globalThis as unknown as Record<symbol, unknown>;
  if (globals[GLOBAL_DISPATCHER] !== undefined) return;
  let agent: Dispatcher | undefined;
  const real = (): Dispatcher => {
    if (!agent) {
      const { ProxyAgent } = require("undici") as { ProxyAgent: new (uri: string) => Dispatcher };
      agent = new ProxyAgent(proxy);
    }
    return agent;
  };
  globals[GLOBAL_DISPATCHER] = new Proxy(
    {},
    {
      get(_target, key) {
        const dispatcher = real();
        const value = dispatcher[key];
        return typeof value === "function" ? value.bind(dispatcher) : value;
      },
    },
  );
}

install();
