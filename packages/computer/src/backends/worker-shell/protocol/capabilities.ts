/**
 * The capability shapes the sandbox's host commands (`git`, `assets`,
 * `artifacts`) send and receive. They are defined once, next to the
 * Workspace capabilities they mirror; the sandbox takes them from here so it
 * imports nothing but its protocol. Types only: nothing of the host is bundled.
 */
export type {
  GitCliRequest,
  GitCliResult,
  PublishedAsset,
  PublishOptions,
} from "../../../contracts/capabilities.js";
