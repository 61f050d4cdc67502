// `npm run tenant:create -- <name> [--remote] [--dry-run] [--config path/to/wrangler.toml] [--dimensions 768]`
//
// Provisions one tenant: its own D1 database (and, for --remote, its own Vectorize index), the bindings
// in wrangler.toml, its entry in the TENANTS registry, and a fresh API key of which only the SHA-256 is
// kept. The key is printed once at the end.
//
// Local (default, offline): adds a [[d1_databases]] block to the "local tenants" managed block, adds the
// tenant with `key_sha256` to the top-level [vars] TENANTS, and applies migrations to the local database.
// If the migrations fail, wrangler.toml is restored to what it was.
//
// Remote (--remote, needs a Cloudflare account): creates the D1 database and the Vectorize index, adds
// [[env.production.d1_databases]] and [[env.production.vectorize]] blocks to the "production tenants"
// managed block, adds the tenant with `key_secret` to [env.production.vars] TENANTS, applies migrations
// remotely and stores the key's hash as a Worker secret. `--dry-run` prints the plan and the config
// diff without running anything or writing the file.
//
// wrangler.toml is read with smol-toml but edited as text, so comments and layout survive; every edit is
// checked by parsing the result before the file is written (atomically: temp file, then rename).
import { spawn } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse } from "smol-toml";
import { wranglerSync } from "./wrangler.mjs";

const projectRoot = fileURLToPath(new URL("..", import.meta.url));
const defaultConfigPath = path.join(projectRoot, "wrangler.toml");
const wranglerBin = path.join(projectRoot, "node_modules", "wrangler", "bin", "wrangler.js");

/** Same rule as src/tenancy/registry.ts. */
const TENANT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const MIGRATIONS_DIR = "migrations";
const DEFAULT_DIMENSIONS = 768;
const MAX_DIMENSIONS = 1536;
const PRODUCTION_ENV = "production";

const SCOPES = {
  local: {
    label: "local",
    varsPath: ["vars"],
    varsLabel: "[vars]",
    d1Path: ["d1_databases"],
    d1Header: "[[d1_databases]]",
    vectorizePath: ["vectorize"],
    vectorizeHeader: null,
    markers: {
      begin: "# >>> local tenants",
      end: "# <<< local tenants",
      beginLine: "# >>> local tenants (managed by npm run tenant:create)",
      endLine: "# <<< local tenants",
    },
  },
  remote: {
    label: "production",
    varsPath: ["env", PRODUCTION_ENV, "vars"],
    varsLabel: `[env.${PRODUCTION_ENV}.vars]`,
    d1Path: ["env", PRODUCTION_ENV, "d1_databases"],
    d1Header: `[[env.${PRODUCTION_ENV}.d1_databases]]`,
    vectorizePath: ["env", PRODUCTION_ENV, "vectorize"],
    vectorizeHeader: `[[env.${PRODUCTION_ENV}.vectorize]]`,
    markers: {
      begin: "# >>> production tenants",
      end: "# <<< production tenants",
      beginLine: "# >>> production tenants (managed by npm run tenant:create -- --remote)",
      endLine: "# <<< production tenants",
    },
  },
};

const USAGE = `Usage: npm run tenant:create -- <name> [options]

Creates a tenant with its own D1 database, registers it in wrangler.toml and prints its API key once.

Options:
  --remote              Provision on Cloudflare (D1 database, Vectorize index, Worker secret) and edit
                        [env.${PRODUCTION_ENV}] instead of the local configuration. Needs a Cloudflare login.
  --dry-run             Print the wrangler commands and the wrangler.toml diff without running or writing.
  --config <path>       wrangler.toml to edit (default: the project's wrangler.toml).
  --dimensions <n>      Vectorize dimensions for --remote (default ${DEFAULT_DIMENSIONS}).
  -h, --help            Show this help.

The name must match ${TENANT_NAME}.`;

class CliError extends Error {}

