// `npm run bench:entities [-- --file cases.json] [--bind 0.95] [--review 0.70] [--verbose]
//                         [--authority] [--data DIR]`
//
// Merge precision and recall of entity resolution (src/entities) over a small labelled set
// (test/fixtures/entity-resolution.json: aliases, abbreviations, role descriptions, partial names,
// typos and near-miss names that must not merge), at seed 001's thresholds unless given others. A
// merge is a mention bound to an existing entity at or above the bind threshold; a review is a pending
// node. Offline and deterministic; figures only, no assertions.
// With --authority it then prints, beside them, the StateBench `authority_hierarchy` track on the dev and
// train splits (issue 17's measure: the share of queries whose context holds a lower authority's overridden
// value), each replayed by `bench:statebench --track authority_hierarchy` on a local dev server of its own.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_ENTITY_THRESHOLDS } from "../src/domain/entities";
import { type CaseFile, runCases } from "./lib/entity-cases";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const file =
  option("--file") ?? fileURLToPath(new URL("../test/fixtures/entity-resolution.json", import.meta.url));
const thresholds = {
  bind: Number(option("--bind") ?? DEFAULT_ENTITY_THRESHOLDS.bind),
  review: Number(option("--review") ?? DEFAULT_ENTITY_THRESHOLDS.review),
};

const figures = runCases(JSON.parse(readFileSync(file, "utf8")) as CaseFile, thresholds);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

console.log(
  `entity resolution: ${figures.cases} cases, thresholds bind ≥ ${thresholds.bind}, new ≤ ${thresholds.review}`,
);
console.log(`merge precision   ${pct(figures.precision)}  (false merges: ${figures.falseMerges.length})`);
console.log(`merge recall      ${pct(figures.recall)}`);
console.log(`pending reviews   ${figures.reviews}  (${figures.reviewsOnTarget} name the labelled entity)`);
console.log("\nby kind           cases  merged  right  reviews  new/skip");
const kinds = [...new Set(figures.results.map((r) => r.kind))];
for (const kind of kinds) {
  const rs = figures.results.filter((r) => r.kind === kind);
  const merged = rs.filter((r) => r.decision === "bind" && r.entity !== null);
  const right = merged.filter((r) => r.entity === r.expect);
  const reviews = rs.filter((r) => r.decision === "review").length;
  console.log(
    `${kind.padEnd(17)} ${String(rs.length).padStart(5)}  ${String(merged.length).padStart(6)}  ${String(right.length).padStart(5)}  ${String(reviews).padStart(7)}  ${String(rs.length - merged.length - reviews).padStart(8)}`,
  );
}
for (const miss of figures.falseMerges) {
  console.log(
    `FALSE MERGE: "${miss.mention}" in "${miss.text}" → ${miss.entity} (expected ${miss.expect ?? "no merge"})`,
  );
}
if (args.includes("--verbose")) {
  for (const r of figures.results) {
    console.log(
      `${r.decision.padEnd(7)} ${String(r.score ?? "").padEnd(6)} ${r.mention} → ${r.entity ?? "-"} (expect ${r.expect ?? "none"})`,
    );
  }
}

/** The `authority_hierarchy` track of one StateBench split, replayed by bench:statebench. */
interface TrackFigures {
  queries: number;
  leaks: number;
  leak_rate: number;
  recall: number;
}

function authorityTrack(file: string): TrackFigures | string {
  const out = join(mkdtempSync(join(tmpdir(), "tenure-entities-")), "statebench.json");
  const script = fileURLToPath(new URL("./bench-statebench.mjs", import.meta.url));
  const run = spawnSync(process.execPath, [script, file, "--track", "authority_hierarchy", "--json", out], {
    encoding: "utf8",
  });
  if (run.status !== 0 || !existsSync(out)) return `bench:statebench failed (exit ${run.status})`;
  const report = JSON.parse(readFileSync(out, "utf8")) as { tracks: Record<string, TrackFigures> };
  return report.tracks.authority_hierarchy ?? "no authority_hierarchy track in the split";
}

if (args.includes("--authority")) {
  const data = option("--data") ?? fileURLToPath(new URL("../../shared/data", import.meta.url));
  console.log("\nauthority_hierarchy (StateBench, lower authority's overridden value in the context)");
  console.log("split     queries  leaks  leak rate  must-mention recall");
  for (const split of ["dev", "train"]) {
    const found = authorityTrack(join(data, "statebench", `${split}.jsonl`));
    if (typeof found === "string") {
      console.log(`${split.padEnd(8)}  ${found}`);
      continue;
    }
    console.log(
      `${split.padEnd(8)}  ${String(found.queries).padStart(7)}  ${String(found.leaks).padStart(5)}  ${found.leak_rate.toFixed(3).padStart(9)}  ${found.recall.toFixed(3).padStart(19)}`,
    );
  }
}
