// `npm run dev [-- wrangler dev flags]`: applies D1 migrations to every local tenant database, then
// starts `wrangler dev` on the local defaults (local D1, Durable Objects, offline adapters, tenant dev).
import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { wranglerSpawn, wranglerSync } from "./wrangler.mjs";

const config = parse(readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8"));
for (const database of config.d1_databases ?? []) {
  console.log(`tenure: applying migrations to local D1 '${database.database_name}' (${database.binding})`);
  wranglerSync(["d1", "migrations", "apply", database.database_name, "--local"]);
}

const child = wranglerSpawn(["dev", ...process.argv.slice(2)]);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
