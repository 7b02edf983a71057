/**
 * The observer seam: the Workspace wraps a piece of work in `span(name,
 * attributes, run)` so an adapter can record it (Cloudflare's user tracing in
 * ./cloudflare.ts, OpenTelemetry in user code). The default does nothing.
 * Attribute values are scalars so one shape fits every tracing system.
 */

/** A value a span attribute can hold. */
export type WorkspaceAttributeValue = boolean | number | string;

/** The attributes a span starts with; `undefined` ones are dropped, so optional values can be passed as they are. */
export type WorkspaceAttributes = Readonly<Record<string, WorkspaceAttributeValue | undefined>>;

/** What the wrapped work sees of its span: attributes learned while it runs (byte counts, exit codes, …). */
export interface WorkspaceSpan {
  /** `undefined` is ignored. */
  setAttribute(key: string, value: WorkspaceAttributeValue | undefined): void;
}

/**
 * Wraps work in a span. An implementation calls `run` at once and returns its
 * promise's outcome unchanged, errors included: observing must not change
 * what the caller sees.
 */
export interface WorkspaceObserver {
  span<T>(name: string, attributes: WorkspaceAttributes, run: (span: WorkspaceSpan) => Promise<T>): Promise<T>;
}

const noopSpan: WorkspaceSpan = Object.freeze({ setAttribute(): void {} });

/** The observer used when none is configured: runs the work and returns its promise itself. */
export const noopObserver: WorkspaceObserver = Object.freeze({
  span<T>(_name: string, _attributes: WorkspaceAttributes, run: (span: WorkspaceSpan) => Promise<T>): Promise<T> {
    return run(noopSpan);
  },
});