function fail(message) {
  throw new CliError(message);
}

// ---------------------------------------------------------------------------------------------------
// Arguments

function readOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        remote: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        config: { type: "string" },
        dimensions: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    fail(`${error.message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  if (positionals.length === 0) fail(`Missing tenant name.\n\n${USAGE}`);
  if (positionals.length > 1) fail(`Expected one tenant name, got: ${positionals.join(" ")}\n\n${USAGE}`);

  const name = positionals[0];
  if (!TENANT_NAME.test(name)) {
    fail(
      `Invalid tenant name '${name}': use 1-63 characters, lowercase letters, digits and '-', ` +
        `starting with a letter or digit (${TENANT_NAME}).`,
    );
  }
  if (values.remote && name === "dev") {
    fail(
      "Refusing to create 'dev' with --remote: 'dev' is the local-only development tenant, and its key " +
        "'local-dev-key' is refused by deployed Workers. Choose another name for a production tenant.",
    );
  }

  let dimensions = DEFAULT_DIMENSIONS;
  if (values.dimensions !== undefined) {
    if (!values.remote)
      fail("--dimensions only applies with --remote (local tenants have no Vectorize index).");
    if (!/^\d+$/.test(values.dimensions))
      fail(`--dimensions must be a whole number, got '${values.dimensions}'.`);
    dimensions = Number(values.dimensions);
    if (dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      fail(`--dimensions must be between 1 and ${MAX_DIMENSIONS}, got ${dimensions}.`);
    }
  }

  // npm runs scripts from the package root; resolve a relative --config against where npm was started.
  const baseDir = process.env.INIT_CWD ?? process.cwd();
  const configPath = values.config ? path.resolve(baseDir, values.config) : defaultConfigPath;
  // wrangler finds the project's config by itself only when it runs from the project root.
  const passConfig = values.config !== undefined || path.resolve(process.cwd()) !== path.resolve(projectRoot);

  return {
    help: false,
    name,
    remote: values.remote,
    dryRun: values["dry-run"],
    dimensions,
    configPath,
    configArgs: passConfig ? ["--config", configPath] : [],
  };
}

function tenantNames(name) {
  const upper = name.toUpperCase().replaceAll("-", "_");
  return {
    name,
    dbBinding: `TENANT_${upper}_DB`,
    vectorsBinding: `TENANT_${upper}_VECTORS`,
    keySecret: `TENANT_${upper}_KEY_SHA256`,
    databaseName: `tenure-${name}`,
    indexName: `tenure-${name}`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Reading the configuration

function getPath(object, keys) {
  let current = object;
  for (const key of keys) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function readRegistry(config, scope, configPath) {
  const vars = getPath(config, scope.varsPath);
  if (vars === undefined || typeof vars !== "object") {
    fail(`${configPath} has no ${scope.varsLabel} table; add it (with TENANTS = '{}') first.`);
  }
  const raw = vars.TENANTS ?? "{}";
  if (typeof raw !== "string") fail(`${scope.varsLabel} TENANTS in ${configPath} must be a JSON string.`);
  let registry;
  try {
    registry = JSON.parse(raw || "{}");
  } catch (error) {
    fail(`${scope.varsLabel} TENANTS in ${configPath} is not valid JSON: ${error.message}`);
  }
  if (registry === null || typeof registry !== "object" || Array.isArray(registry)) {
    fail(`${scope.varsLabel} TENANTS in ${configPath} must be a JSON object.`);
  }
  return registry;
}

function checkNotTaken(config, scope, names, configPath) {
  const registry = readRegistry(config, scope, configPath);
  if (Object.hasOwn(registry, names.name)) {
    fail(`Tenant '${names.name}' already exists in ${scope.varsLabel} TENANTS of ${configPath}.`);
  }
  for (const database of asArray(getPath(config, scope.d1Path))) {
    if (database?.binding === names.dbBinding) {
      fail(`A D1 binding named ${names.dbBinding} already exists in ${configPath}.`);
    }
    if (database?.database_name === names.databaseName) {
      fail(`A D1 database named ${names.databaseName} is already configured in ${configPath}.`);
    }
  }
  if (scope.vectorizeHeader) {
    for (const index of asArray(getPath(config, scope.vectorizePath))) {
      if (index?.binding === names.vectorsBinding) {
        fail(`A Vectorize binding named ${names.vectorsBinding} already exists in ${configPath}.`);
      }
      if (index?.index_name === names.indexName) {
        fail(`A Vectorize index named ${names.indexName} is already configured in ${configPath}.`);
      }
    }
  }
  return registry;
}

function asArray(value) {
  return Array.isArray(value) ? value : [];
}

// ---------------------------------------------------------------------------------------------------
// Editing the configuration as text

function tomlString(value) {
  // A literal string keeps the JSON readable; fall back to a basic string if it cannot hold the value.
  if (!/['\r\n]/.test(value)) return `'${value}'`;
  return JSON.stringify(value);
}

function normaliseTableName(raw) {
  const parts = raw.split(".").map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, "$1$2"));
  if (parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return null;
  return parts.join(".");
}

/** Returns the table a header line opens ("vars", "env.production.vars", …) or null. */
function tableHeader(line) {
  const match = line.match(/^\s*\[\[?([^[\]]+)\]\]?\s*(?:#.*)?$/);
  return match ? normaliseTableName(match[1]) : null;
}

function setTenantsLine(lines, scope, json, configPath) {
  const tableName = scope.varsPath.join(".");
  const start = lines.findIndex((line) => tableHeader(line) === tableName);
  if (start === -1) fail(`Could not find the ${scope.varsLabel} table header in ${configPath}.`);
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (tableHeader(lines[i]) !== null) {
      end = i;
      break;
    }
  }
  const value = `TENANTS = ${tomlString(json)}`;
  for (let i = start + 1; i < end; i++) {
    if (!/^\s*TENANTS\s*=/.test(lines[i])) continue;
    const match = lines[i].match(/^(\s*)TENANTS\s*=\s*(?:'[^'\r\n]*'|"(?:[^"\\\r\n]|\\.)*")(\s*(?:#.*)?)$/);
    if (!match) {
      fail(
        `${scope.varsLabel} TENANTS in ${configPath} is not a one-line string; ` +
          "write it as TENANTS = '{...}' on a single line and try again.",
      );
    }
    lines[i] = `${match[1]}${value}${match[2]}`;
    return;
  }
  lines.splice(start + 1, 0, value);
}

function insertManagedBlock(lines, scope, blockLines, configPath) {
  const { markers } = scope;
  const begin = lines.findIndex((line) => line.trim().startsWith(markers.begin));
  const end = lines.findIndex((line, i) => i > begin && line.trim().startsWith(markers.end));
  if (begin === -1 && !lines.some((line) => line.trim().startsWith(markers.end))) {
    // No managed block yet: append one. Table headers in TOML are absolute, so the end of the file works.
    while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
    lines.push("", markers.beginLine, ...blockLines, markers.endLine, "");
    return;
  }
  if (begin === -1 || end === -1) {
    fail(
      `The ${scope.label} tenants block in ${configPath} is malformed: expected a line starting with ` +
        `'${markers.begin}' followed later by one starting with '${markers.end}'.`,
    );
  }
  const previous = lines[end - 1].trim();
  const separator = end - 1 === begin || previous === "" ? [] : [""];
  lines.splice(end, 0, ...separator, ...blockLines);
}

function tomlBlock(header, entries) {
  return [header, ...Object.entries(entries).map(([key, value]) => `${key} = ${JSON.stringify(value)}`)];
}

/** Plans every change to the config and returns the new text, checked by parsing it back. */
function planConfig(originalText, scope, change, configPath) {
  const eol = originalText.includes("\r\n") ? "\r\n" : "\n";
  const lines = originalText.split(/\r?\n/);

  const blockLines = tomlBlock(scope.d1Header, change.database);
  if (scope.vectorizeHeader) blockLines.push("", ...tomlBlock(scope.vectorizeHeader, change.vectorize));
  insertManagedBlock(lines, scope, blockLines, configPath);

  const registryJson = JSON.stringify(change.registry);
  setTenantsLine(lines, scope, registryJson, configPath);

  const text = lines.join(eol);
  verifyPlannedConfig(originalText, text, scope, change, registryJson, configPath);
  return text;
}

/** Sorts object keys recursively so two parsed configs compare by content only. */
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical(value[key]);
    return out;
  }
  return value;
}

/**
 * Parses the edited text and checks that it differs from the original by exactly the intended change:
 * the new TENANTS string, one new D1 block and (remote) one new Vectorize block, nothing else.
 */
function verifyPlannedConfig(originalText, text, scope, change, registryJson, configPath) {
  let edited;
  try {
    edited = parse(text);
  } catch (error) {
    fail(`Internal error: the edited ${configPath} would not parse (${error.message}); nothing was written.`);
  }
  const mismatch = (what) =>
    fail(`Internal error: the edited ${configPath} has an unexpected ${what}; nothing was written.`);

  const vars = getPath(edited, scope.varsPath);
  if (vars?.TENANTS !== registryJson) mismatch(`${scope.varsLabel} TENANTS value`);

  const removeOne = (keys, entry, what) => {
    const list = asArray(getPath(edited, keys));
    const found = list.filter((item) => JSON.stringify(canonical(item)) === JSON.stringify(canonical(entry)));
    if (found.length !== 1) mismatch(what);
    const parent = getPath(edited, keys.slice(0, -1));
    const rest = list.filter((item) => item !== found[0]);
    if (rest.length > 0) parent[keys.at(-1)] = rest;
    else delete parent[keys.at(-1)];
  };
  removeOne(scope.d1Path, change.database, scope.d1Header);
  if (scope.vectorizeHeader) removeOne(scope.vectorizePath, change.vectorize, scope.vectorizeHeader);

  const original = parse(originalText);
  const originalVars = getPath(original, scope.varsPath);
  if (Object.hasOwn(originalVars, "TENANTS")) vars.TENANTS = originalVars.TENANTS;
  else delete vars.TENANTS;
  if (JSON.stringify(canonical(edited)) !== JSON.stringify(canonical(original))) mismatch("change elsewhere");
}

function writeFileAtomic(filePath, text) {
  const mode = statSync(filePath).mode & 0o777;
  const temp = path.join(path.dirname(filePath), `.${path.basename(filePath)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text, { mode });
    renameSync(temp, filePath);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Output

function lineDiff(before, after, label) {
  const a = before.split(/\r?\n/);
  const b = after.split(/\r?\n/);
  // Longest common subsequence table, from the end, so the walk below can go forwards.
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i], ai: i++, bj: j++ });
    } else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push({ kind: "-", text: a[i], ai: i++, bj: j });
    } else {
      ops.push({ kind: "+", text: b[j], ai: i, bj: j++ });
    }
  }

  const context = 3;
  const out = [`--- ${label}`, `+++ ${label} (after tenant:create)`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].kind === " ") {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let stop = k;
    // Extend the hunk while changes are within 2 * context lines of each other.
    while (stop < ops.length) {
      let next = stop;
      while (next < ops.length && ops[next].kind !== " ") next++;
      let gap = next;
      while (gap < ops.length && ops[gap].kind === " ") gap++;
      if (gap < ops.length && gap - next <= context * 2) stop = gap;
      else {
        stop = Math.min(ops.length, next + context);
        break;
      }
    }
    const hunk = ops.slice(start, stop);
    const aCount = hunk.filter((op) => op.kind !== "+").length;
    const bCount = hunk.filter((op) => op.kind !== "-").length;
    out.push(`@@ -${hunk[0].ai + 1},${aCount} +${hunk[0].bj + 1},${bCount} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.text}`);
    k = stop;
  }
  return out.join("\n");
}

