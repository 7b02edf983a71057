/**
 * `WorkspaceFs` (the original's name): the filesystem of the workspace stub
 * a shell Worker reaches through `env.HOST` — the client filesystem plus
 * `lstatOrNull`. `WorkspaceFsAdapter` needs only the smaller
 * `WorkspaceFsLike`, so any `WorkspaceFs` can be handed to it.
 */
import type { Stat } from "@cloudflare/dofs";
import type { WorkspaceClientFilesystem } from "../../../contracts/fs-client.js";

export interface WorkspaceFs extends WorkspaceClientFilesystem {
  /** `lstat`, or null when the path does not exist. */
  lstatOrNull(path: string): Promise<Stat | null>;
}
