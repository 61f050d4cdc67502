// `npm run tenant:create -- <name> [--remote] [--dry-run] [--config path/to/wrangler.toml] [--dimensions 768] [--trace-retention-days 30] [--db-limit-bytes N]`
// `npm run tenant:create -- <name> --add-database [--remote] [--dry-run] [--config path/to/wrangler.toml]`
// `npm run tenant:create -- <name> --close-db <BINDING> [--remote] [--dry-run] [--config path/to/wrangler.toml]`
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
// --add-database gives an existing tenant one more D1 database (src/tenancy/placement.ts spreads new
// projects over its open ones with room: GET /capacity): binding TENANT_<NAME>_DB_<n>, database tenure-<name>-<n>, a block in the
// same managed block, the binding appended to the tenant's `more_dbs`, and the migrations applied (with
// --remote, after `wrangler d1 create`; the config is restored if they fail). --close-db appends one of
// the tenant's bindings to its `closed_dbs`: that database keeps its projects and takes no new ones.
// Neither touches the tenant's key.
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
/** The Worker's bound on a tenant's trace retention (src/tenancy/registry.ts). */
const MAX_RETENTION_DAYS = 36_500;
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
       npm run tenant:create -- <name> --add-database [--remote] [--dry-run] [--config <path>]
       npm run tenant:create -- <name> --close-db <BINDING> [--remote] [--dry-run] [--config <path>]

Creates a tenant with its own D1 database, registers it in wrangler.toml and prints its API key once;
or gives an existing tenant one more D1 database, or closes one of its databases to new projects.