function shellQuote(arg) {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

function commandLine(args) {
  return `npx wrangler ${args.map(shellQuote).join(" ")}`;
}

let stepOpen = false;

function startStep(index, total, text) {
  process.stdout.write(`[${index}/${total}] ${text} … `);
  stepOpen = true;
}

function endStep(text = "done") {
  process.stdout.write(`${text}\n`);
  stepOpen = false;
}

const ANSI_ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

function printCaptured(result) {
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.replace(ANSI_ESCAPE, "").trim();
  if (output) process.stderr.write(`${output.replace(/^/gm, "    ")}\n`);
  if (result.error) process.stderr.write(`    ${result.error.message}\n`);
}

function printKey(name, key, lines) {
  const rule = "─".repeat(72);
  console.log(`\n${rule}`);
  console.log(`  API key for tenant '${name}':\n`);
  console.log(`    ${key}\n`);
  console.log("  This is the only time the key is shown: only its SHA-256 is stored, so it cannot be");
  console.log("  shown again. Keep it somewhere safe now; a lost key means creating a new tenant.");
  for (const line of lines) console.log(line ? `  ${line}` : "");
  console.log(rule);
}

function newKey() {
  const key = `tnr_${randomBytes(32).toString("base64url")}`;
  return { key, sha256: createHash("sha256").update(key).digest("hex") };
}

function runWrangler(args) {
  try {
    return wranglerSync(args, { capture: true, allowFailure: true });
  } catch (error) {
    return { status: null, stdout: "", stderr: "", error };
  }
}

function checkMigrationsDir(configPath) {
  const dir = path.join(path.dirname(configPath), MIGRATIONS_DIR);
  if (!existsSync(dir)) {
    fail(
      `No '${MIGRATIONS_DIR}' directory next to ${configPath} (expected ${dir}); D1 migrations live there.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Local

function createLocal(options, config, originalText) {
  const scope = SCOPES.local;
  const names = tenantNames(options.name);
  const registry = checkNotTaken(config, scope, names, options.configPath);
  const database = {
    binding: names.dbBinding,
    database_name: names.databaseName,
    database_id: randomUUID(),
    migrations_dir: MIGRATIONS_DIR,
  };
  const migrateArgs = ["d1", "migrations", "apply", names.databaseName, "--local", ...options.configArgs];
  const entry = { db: names.dbBinding, vectors: names.vectorsBinding };

  if (options.dryRun) {
    const plannedText = planConfig(
      originalText,
      scope,
      {
        database,
        registry: { ...registry, [names.name]: { ...entry, key_sha256: "<sha256 of the new key>" } },
      },
      options.configPath,
    );
    console.log(`Dry run: nothing is created and ${options.configPath} is not written.\n`);
    console.log("Would run:");
    console.log(`  ${commandLine(migrateArgs)}`);
    console.log(`\nWould change ${options.configPath} (a real run stores the new key's SHA-256):`);
    console.log(lineDiff(originalText, plannedText, options.configPath));
    return 0;
  }

  const total = 4;
  console.log(`Creating local tenant '${names.name}' in ${options.configPath}\n`);

  startStep(1, total, "Generating API key");
  const { key, sha256 } = newKey();
  endStep();

  startStep(
    2,
    total,
    `Adding D1 binding ${names.dbBinding} (${names.databaseName}) to the local tenants block`,
  );
  const change = { database, registry: { ...registry, [names.name]: { ...entry, key_sha256: sha256 } } };
  const newText = planConfig(originalText, scope, change, options.configPath);
  endStep();

  startStep(3, total, `Registering '${names.name}' in ${scope.varsLabel} TENANTS and writing the config`);
  writeFileAtomic(options.configPath, newText);
  endStep();

  startStep(4, total, `Creating local D1 database ${names.databaseName} and applying migrations`);
  const result = runWrangler(migrateArgs);
  if (result.status !== 0) {
    endStep("failed");
    printCaptured(result);
    writeFileAtomic(options.configPath, originalText);
    console.error(`\nMigrations failed; ${options.configPath} was restored to its previous content.`);
    console.error(`The command was: ${commandLine(migrateArgs)}`);
    return 1;
  }
  endStep();

  printKey(names.name, key, [
    "",
    "Restart `npm run dev` if it is running, then try it:",
    `  curl -H "authorization: Bearer ${key}" \\`,
    `    -X PUT http://localhost:8787/v1/tenants/${names.name}/threads/t1 \\`,
    `    -H 'content-type: application/json' -d '{"project_id":"p","identity":{"user_id":"u"}}'`,
  ]);
  return 0;
}

// ---------------------------------------------------------------------------------------------------
// Remote

function parseDatabaseId(output) {
  const match = output.match(
    /"?database_id"?\s*[:=]\s*"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/i,
  );
  return match ? match[1].toLowerCase() : undefined;
}

function putSecret(secretArgs, value) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [wranglerBin, ...secretArgs], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.on("error", () => {});
    child.on("error", (error) => resolve({ status: null, stdout, stderr, error }));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(value);
  });
}

