// Architecture guards, run by `npm run lint` (and so by CI). See README "Architecture".
// TypeScript 7 ships no compiler API, so sources are parsed with swc.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle makes modules impossible to load, test or reason about one at a time.",
      from: {},
      to: { circular: true },
    },
    {
      name: "compiler-is-pure",
      severity: "error",
      comment:
        "The compiler receives plain domain data: it imports nothing from HTTP, the Durable Object, adapters or storage.",
      from: { path: "^src/compiler/" },
      to: {
        path: [
          "^src/api/",
          "^src/http/",
          "^src/thread/",
          "^src/adapters/",
          "^src/tenancy/",
          "^src/facts/fact-(schema|repository|rows|cache)\\.ts$",
          "^src/traces/trace-(schema|repository)\\.ts$",
          "^drizzle-orm",
          "^hono",
          "^cloudflare:",
        ],
      },
    },
    {
      name: "domain-below-everything",
      severity: "error",
      comment: "The domain vocabulary is the bottom layer: it imports only other domain modules and libraries.",
      from: { path: "^src/domain/" },
      to: { path: "^src/", pathNot: "^src/domain/" },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
    },
  ],
  options: {
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(test|scripts|node_modules)/" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
};
