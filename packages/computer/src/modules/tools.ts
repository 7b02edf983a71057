/**
 * `@cloudflare/computer/modules/tools`: `createToolBindings()`, the `ws:tools`
 * host module: the agent's own tools, callable from code in the isolate. Each
 * tool is one export, named by its tool name made into an identifier; it
 * takes one object of the tool's arguments and answers `{ text, isError, … }`.
 * A tool not marked `readOnly` is refused on a read-only backend before it
 * runs. `exec` is left out by default: code calling the agent's exec tool
 * would be a second, unconfined way to run commands.
 */
import type { WorkspaceRuntimeValue } from "../runtime/types.js";
import type { WorkspaceModuleCallContext, WorkspaceModuleFactory, WorkspaceModuleFunctions } from "./types.js";

/** One tool, as code calls it. */
export interface ToolBinding {
  readonly name: string;
  /** Safe on a read-only backend. */
  readonly readOnly?: boolean;
  /** `input` is the one object code passed (`{}` for none); check it as strictly as a model's call. */
  call(
    input: Record<string, WorkspaceRuntimeValue>,
    context: WorkspaceModuleCallContext,
  ): Promise<ToolBindingResult> | ToolBindingResult;
}

/** What a tool call gives back to code. */
export interface ToolBindingResult {
  /** The text a model would read. */
  readonly text: string;
  /** The tool reported a failure (a tool that throws rejects the call instead). */
  readonly isError: boolean;
  readonly details?: WorkspaceRuntimeValue;
  readonly structuredContent?: WorkspaceRuntimeValue;
}

/** The tools, or a function giving them, read again each time a backend connects. */
export type ToolBindings = Iterable<ToolBinding> | (() => Iterable<ToolBinding>);

export interface ToolBindingsOptions {
  /** Tool names never exported. Default `["exec"]`; `[]` exports every tool. */
  readonly exclude?: readonly string[];
  /** Replaces the generated description. */
  readonly description?: string;
}

/** Names an export may not take as they are: the module object, a thenable's hook, the prototype slot. */
const RESERVED = new Set(["default", "then", "__proto__"]);

/** `list-files` → `list_files`; characters an identifier cannot hold are dropped, a leading digit gets `_`. */
export function toolExportName(toolName: string): string {
  let name = toolName.replace(/[-.\s]/g, "_").replace(/[^A-Za-z0-9_$]/g, "");
  if (name === "") return "_";
  if (/^[0-9]/.test(name)) name = `_${name}`;
  return RESERVED.has(name) ? `${name}_` : name;
}

function singleObject(tool: string, args: readonly WorkspaceRuntimeValue[]): Record<string, WorkspaceRuntimeValue> {
  const [input = {}, ...rest] = args;
  if (rest.length > 0 || input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new TypeError(`${tool}(arguments) takes one object of the tool's arguments.`);
  }
  return input;
}

function listed(bindings: ToolBindings): Iterable<ToolBinding> {
  return typeof bindings === "function" ? bindings() : bindings;
}

function describe(bindings: ToolBindings, exclude: ReadonlySet<string>): string {
  const intro =
    "The agent's own tools, callable from code. Each is exported under its name made into an identifier (`-`, `.` and spaces become `_`, other characters are dropped: `list-files` is `list_files`), takes one object of the tool's arguments and returns `{ text, details, isError }`.";
  let names: string[] | undefined;
  // Only a list or a function is read here; a one-shot iterable is left for the connect that needs it.
  if (typeof bindings === "function" || Array.isArray(bindings)) {
    try {
      names = [...listed(bindings)].filter((tool) => !exclude.has(tool.name)).map((tool) => toolExportName(tool.name));
    } catch {
      names = undefined;
    }
  }
  const exported = names && names.length > 0 ? ` It exports ${names.map((name) => `\`${name}\``).join(", ")}.` : "";
  const missing = [...exclude].map((name) => `\`${name}\``);
  const absent =
    missing.length === 0
      ? ""
      : missing.length === 1
        ? ` There is no ${missing[0]} export: importing it fails.`
        : ` There are no ${missing.join(" or ")} exports: importing them fails.`;
  return `${intro}${exported}${absent}`;
}

export function createToolBindings(bindings: ToolBindings, options: ToolBindingsOptions = {}): WorkspaceModuleFactory {
  const exclude = new Set(options.exclude ?? ["exec"]);
  const factory = (): WorkspaceModuleFunctions => {
    const functions: Record<string, WorkspaceModuleFunctions[string]> = {};
    for (const binding of listed(bindings)) {
      if (exclude.has(binding.name)) continue;
      const name = toolExportName(binding.name);
      if (Object.hasOwn(functions, name)) throw new Error(`Two tools are exported as ${JSON.stringify(name)}.`);
      functions[name] = async (args, context) => {
        if (binding.readOnly !== true && context.access !== "read-write") {
          throw new Error(`ws:tools ${binding.name} requires Workspace write access.`);
        }
        context.signal.throwIfAborted();
        return binding.call(singleObject(binding.name, args), context);
      };
    }
    return functions;
  };
  // A getter: a function form of `bindings` may list different tools by the time a model reads this.
  return Object.defineProperty(factory, "description", {
    enumerable: true,
    get: () => options.description ?? describe(bindings, exclude),
  }) as WorkspaceModuleFactory;
}