Options:
  --add-database        Add a D1 database to an existing tenant (binding TENANT_<NAME>_DB_<n>, appended to
                        its more_dbs) and apply the migrations to it. The key is left as it is.
  --close-db <BINDING>  Add one of the tenant's D1 bindings to its closed_dbs: it keeps its projects and
                        takes no new ones. At least one database must stay open.
  --remote              Provision on Cloudflare (D1 database, Vectorize index, Worker secret) and edit
                        [env.${PRODUCTION_ENV}] instead of the local configuration. Needs a Cloudflare login.
  --dry-run             Print the wrangler commands and the wrangler.toml diff without running or writing.
  --config <path>       wrangler.toml to edit (default: the project's wrangler.toml).
  --dimensions <n>      Vectorize dimensions when creating a tenant with --remote (default ${DEFAULT_DIMENSIONS}).
  --trace-retention-days <n>
                        Days a compile's trace is kept, 1 to ${MAX_RETENTION_DAYS}, when creating a tenant
                        (its registry entry's trace_retention_days; 30 when not given).
  --db-limit-bytes <n>  The size each of the tenant's D1 databases may reach, when creating a tenant (its
                        registry entry's db_limit_bytes; 10 GB, D1 on Workers Paid, when not given;
                        500000000 on Workers Free). GET /v1/tenants/<name>/capacity reads it.
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
        "add-database": { type: "boolean", default: false },
        "close-db": { type: "string" },
        "dry-run": { type: "boolean", default: false },
        config: { type: "string" },
        dimensions: { type: "string" },
        "trace-retention-days": { type: "string" },
        "db-limit-bytes": { type: "string" },
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
  if (values["add-database"] && values["close-db"] !== undefined) {
    fail("--add-database and --close-db do different things; run one, then the other.");
  }
  const action = values["add-database"]
    ? "add-database"
    : values["close-db"] !== undefined
      ? "close-db"
      : "create";
  if (action !== "create" && values.remote && name === "dev") {
    fail("'dev' is the local-only development tenant and has no production databases; drop --remote.");
  }
  if (action === "create" && values.remote && name === "dev") {
    fail(
      "Refusing to create 'dev' with --remote: 'dev' is the local-only development tenant, and its key " +
        "'local-dev-key' is refused by deployed Workers. Choose another name for a production tenant.",
    );
  }

  let dimensions = DEFAULT_DIMENSIONS;
  if (values.dimensions !== undefined) {
    if (action !== "create") fail(`--dimensions only applies when creating a tenant, not with --${action}.`);
    if (!values.remote)
      fail("--dimensions only applies with --remote (local tenants have no Vectorize index).");
    if (!/^\d+$/.test(values.dimensions))
      fail(`--dimensions must be a whole number, got '${values.dimensions}'.`);
    dimensions = Number(values.dimensions);
    if (dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      fail(`--dimensions must be between 1 and ${MAX_DIMENSIONS}, got ${dimensions}.`);
    }
  }

  let traceRetentionDays;
  const retention = values["trace-retention-days"];
  if (retention !== undefined) {
    if (action !== "create")
      fail(`--trace-retention-days only applies when creating a tenant, not with --${action}.`);
    if (!/^\d+$/.test(retention) || Number(retention) < 1 || Number(retention) > MAX_RETENTION_DAYS) {
      fail(
        `--trace-retention-days must be a whole number from 1 to ${MAX_RETENTION_DAYS}, got '${retention}'.`,
      );
    }
    traceRetentionDays = Number(retention);
  }

  let dbLimitBytes;
  const limit = values["db-limit-bytes"];
  if (limit !== undefined) {
    if (action !== "create")
      fail(`--db-limit-bytes only applies when creating a tenant, not with --${action}.`);
    if (!/^\d+$/.test(limit) || !Number.isSafeInteger(Number(limit)) || Number(limit) < 1) {
      fail(`--db-limit-bytes must be a whole number of bytes, at least 1, got '${limit}'.`);
    }
    dbLimitBytes = Number(limit);
  }

  // npm runs scripts from the package root; resolve a relative --config against where npm was started.
  const baseDir = process.env.INIT_CWD ?? process.cwd();
  const configPath = values.config ? path.resolve(baseDir, values.config) : defaultConfigPath;
  // wrangler finds the project's config by itself only when it runs from the project root.
  const passConfig = values.config !== undefined || path.resolve(process.cwd()) !== path.resolve(projectRoot);

  return {
    help: false,
    action,
    name,
    closeBinding: values["close-db"],
    remote: values.remote,
    dryRun: values["dry-run"],
    dimensions,
    traceRetentionDays,
    dbLimitBytes,
    configPath,
    configArgs: passConfig ? ["--config", configPath] : [],
  };
}

