/**
 * JSON-plain values: what `input` and a module's result may be. Plain objects
 * and arrays, strings, booleans, null and finite numbers; no cycles, no
 * BigInt, no functions or class instances. Shared by the host (input) and the
 * runner (result); the host parses the runner's JSON text itself, so a module
 * that tampers with the runner cannot hand it anything else.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Why `value` is not JSON-plain, or undefined when it is. `where` names the value in messages. */
export function jsonPlainProblem(value: unknown, where: string): string | undefined {
  const seen = new Set<object>();
  const visit = (node: unknown, path: string): string | undefined => {
    switch (typeof node) {
      case "string":
      case "boolean":
        return undefined;
      case "number":
        return Number.isFinite(node) ? undefined : `${path} is ${String(node)}, which JSON cannot hold`;
      case "bigint":
        return `${path} is a BigInt, which JSON cannot hold`;
      case "undefined":
        return `${path} is undefined`;
      case "function":
      case "symbol":
        return `${path} is a ${typeof node}`;
      default:
        break;
    }
    if (node === null) return undefined;
    const object = node as object;
    if (seen.has(object)) return `${path} is a cycle`;
    seen.add(object);
    try {
      if (Array.isArray(object)) {
        for (let index = 0; index < object.length; index++) {
          if (!(index in object)) return `${path}[${index}] is a hole`;
          const problem = visit(object[index], `${path}[${index}]`);
          if (problem) return problem;
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(object);
      if (proto !== Object.prototype && proto !== null) {
        const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? "unknown";
        return `${path} is a ${name}, not a plain object`;
      }
      for (const [key, child] of Object.entries(object)) {
        // JSON.stringify drops undefined properties; so do we.
        if (child === undefined) continue;
        const problem = visit(child, `${path}.${key}`);
        if (problem) return problem;
      }
      return undefined;
    } finally {
      seen.delete(object);
    }
  };
  return visit(value, where);
}
