// What the command-line benches share around their measurement: usage errors, number options, and a
// run wrapped in the local dev server when no --url names a running one.
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { DevServer } from "./dev-server.mjs";

const HEALTH_TIMEOUT_MS = 90_000;

/** The options that name the server and tenant, as every HTTP bench takes them. */
export const SERVER_OPTIONS = {
  url: { type: "string" },
  tenant: { type: "string", default: "dev" },
  key: { type: "string", default: "local-dev-key" },
};
export const SERVER_USAGE = `  --url URL          use a running server (default: start scripts/dev.mjs on a free port)
  --tenant NAME      tenant (default dev)
  --key KEY          tenant key (default local-dev-key)`;

/** "a, b,,c" → ["a", "b", "c"] */
export const commaList = (text) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** Usage errors of one script: its name before the message, its usage after, exit code 2. */
export function usageErrors(name, usage) {
  const fail = (message) => {
    console.error(`${name}: ${message}`);
    console.error(usage);
    process.exit(2);
  };
  const positiveInt = (text, option) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) fail(`--${option} must be a positive integer, got '${text}'`);
    return n;
  };
  /** "1000,2000" → [1000, 2000]; at least one. */
  const positiveInts = (text, option) => {
    const list = commaList(text).map((b) => positiveInt(b, option));
    if (!list.length) fail(`--${option} needs at least one value`);
    return list;
  };
  /**
   * parseArgs with --help (prints the usage, exits 0) and usage errors; `operand` names the one
   * positional argument the command takes, if it takes one.
   */
  const parse = (argv, options, operand) => {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        allowPositionals: operand !== undefined,
        options: { ...options, help: { type: "boolean", short: "h", default: false } },
      });
    } catch (error) {
      fail(error.message);
    }
    if (parsed.values.help) {
      console.log(usage);
      process.exit(0);
    }
    if (operand !== undefined && parsed.positionals.length !== 1) fail(`expected exactly one ${operand}`);
    return { values: parsed.values, operand: parsed.positionals[0] };
  };
  return { fail, positiveInt, positiveInts, parse };
}

/**
 * Runs `measure(url)` against `url`, or against a dev server started for the run (on a free port,
 * stopped afterwards, also on SIGINT/SIGTERM, after `onSignal(signal)`). The server log is removed
 * after a clean run and named after a failed one, or after one for which `keepLog(result)` holds.
 */
export async function withServer(name, url, measure, { onSignal, keepLog } = {}) {
  const server = new DevServer(name);
  let signalled = false;
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      if (signalled) return;
      signalled = true;
      onSignal?.(signal);
      server.stop().finally(() => process.exit(130));
    });
  }
  process.on("exit", () => server.killNow());
  let base = url;
  if (!base) {
    process.stderr.write("starting the local dev server (scripts/dev.mjs) ...\n");
    try {
      base = await server.start(HEALTH_TIMEOUT_MS);
    } catch (error) {
      console.error(`${name}: ${error.message}; server log: ${server.logPath}`);
      server.printLogTail();
      await server.stop();
      process.exit(1);
    }
    process.stderr.write(`dev server ready at ${base}\n`);
  }
  try {
    const result = await measure(base);
    await server.stop();
    if (server.logPath && keepLog?.(result)) console.error(`server log: ${server.logPath}`);
    else if (server.logPath) rmSync(server.logPath, { force: true });
    return result;
  } catch (error) {
    await server.stop();
    if (server.logPath) console.error(`server log: ${server.logPath}`);
    throw error;
  }
}
