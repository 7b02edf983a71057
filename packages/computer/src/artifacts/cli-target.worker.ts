/**
 * `ArtifactsCLITarget`: an Artifacts CLI as a Workers RPC target, what
 * `WorkspaceServiceProxy.getArtifacts()` hands a Dynamic Worker (a function
 * cannot cross RPC as a method, an RpcTarget can). Exported from
 * `@cloudflare/computer` as the original does; workerd only, unlike the rest
 * of `./artifacts`.
 */
import { RpcTarget } from "cloudflare:workers";
import type { ArtifactsCliRequest, GitCliResult } from "../contracts/capabilities.js";

export class ArtifactsCLITarget extends RpcTarget {
  readonly #cli: (input: ArtifactsCliRequest) => Promise<GitCliResult>;

  constructor(cli: (input: ArtifactsCliRequest) => Promise<GitCliResult>) {
    super();
    this.#cli = cli;
  }

  cli(input: ArtifactsCliRequest): Promise<GitCliResult> {
    return this.#cli(input);
  }
}