/** The registry entry's settings given on the command line: trace retention and database limit. */
function settingsOf(options) {
  return {
    ...(options.traceRetentionDays === undefined ? {} : { trace_retention_days: options.traceRetentionDays }),
    ...(options.dbLimitBytes === undefined ? {} : { db_limit_bytes: options.dbLimitBytes }),
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

/** The tenant's entry in this scope's registry; an unknown tenant or a malformed entry is a clear error. */
function findTenant(config, scope, name, configPath) {
  const registry = readRegistry(config, scope, configPath);
  const where = `${scope.varsLabel} TENANTS of ${configPath}`;
  if (!Object.hasOwn(registry, name)) {
    const known = Object.keys(registry).map((tenant) => `'${tenant}'`);
    const remote = scope === SCOPES.remote;
    const other = remote ? SCOPES.local : SCOPES.remote;
    const elsewhere = knownIn(config, other, name, configPath);
    fail(
      `Unknown tenant '${name}': ${where} has ${known.length ? known.join(", ") : "no tenants"}. ` +
        (elsewhere
          ? `'${name}' is a ${other.label} tenant: ${remote ? "drop" : "add"} --remote.`
          : `Create it first with npm run tenant:create -- ${name}${remote ? " --remote" : ""}.`),
    );
  }
  const entry = registry[name];
  const isBindingList = (value) =>
    value === undefined || (Array.isArray(value) && value.every((item) => typeof item === "string" && item));
  if (
    entry === null ||
    typeof entry !== "object" ||
    typeof entry.db !== "string" ||
    !isBindingList(entry.more_dbs) ||
    !isBindingList(entry.closed_dbs)
  ) {
    fail(
      `Tenant '${name}' in ${where} is malformed: expected "db" and optional "more_dbs"/"closed_dbs" lists.`,
    );
  }
  return { registry, entry };
}

/** Whether the other scope's registry has the tenant: a hint for an unknown one, never an error itself. */
function knownIn(config, scope, name, configPath) {
  try {
    return Object.hasOwn(readRegistry(config, scope, configPath), name);
  } catch {
    return false;
  }
}

/** Every D1 binding of a tenant, the home database first, in the order they were added. */
function tenantDatabases(entry) {
  return [entry.db, ...(entry.more_dbs ?? [])];
}

/**
 * The tenant's next database: one past the highest suffix in use (2 for the first), skipping any name a
 * block of this scope already has (tenant `acme-3` owns `tenure-acme-3`). A gap left by a database taken
 * out by hand is not refilled, since the home database's project directory may still name its binding.
 */
function nextDatabase(config, scope, names, entry) {
  const databases = asArray(getPath(config, scope.d1Path));
  const bindings = new Set([
    ...tenantDatabases(entry),
    ...(entry.closed_dbs ?? []),
    ...databases.map((database) => database?.binding),
  ]);
  const databaseNames = new Set(databases.map((database) => database?.database_name));
  const numbered = new RegExp(`^${names.dbBinding}_(\\d+)$`);
  let suffix = 2;
  for (const binding of bindings) {
    const match = typeof binding === "string" ? binding.match(numbered) : null;
    if (match) suffix = Math.max(suffix, Number(match[1]) + 1);
  }
  const numberedNames = (n) => ({
    binding: `${names.dbBinding}_${n}`,
    databaseName: `${names.databaseName}-${n}`,
  });
  while (
    bindings.has(numberedNames(suffix).binding) ||
    databaseNames.has(numberedNames(suffix).databaseName)
  ) {
    suffix++;
  }
  return numberedNames(suffix);
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

  // Closing a database changes the registry alone; the other changes add blocks to the managed block.
  if (change.database) {
    const blockLines = tomlBlock(scope.d1Header, change.database);
    if (change.vectorize) blockLines.push("", ...tomlBlock(scope.vectorizeHeader, change.vectorize));
    insertManagedBlock(lines, scope, blockLines, configPath);
  }

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
 * the new TENANTS string and the blocks the change adds (a D1 block; for a new remote tenant, a Vectorize
 * block too), nothing else.
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
  if (change.database) removeOne(scope.d1Path, change.database, scope.d1Header);
  if (change.vectorize) removeOne(scope.vectorizePath, change.vectorize, scope.vectorizeHeader);

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

function printCleanup(cleanup) {
  if (cleanup.length === 0) return;
  console.error("\nThese Cloudflare resources were created; delete them before trying again:");
  for (const args of cleanup) console.error(`  ${commandLine(args)}`);
}

/** What a dry run would do: the numbered steps, then the config diff. */
function printDryRun(options, plan, originalText, plannedText) {
  const nothing = options.remote ? "nothing is created on Cloudflare" : "nothing is created";
  console.log(`Dry run: ${nothing} and ${options.configPath} is not written.\n`);
  console.log(`Would run, for tenant '${options.name}':`);
  for (const [i, step] of plan.steps.entries()) console.log(`  [${i + 1}/${plan.steps.length}] ${step}`);
  if (plan.after) console.log(`  then ${plan.after}`);
  console.log(`\nWould change ${options.configPath}${plan.diffNote ?? ""}:`);
  console.log(lineDiff(originalText, plannedText, options.configPath));
}

function deployLine() {
  return commandLine(["deploy", "--env", PRODUCTION_ENV]);
}

// ---------------------------------------------------------------------------------------------------
// Steps shared by the actions

const KEY_STEP = "generate an API key (tnr_ + 32 random bytes, base64url) and its SHA-256";

function d1Block(binding, databaseName, databaseId) {
  return { binding, database_name: databaseName, database_id: databaseId, migrations_dir: MIGRATIONS_DIR };
}

function migrateArgsFor(databaseName, options) {
  const where = options.remote ? ["--remote", "--env", PRODUCTION_ENV] : ["--local"];
  return ["d1", "migrations", "apply", databaseName, ...where, ...options.configArgs];
}

/** Applies the migrations to a database the config now names; if they fail, puts the config back. */
function applyMigrations(migrateArgs, options, originalText) {
  const result = runWrangler(migrateArgs);
  if (result.status === 0) {
    endStep();
    return true;
  }
  endStep("failed");
  printCaptured(result);
  writeFileAtomic(options.configPath, originalText);
  console.error(`\nMigrations failed; ${options.configPath} was restored to its previous content.`);
  console.error(`The command was: ${commandLine(migrateArgs)}`);
  return false;
}

/** `wrangler d1 create`: the new database's id, or undefined once the failure has been reported. */
function createRemoteDatabase(createDbArgs, databaseName, options, cleanup) {
  const created = runWrangler(createDbArgs);
  if (created.status !== 0) {
    endStep("failed");
    printCaptured(created);
    console.error("\nNothing was created and the config was not changed.");
    return undefined;
  }
  const databaseId = parseDatabaseId(`${created.stdout ?? ""}\n${created.stderr ?? ""}`);
  cleanup.push(["d1", "delete", databaseName, ...options.configArgs]);
  if (!databaseId) {
    endStep("failed");
    printCaptured(created);
    console.error("\nCould not find the database_id in the output of wrangler d1 create.");
    printCleanup(cleanup);
    return undefined;
  }
  endStep(`done (database_id ${databaseId})`);
  return databaseId;
}

/** Writes the config once Cloudflare resources exist; if that fails, lists them for deletion. */
function writeAfterCreating(options, textFor, cleanup) {
  try {
    writeFileAtomic(options.configPath, textFor());
  } catch (error) {
    endStep("failed");
    console.error(`    ${error.message}`);
    printCleanup(cleanup);
    return false;
  }
  endStep();
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Local

function createLocal(options, config, originalText) {
  const scope = SCOPES.local;
  const names = tenantNames(options.name);
  const registry = checkNotTaken(config, scope, names, options.configPath);
  const database = d1Block(names.dbBinding, names.databaseName, randomUUID());
  const migrateArgs = migrateArgsFor(names.databaseName, options);
  const entry = { db: names.dbBinding, vectors: names.vectorsBinding, ...settingsOf(options) };
  const changeFor = (keySha256) => ({
    database,
    registry: { ...registry, [names.name]: { ...entry, key_sha256: keySha256 } },
  });

  if (options.dryRun) {
    const plannedText = planConfig(
      originalText,
      scope,
      changeFor("<sha256 of the new key>"),
      options.configPath,
    );
    const steps = [KEY_STEP, `write ${options.configPath} (diff below)`, commandLine(migrateArgs)];
    const diffNote = " (a real run stores the new key's SHA-256)";
    printDryRun(options, { steps, after: "print the key once", diffNote }, originalText, plannedText);
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
  const newText = planConfig(originalText, scope, changeFor(sha256), options.configPath);
  endStep();

  startStep(3, total, `Registering '${names.name}' in ${scope.varsLabel} TENANTS and writing the config`);
  writeFileAtomic(options.configPath, newText);
  endStep();

  startStep(4, total, `Creating local D1 database ${names.databaseName} and applying migrations`);
  if (!applyMigrations(migrateArgs, options, originalText)) return 1;

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

// Plans are made with this in place of the id before touching Cloudflare, so a config that cannot be
// edited fails with nothing created.
const PLACEHOLDER_ID = "<database_id printed by wrangler d1 create>";

function checkWranglerInstalled() {
  if (!existsSync(wranglerBin)) fail(`wrangler is not installed (${wranglerBin}); run npm install first.`);
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
  const migrateArgs = migrateArgsFor(names.databaseName, options);
  const secretArgs = ["secret", "put", names.keySecret, ...envArgs, ...options.configArgs];
  const entry = {
    db: names.dbBinding,
    vectors: names.vectorsBinding,
    key_secret: names.keySecret,
    ...settingsOf(options),
  };
  const changeFor = (databaseId) => ({
    database: d1Block(names.dbBinding, names.databaseName, databaseId),
    vectorize: { binding: names.vectorsBinding, index_name: names.indexName },
    registry: { ...registry, [names.name]: entry },
  });

  const plannedText = planConfig(originalText, scope, changeFor(PLACEHOLDER_ID), options.configPath);
  const total = 6;

  if (options.dryRun) {
    const steps = [
      KEY_STEP,
      commandLine(createDbArgs),
      commandLine(createIndexArgs),
      `write ${options.configPath} (diff below)`,
      commandLine(migrateArgs),
      `${commandLine(secretArgs)}   (stdin: the key's SHA-256)`,
    ];
    printDryRun(
      options,
      { steps, after: `print the key once, and deploy with: ${deployLine()}` },
      originalText,
      plannedText,
    );
    return 0;
  }

  checkWranglerInstalled();
  console.log(
    `Creating production tenant '${names.name}' on Cloudflare, configured in ${options.configPath}\n`,
  );
  const cleanup = [];

  startStep(1, total, "Generating API key");
  const { key, sha256 } = newKey();
  endStep();

  startStep(2, total, `Creating D1 database ${names.databaseName}`);
  const databaseId = createRemoteDatabase(createDbArgs, names.databaseName, options, cleanup);
  if (!databaseId) return 1;

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
    printCleanup(cleanup);
    return 1;
  }
  cleanup.push(["vectorize", "delete", names.indexName, ...options.configArgs]);
  endStep();

  startStep(4, total, `Adding bindings and registering '${names.name}' in ${scope.varsLabel} TENANTS`);
  const textFor = () => planConfig(originalText, scope, changeFor(databaseId), options.configPath);
  if (!writeAfterCreating(options, textFor, cleanup)) return 1;

  startStep(5, total, `Applying migrations to remote D1 database ${names.databaseName}`);
  if (!applyMigrations(migrateArgs, options, originalText)) {
    printCleanup(cleanup);
    return 1;
  }

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

  printKey(names.name, key, ["", "Deploy to make the tenant live:", `  ${deployLine()}`]);
  return 0;
}

// ---------------------------------------------------------------------------------------------------
// More databases for a tenant, local or remote

function afterRegistryChange(options) {
  return options.remote
    ? `Deploy to make it take effect: ${deployLine()}`
    : "Restart `npm run dev` if it is running.";
}

async function addDatabase(options, config, originalText) {
  const scope = options.remote ? SCOPES.remote : SCOPES.local;
  const names = tenantNames(options.name);
  const { registry, entry } = findTenant(config, scope, names.name, options.configPath);
  const next = nextDatabase(config, scope, names, entry);
  const moreDbs = [...(entry.more_dbs ?? []), next.binding];
  const createDbArgs = ["d1", "create", next.databaseName, ...options.configArgs];
  const migrateArgs = migrateArgsFor(next.databaseName, options);
  const changeFor = (databaseId) => ({
    database: d1Block(next.binding, next.databaseName, databaseId),
    registry: { ...registry, [names.name]: { ...entry, more_dbs: moreDbs } },
  });
  const plannedText = planConfig(
    originalText,
    scope,
    changeFor(options.remote ? PLACEHOLDER_ID : randomUUID()),
    options.configPath,
  );
  const writeStep = `Adding D1 binding ${next.binding} (${next.databaseName}) to the ${scope.label} tenants block and to '${names.name}'.more_dbs in ${scope.varsLabel} TENANTS`;

  if (options.dryRun) {
    const steps = [
      ...(options.remote ? [commandLine(createDbArgs)] : []),
      `write ${options.configPath} (diff below)`,
      commandLine(migrateArgs),
    ];
    const after = options.remote ? `deploy with: ${deployLine()}` : undefined;
    printDryRun(options, { steps, after }, originalText, plannedText);
    return 0;
  }

  if (options.remote) checkWranglerInstalled();
  console.log(`Adding a D1 database to ${scope.label} tenant '${names.name}' in ${options.configPath}\n`);
  const total = options.remote ? 3 : 2;
  let step = 0;
  let textFor = () => plannedText;
  const cleanup = [];
  if (options.remote) {
    startStep(++step, total, `Creating D1 database ${next.databaseName}`);
    const databaseId = createRemoteDatabase(createDbArgs, next.databaseName, options, cleanup);
    if (!databaseId) return 1;
    textFor = () => planConfig(originalText, scope, changeFor(databaseId), options.configPath);
  }

  startStep(++step, total, writeStep);
  if (!writeAfterCreating(options, textFor, cleanup)) return 1;

  startStep(
    ++step,
    total,
    `Applying migrations to ${options.remote ? "remote" : "local"} D1 database ${next.databaseName}`,
  );
  if (!applyMigrations(migrateArgs, options, originalText)) {
    printCleanup(cleanup);
    return 1;
  }

  const closed = new Set(entry.closed_dbs ?? []);
  const open = [...tenantDatabases(entry), next.binding].filter((binding) => !closed.has(binding));
  console.log(
    `\nNew projects of '${names.name}' are now spread over: ${open.join(", ")} (those under 80% of its ` +
      "db_limit_bytes while any is: GET /v1/tenants/<name>/capacity).",
  );
  console.log(afterRegistryChange(options));
  return 0;
}

function closeDatabase(options, config, originalText) {
  const scope = options.remote ? SCOPES.remote : SCOPES.local;
  const { name, closeBinding: binding, configPath } = options;
  const { registry, entry } = findTenant(config, scope, name, configPath);
  const databases = tenantDatabases(entry);
  if (!databases.includes(binding)) {
    fail(
      `'${binding}' is not a database of tenant '${name}' in ${scope.varsLabel} TENANTS of ${configPath}; ` +
        `its databases are ${databases.join(", ")}.`,
    );
  }
  const closed = entry.closed_dbs ?? [];
  if (closed.includes(binding)) {
    console.log(`${binding} is already closed for tenant '${name}'; nothing to change.`);
    return 0;
  }
  const open = databases.filter((database) => database !== binding && !closed.includes(database));
  if (open.length === 0) {
    fail(
      `Closing ${binding} would leave tenant '${name}' no open database for new projects; add one first ` +
        `with npm run tenant:create -- ${name} --add-database${options.remote ? " --remote" : ""}.`,
    );
  }
  const change = { registry: { ...registry, [name]: { ...entry, closed_dbs: [...closed, binding] } } };
  const newText = planConfig(originalText, scope, change, configPath);

  if (options.dryRun) {
    const steps = [`write ${configPath} (diff below)`];
    const after = options.remote ? `deploy with: ${deployLine()}` : undefined;
    printDryRun(options, { steps, after }, originalText, newText);
    return 0;
  }
  writeFileAtomic(configPath, newText);
  console.log(
    `Closed ${binding} for tenant '${name}' in ${scope.varsLabel} TENANTS of ${configPath}: it keeps its ` +
      `projects and takes no new ones. New projects go to: ${open.join(", ")}.`,
  );
  console.log(afterRegistryChange(options));
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
  if (options.action === "add-database") return await addDatabase(options, config, originalText);
  if (options.action === "close-db") return closeDatabase(options, config, originalText);
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
