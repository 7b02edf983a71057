/**
 * The commands of the python, sqlite and js-exec groups (`python3`, `python`,
 * `sqlite3`, `js-exec`, `node`): loaded when the host gives the group, they
 * cannot run in a Dynamic Worker, so each says why on stderr and exits with
 * the status the original's answer (protocol/messages.ts).
 */
import type { Command } from "just-bash";
import { SHELL_UNAVAILABLE_GROUPS, unavailableCommandMessage } from "../../protocol/messages.js";
import { hostCommand, result } from "./context.js";

/** One failing command per command of each unavailable group whose commands are in `enabled`. */
export function defineUnavailableCommands(enabled: readonly string[]): Command[] {
  const on = new Set(enabled);
  return Object.entries(SHELL_UNAVAILABLE_GROUPS).flatMap(([group, commands]) =>
    Object.entries(commands as Readonly<Record<string, number>>)
      .filter(([name]) => on.has(name))
      .map(([name, exitCode]) =>
        hostCommand(name, async () => result("", unavailableCommandMessage(name, group), exitCode)),
      ),
  );
}