async function createRemote(options, config, originalText) {
  const scope = SCOPES.remote;
  const names = tenantNames(options.name);
  const registry = checkNotTaken(config, scope, names, options.configPath);
  const envArgs = ["--env", PRODUCTION_ENV];
  const createDbArgs = ["d1", "create", names.databaseName, ...options.configArgs];
  const createIndexArgs = [
    "vectorize",
    "create",
    names.indexName,
    `--dimensions=${options.dimensions}`,
    "--metric=cosine",
    ...options.configArgs,
  ];
  const migrateArgs = [
    "d1",
    "migrations",
    "apply",
    names.databaseName,
    "--remote",
    ...envArgs,
    ...options.configArgs,
  ];
  const secretArgs = ["secret", "put", names.keySecret, ...envArgs, ...options.configArgs];
  const entry = { db: names.dbBinding, vectors: names.vectorsBinding, key_secret: names.keySecret };
  const changeFor = (databaseId) => ({
    database: {
      binding: names.dbBinding,
      database_name: names.databaseName,
      database_id: databaseId,
      migrations_dir: MIGRATIONS_DIR,
    },
    vectorize: { binding: names.vectorsBinding, index_name: names.indexName },
    registry: { ...registry, [names.name]: entry },
  });

  // Plan the edit before touching Cloudflare, so a config that cannot be edited fails with nothing created.
  const placeholderId = "<database_id printed by wrangler d1 create>";
  const plannedText = planConfig(originalText, scope, changeFor(placeholderId), options.configPath);
  const total = 6;

  if (options.dryRun) {
    console.log(`Dry run: nothing is created on Cloudflare and ${options.configPath} is not written.\n`);
    console.log(`Would run, for tenant '${names.name}':`);
    console.log(`  [1/${total}] generate an API key (tnr_ + 32 random bytes, base64url) and its SHA-256`);
    console.log(`  [2/${total}] ${commandLine(createDbArgs)}`);
    console.log(`  [3/${total}] ${commandLine(createIndexArgs)}`);
    console.log(`  [4/${total}] write ${options.configPath} (diff below)`);
    console.log(`  [5/${total}] ${commandLine(migrateArgs)}`);
    console.log(`  [6/${total}] ${commandLine(secretArgs)}   (stdin: the key's SHA-256)`);
    console.log(`  then print the key once, and deploy with: ${commandLine(["deploy", ...envArgs])}`);
    console.log(`\nWould change ${options.configPath}:`);
    console.log(lineDiff(originalText, plannedText, options.configPath));
    return 0;
  }

  if (!existsSync(wranglerBin)) fail(`wrangler is not installed (${wranglerBin}); run npm install first.`);
  console.log(
    `Creating production tenant '${names.name}' on Cloudflare, configured in ${options.configPath}\n`,
  );
  const cleanup = [];
  const printCleanup = () => {
    if (cleanup.length === 0) return;
    console.error("\nThese Cloudflare resources were created; delete them before trying again:");
    for (const args of cleanup) console.error(`  ${commandLine(args)}`);
  };

  startStep(1, total, "Generating API key");
  const { key, sha256 } = newKey();
  endStep();

  startStep(2, total, `Creating D1 database ${names.databaseName}`);
  const created = runWrangler(createDbArgs);
  if (created.status !== 0) {
    endStep("failed");
    printCaptured(created);
    console.error("\nNothing was created and the config was not changed.");
    return 1;
  }
  const databaseId = parseDatabaseId(`${created.stdout ?? ""}\n${created.stderr ?? ""}`);
  cleanup.push(["d1", "delete", names.databaseName, ...options.configArgs]);
  if (!databaseId) {
    endStep("failed");
    printCaptured(created);
    console.error("\nCould not find the database_id in the output of wrangler d1 create.");
    printCleanup();
    return 1;
  }
  endStep(`done (database_id ${databaseId})`);

  startStep(
    3,
    total,
    `Creating Vectorize index ${names.indexName} (${options.dimensions} dimensions, cosine)`,
  );
  const index = runWrangler(createIndexArgs);
  if (index.status !== 0) {
    endStep("failed");
    printCaptured(index);
    console.error("\nThe config was not changed.");
    printCleanup();
    return 1;
  }
  cleanup.push(["vectorize", "delete", names.indexName, ...options.configArgs]);
  endStep();

  startStep(4, total, `Adding bindings and registering '${names.name}' in ${scope.varsLabel} TENANTS`);
  try {
    writeFileAtomic(
      options.configPath,
      planConfig(originalText, scope, changeFor(databaseId), options.configPath),
    );
  } catch (error) {
    endStep("failed");
    console.error(`    ${error.message}`);
    printCleanup();
    return 1;
  }
  endStep();

  startStep(5, total, `Applying migrations to remote D1 database ${names.databaseName}`);
  const migrated = runWrangler(migrateArgs);
  if (migrated.status !== 0) {
    endStep("failed");
    printCaptured(migrated);
    writeFileAtomic(options.configPath, originalText);
    console.error(`\n${options.configPath} was restored to its previous content.`);
    printCleanup();
    return 1;
  }
  endStep();

  startStep(6, total, `Storing the key's SHA-256 as secret ${names.keySecret} (env ${PRODUCTION_ENV})`);
  const secret = await putSecret(secretArgs, sha256);
  if (secret.status !== 0) {
    endStep("failed");
    printCaptured(secret);
    console.error(
      `\nThe tenant is configured, but the Worker refuses it until the secret exists. Store it with:\n` +
        `  printf %s ${sha256} | ${commandLine(secretArgs)}`,
    );
    printKey(names.name, key, []);
    return 1;
  }
  endStep();

  printKey(names.name, key, [
    "",
    "Deploy to make the tenant live:",
    `  ${commandLine(["deploy", ...envArgs])}`,
  ]);
  return 0;
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const options = readOptions(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  if (!existsSync(options.configPath)) fail(`Config file not found: ${options.configPath}`);
  const originalText = readFileSync(options.configPath, "utf8");
  let config;
  try {
    config = parse(originalText);
  } catch (error) {
    fail(`Could not parse ${options.configPath}: ${error.message}`);
  }
  checkMigrationsDir(options.configPath);
  return options.remote
    ? await createRemote(options, config, originalText)
    : createLocal(options, config, originalText);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (stepOpen) endStep("failed");
    if (error instanceof CliError) console.error(`tenant:create: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  },
);
