/**
 * Which row of issue 19 a newly found compat gap belongs to, used only by
 * `compat-surface.mjs --seed` to fill `test/compat/gaps.json`; rows already
 * in gaps.json are kept. "contract" is the opening paragraph (every
 * subpath of the published package), for names no numbered row names.
 */
const bySubpath = {
  "./git": 11,
  "./artifacts": 14,
  "./assets": 9,
  "./tools": 12,
  "./observe/cloudflare": 8,
  "./backends/container": 1,
  "./backends/worker-javascript": 10,
  "./backends/worker-shell": 6,
};

const rootRules = [
  [/Observer|Span|Attribute/, 8],
  [/Assets|Share/, 9],
  [/Git/, 11],
  [/Artifact/, 14],
  [/^(sh|shellQuote|RawShellValue|ShellValue)$/, 19],
  [/SQLiteWorkspaceProvider|^Database$|MkdirOptions|WriteFile/, 18],
  [/WorkspaceProxy/, 2],
  [/^TestBackend/, 13],
  [/withWorkspace|WithWorkspace/, 4],
  [/Stub|Client|Handle$/, 15],
  [/^(encode|decode)/, 16],
  [/SyncRetry|ApplyResult|SkippedEntry|RetryPending|^Workspace$|WorkspaceOptions/, 7],
  [/ExecEncoding|ExecSyncResult/, 5],
];

export function defaultRow(subpath, name) {
  if (subpath in bySubpath) return bySubpath[subpath];
  if (subpath.startsWith("./shell/")) return "contract";
  for (const [pattern, row] of rootRules) if (pattern.test(name)) return row;
  return 3;
}
