// Runs the project's own wrangler with the Node that runs this script (Node 22 from the `node` package
// when started through npm), so the system Node's version never matters.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const wranglerBin = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));

export function wranglerSync(args, options = {}) {
  const result = spawnSync(process.execPath, [wranglerBin, ...args], {
    stdio: options.capture ? ["ignore", "pipe", "pipe"] : "inherit",
    encoding: "utf8",
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", ...options.env },
  });
  if (result.status !== 0 && !options.allowFailure) {
    if (options.capture) process.stderr.write(`${result.stdout ?? ""}${result.stderr ?? ""}`);
    throw new Error(`wrangler ${args.join(" ")} exited with ${result.status}`);
  }
  return result;
}

export function wranglerSpawn(args, options = {}) {
  return spawn(process.execPath, [wranglerBin, ...args], {
    stdio: options.stdio ?? "inherit",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...options.env },
  });
}
