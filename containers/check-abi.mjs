/**
 * The image's ABI check, run by containers/build.sh as its last step:
 *
 *   node containers/check-abi.mjs <dist>
 *
 * Every native addon in <dist> (node_modules/, native/) must be loadable by
 * the Node in <dist>/node: an addon built on Node's own ABI names it in its
 * entry symbol (`node_register_module_v137`), which must be that Node's
 * `process.versions.modules`; a Node-API addon (`napi_register_module_v1`) fits
 * any. Then each is really loaded by that Node, which also catches a missing
 * shared library. A mismatch fails the build with the file and both ABIs, so
 * no image is made whose computerd would die at its first `require`.
 * On success it writes <dist>/image.json: the Node, its ABI and each addon.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const dist = process.argv[2];
if (!dist) {
  console.error("usage: node containers/check-abi.mjs <dist>");
  process.exit(2);
}
const node = join(dist, "node", "bin", "node");
const [nodeVersion, nodeAbi] = execFileSync(node, ["-p", "process.versions.node + ' ' + process.versions.modules"], {
  encoding: "utf8",
})
  .trim()
  .split(" ");

/** Every `*.node` file under `dir`, except the Node directory's own (npm ships none we load). */
function addons(dir) {
  const found = [];
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...addons(path));
    else if (entry.name.endsWith(".node") && statSync(path).isFile()) found.push(path);
  }
  return found;
}

/** ELF e_machine of each Node arch the image is built for. */
const MACHINE = { x64: 62, arm64: 183 };

/**
 * The ABI an addon was built for: its module version or "napi"; undefined when
 * it is no Node addon for this architecture (build.sh prunes every such file,
 * so one left over is an error too).
 */
function abiOf(path) {
  const bytes = readFileSync(path);
  if (bytes.subarray(0, 4).toString("latin1") !== "\x7fELF") return undefined;
  if (bytes.readUInt16LE(18) !== MACHINE[process.arch]) return undefined;
  const text = bytes.toString("latin1");
  const versioned = /node_register_module_v(\d+)/.exec(text);
  if (versioned) return versioned[1];
  return /napi_register_module_v1|napi_module_register/.test(text) ? "napi" : undefined;
}

const files = [];
const problems = [];
const listed = [];
for (const path of [join(dist, "node_modules"), join(dist, "native")].flatMap(addons)) {
  const abi = abiOf(path);
  const name = relative(dist, path);
  files.push(resolve(path));
  listed.push({ path: name, abi: abi ?? "none" });
  if (abi === undefined) problems.push(`${name}: not a Node addon for linux-${process.arch}`);
  else if (abi !== "napi" && abi !== nodeAbi)
    problems.push(`${name}: built for NODE_MODULE_VERSION ${abi}, the image's Node ${nodeVersion} is ${nodeAbi}`);
}
if (problems.length === 0) {
  // Loaded by the image's own Node, one process for all: the same dlopen computerd will do.
  const script = "for (const f of process.argv.slice(1)) process.dlopen({ exports: {} }, f)";
  try {
    execFileSync(node, ["-e", script, ...files], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  } catch (error) {
    const stderr = String(error.stderr ?? error.message);
    problems.push(
      `loading the addons with ${node} failed: ${stderr.split("\n").find((l) => /Error/.test(l)) ?? stderr}`,
    );
  }
}
if (problems.length > 0) {
  console.error(`check-abi: ${dist} cannot run on its own Node ${nodeVersion} (ABI ${nodeAbi}):`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
writeFileSync(
  join(dist, "image.json"),
  `${JSON.stringify({ node: nodeVersion, abi: nodeAbi, addons: listed }, null, 2)}\n`,
);
console.log(`check-abi: ${files.length} addons fit Node ${nodeVersion} (ABI ${nodeAbi})`);
