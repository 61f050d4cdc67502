// `npm run bench:all [-- --data DIR] [--sets NAME[,NAME]] [--url URL] [--limit N] [--json FILE]
//   [--compare FILE]`
//
// Every dev set in ../shared/data/ in one table, the figure to look at before and after every change.
// One server serves every set (without --url the local dev server is started once, on a free port, and
// stopped afterwards); each set is measured by its own bench, given that server's --url:
//   statebench-dev, statebench-train  bench:statebench on statebench/dev.jsonl, train.jsonl (budget 8000):
//                     dead-track leak (share of dead-fact-track queries whose context holds a dead or
//                     forbidden phrase) and attainable must-mention recall over all tracks, beside a
//                     naive context (every fact value + the last 10 turns) and the whole transcript;
//   wild              bench:wild on wild/dev.jsonl (budget 8000): dead-value leak and attainable
//                     must-mention (phrases stated in the timeline's turns), beside the whole transcript
//                     and the last 10 turns;
//   locomo            bench:locomo on the locomo/ folder at 2,000 tokens: evidence recall micro-averaged
//                     over every question, beside BM25 and recency over the same turns, and how many
//                     conversations fall below BM25;
//   beam              bench:beam on the beam/ folder at 2,000 and 8,000 tokens: evidence recall of the
//                     probing questions' source turns beside BM25 and recency, knowledge updates at
//                     8,000 (updated turn present, only the stale turn present), and chats refused.
// Each figure has Tenure's value, the baselines' values, issue 16's target where it sets one and
// whether it is met; `*` marks each set's headline figure. `--json FILE` saves the run (with the commit
// it ran on); `--compare FILE` puts a run saved so, of an earlier commit, beside this one (before and
// the change). `--limit N` measures a slice (the first N timelines of a StateBench-format set, the
// first N questions of each conversation): for trying the command, not for judging a change.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { commaList, SERVER_OPTIONS, SERVER_USAGE, usageErrors, withServer } from "./lib/bench-cli.mjs";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const script = (name) => join(repoRoot, "scripts", name);
const LOCOMO_BUDGET = 2000;
const BEAM_BUDGETS = [2000, 8000];
const BEAM_UPDATE_BUDGET = 8000;

// ---------------------------------------------------------------------------------------------------
// The sets: how each is measured, and the rows it gives

const replayFigures = (set, r, { leakFigure, mentionFigure, baselines }) => [
  row(set, "dead_leak", leakFigure, r.dead_fact_tracks.leak_rate, {
    headline: true,
    baselines: Object.fromEntries(baselines.map((b) => [b, r.dead_fact_tracks[`${b}_leak_rate`]])),
  }),
  row(set, "must_mention", mentionFigure, r.all_tracks.recall, {
    baselines: Object.fromEntries(baselines.map((b) => [b, r.all_tracks[`${b}_recall`]])),
  }),
  ...(r.errors ? [row(set, "errors", "requests failed", r.errors, { count: true, target: { eq: 0 } })] : []),
];

const evidenceBaselines = (s) => ({ bm25: s.bm25, recency: s.recency });
const failedRow = (set, what, report) =>
  row(set, "failed", what, report.failed.length, { count: true, target: { eq: 0 } });

function statebenchSet(name, path) {
  return {
    path,
    replay: "bench-statebench.mjs",
    rows: (r) =>
      replayFigures(name, r, {
        leakFigure: "dead-track leak",
        mentionFigure: "must-mention (attainable, all tracks)",
        baselines: ["naive", "transcript"],
      }).map(withTargets({ dead_leak: { max: 0.05 }, must_mention: { min: 0.97 } })),
  };
}

const SETS = {
  "statebench-dev": statebenchSet("statebench-dev", "statebench/dev.jsonl"),
  "statebench-train": statebenchSet("statebench-train", "statebench/train.jsonl"),
  wild: {
    path: "wild/dev.jsonl",
    replay: "bench-wild.mjs",
    rows: (r) =>
      replayFigures("wild", r, {
        leakFigure: "dead-value leak",
        mentionFigure: "attainable must-mention",
        baselines: ["transcript", "naive"],
      }).map(withTargets({ dead_leak: { max: 0.1 }, must_mention: { min: 0.95 } })),
  },
  locomo: {
    path: "locomo",
    evidence: "bench-locomo.mjs",
    budgets: [LOCOMO_BUDGET],
    rows: (r) => {
      const b = r.micro.budgets[0];
      const below = r.conversations.filter((c) => c.budgets[0].overall.tenure < c.budgets[0].overall.bm25);
      return [
        row(
          "locomo",
          "recall@2000",
          `evidence recall @2k (micro, ${b.scored_questions} q)`,
          b.overall.tenure,
          {
            headline: true,
            baselines: evidenceBaselines(b.overall),
            target: { min: 0.72, overBm25: 0.1 },
          },
        ),
        row("locomo", "below_bm25@2000", "conversations below BM25 @2k", below.length, {
          count: true,
          target: { eq: 0 },
        }),
        failedRow("locomo", "conversations failed", r),
      ];
    },
  },
  beam: {
    path: "beam",
    evidence: "bench-beam.mjs",
    budgets: BEAM_BUDGETS,
    rows: (r) => {
      const at = (budget) => r.micro.budgets.find((b) => b.budget === budget);
      const recall = BEAM_BUDGETS.map((budget, i) =>
        row(
          "beam",
          `recall@${budget}`,
          `evidence recall @${budget / 1000}k (micro)`,
          at(budget).overall.tenure,
          {
            headline: i === 0,
            baselines: evidenceBaselines(at(budget).overall),
            target: { overBm25: 0.1 },
          },
        ),
      );
      const updates = at(BEAM_UPDATE_BUDGET).knowledge_updates;
      const k = `${BEAM_UPDATE_BUDGET / 1000}k`;
      const updateRows = updates
        ? [
            row(
              "beam",
              `ku_updated@${BEAM_UPDATE_BUDGET}`,
              `knowledge updates @${k}: updated present (${updates.n} q)`,
              updates.tenure.updated,
              {
                baselines: { bm25: updates.bm25.updated, recency: updates.recency.updated },
                target: { min: 0.9 },
              },
            ),
            row(
              "beam",
              `ku_stale@${BEAM_UPDATE_BUDGET}`,
              `knowledge updates @${k}: only the stale turn`,
              updates.tenure.stale_only,
              {
                baselines: { bm25: updates.bm25.stale_only, recency: updates.recency.stale_only },
                target: { max: 0.05 },
              },
            ),
          ]
        : [];
      return [...recall, ...updateRows, failedRow("beam", "chats refused or failed", r)];
    },
  },
};

const USAGE = `usage: npm run bench:all [-- options]   (one server serves every set)
  --data DIR         the data sets (default ../shared/data, beside the repository)
  --sets NAME[,NAME] only these sets: ${Object.keys(SETS).join(", ")}
${SERVER_USAGE}
  --limit N          a slice: the first N timelines, or N questions per conversation
  --json FILE        save the run (figures, commit) as JSON
  --compare FILE     print a run saved with --json beside this one`;

function row(set, key, figure, tenure, { headline = false, baselines = {}, target, count = false } = {}) {
  return { set, key, figure, headline, tenure, baselines, target, count };
}

const withTargets = (targets) => (r) => (targets[r.key] ? { ...r, target: targets[r.key] } : r);

/** Whether a figure meets its target; undefined without one. */
function met(r) {
  const t = r.target;
  if (!t || r.tenure === null || r.tenure === undefined) return undefined;
  if (t.eq !== undefined && r.tenure !== t.eq) return false;
  if (t.min !== undefined && r.tenure < t.min) return false;
  if (t.max !== undefined && r.tenure > t.max) return false;
  if (
    t.overBm25 !== undefined &&
    !(r.tenure >= (r.baselines.bm25 ?? Number.POSITIVE_INFINITY) + t.overBm25 - 1e-9)
  )
    return false;
  return true;
}

function describeTarget(t) {
  if (!t) return "";
  const parts = [];
  if (t.eq !== undefined) parts.push(`= ${t.eq}`);
  if (t.min !== undefined) parts.push(`≥ ${t.min.toFixed(2)}`);
  if (t.max !== undefined) parts.push(`≤ ${t.max.toFixed(2)}`);
  if (t.overBm25 !== undefined) parts.push(`≥ BM25+${t.overBm25.toFixed(2)}`);
  return parts.join(" and ");
}

// ---------------------------------------------------------------------------------------------------
// Running one set's bench against the shared server

/** Runs a bench script; resolves with its exit code and standard output (its progress goes to stderr). */
function runScript(file, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script(file), ...args], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(chunks).toString("utf8") }));
  });
}

async function measureSet(name, set, { data, url, common, limit, scratch }) {
  const path = join(data, set.path);
  const limitArgs = limit ? ["--limit", String(limit)] : [];
  process.stderr.write(`\n== ${name}: ${path}\n`);
  const started = Date.now();
  let report;
  let run;
  if (set.replay) {
    const out = join(scratch, `${name}.json`);
    run = await runScript(set.replay, [path, "--url", url, ...common, ...limitArgs, "--json", out]);
    try {
      report = JSON.parse(readFileSync(out, "utf8"));
    } catch {
      report = undefined;
    }
  } else {
    run = await runScript(set.evidence, [
      path,
      "--url",
      url,
      ...common,
      ...limitArgs,
      "--budgets",
      set.budgets.join(","),
      "--json",
    ]);
    try {
      report = JSON.parse(run.stdout);
    } catch {
      report = undefined;
    }
  }
  const seconds = (Date.now() - started) / 1000;
  if (!report) {
    const tail = run.stdout.trimEnd().split("\n").slice(-10).join("\n");
    return { name, path, seconds, exit_code: run.code, error: `no figures (exit code ${run.code})\n${tail}` };
  }
  return { name, path, seconds, exit_code: run.code, rows: set.rows(report), summary: summaryOf(report) };
}

/** What is kept of a set's report in the saved run: its figures, without per-query detail. */
function summaryOf(report) {
  if (report.micro) {
    return { micro: report.micro, conversations: report.conversations, failed: report.failed };
  }
  const { tracks, dead_fact_tracks, all_tracks, errors, seconds } = report;
  return { tracks, dead_fact_tracks, all_tracks, errors, seconds };
}

// ---------------------------------------------------------------------------------------------------
// The table

const fmt = (r, x) => {
  if (x === null || x === undefined) return "-";
  return r.count ? String(x) : x.toFixed(3);
};
const fmtDelta = (r, x) => {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  const text = r.count ? String(x) : x.toFixed(3);
  return x > 0 ? `+${text}` : text;
};

function printTable(rows, before) {
  const header = ["set", "figure", "tenure"];
  if (before) header.push("before", "change");
  header.push("baselines", "target", "met");
  const cells = rows.map((r) => {
    const earlier = before?.get(`${r.set}|${r.key}`);
    const baselines = Object.entries(r.baselines)
      .map(([name, value]) => `${name} ${fmt(r, value)}`)
      .join("  ");
    const verdict = met(r);
    const line = [r.set, `${r.headline ? "* " : "  "}${r.figure}`, fmt(r, r.tenure)];
    if (before) {
      const delta =
        earlier && r.tenure !== null && earlier.tenure !== null ? r.tenure - earlier.tenure : null;
      line.push(earlier ? fmt(r, earlier.tenure) : "-", fmtDelta(r, delta));
    }
    line.push(baselines, describeTarget(r.target), verdict === undefined ? "" : verdict ? "yes" : "MISSED");
    return line;
  });
  const numeric = new Set(["tenure", "before", "change"]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const render = (c) =>
    c
      .map((v, i) => (numeric.has(header[i]) ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  console.log(render(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  let previous;
  for (const [i, c] of cells.entries()) {
    if (previous !== undefined && rows[i].set !== previous) console.log("");
    previous = rows[i].set;
    console.log(render(c));
  }
}

function gitCommit() {
  const head = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" });
  const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  const commit = head.status === 0 ? head.stdout.trim() : "unknown";
  return status.status === 0 && status.stdout.trim() ? `${commit} (uncommitted changes)` : commit;
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const { fail, positiveInt, parse } = usageErrors("bench-all", USAGE);
  const { values } = parse(process.argv.slice(2), {
    data: { type: "string", default: join(repoRoot, "..", "shared", "data") },
    sets: { type: "string" },
    ...SERVER_OPTIONS,
    limit: { type: "string" },
    json: { type: "string" },
    compare: { type: "string" },
  });
  const names = values.sets ? commaList(values.sets) : Object.keys(SETS);
  for (const name of names) if (!SETS[name]) fail(`unknown set '${name}'`);
  const limit = values.limit === undefined ? undefined : positiveInt(values.limit, "limit");
  let before;
  let compared;
  if (values.compare) {
    try {
      compared = JSON.parse(readFileSync(values.compare, "utf8"));
    } catch (error) {
      fail(`cannot read ${values.compare}: ${error.message}`);
    }
    before = new Map(compared.sets.flatMap((s) => s.rows ?? []).map((r) => [`${r.set}|${r.key}`, r]));
  }

  const commit = gitCommit();
  const started = new Date();
  const scratch = mkdtempSync(join(tmpdir(), "tenure-bench-all-"));
  const common = ["--tenant", values.tenant, "--key", values.key];
  let sets;
  try {
    sets = await withServer("bench-all", values.url?.replace(/\/+$/, ""), async (url) => {
      const measured = [];
      for (const name of names)
        measured.push(await measureSet(name, SETS[name], { data: values.data, url, common, limit, scratch }));
      return measured;
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  console.log(
    `\nbench:all at commit ${commit}, ${started.toISOString()}, data ${values.data}` +
      (limit ? `; a SLICE (--limit ${limit}), not for judging a change` : ""),
  );
  if (compared) {
    console.log(
      `before: ${values.compare} (commit ${compared.commit}, ${compared.started}` +
        `${compared.limit ? `, a slice: --limit ${compared.limit}` : ""})`,
    );
  }
  printTable(
    sets.flatMap((s) => s.rows ?? []),
    before,
  );
  console.log(
    "\n* the set's headline figure. Leak and share figures are fractions of queries, recall of phrases or turns; " +
      "targets are issue 16's; naive = every fact value + last 10 turns, transcript = every turn before the query",
  );
  for (const s of sets) {
    console.log(
      `${s.name}: ${s.seconds.toFixed(0)} s` +
        (s.error ? `, FAILED: ${s.error}` : s.exit_code ? `, exit code ${s.exit_code} (see its rows)` : ""),
    );
  }
  if (values.json) {
    const saved = { commit, started: started.toISOString(), data: values.data, limit, sets };
    writeFileSync(values.json, `${JSON.stringify(saved, null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
  if (sets.some((s) => s.error)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`bench-all: ${error?.stack ?? error}`);
  process.exit(1);
});
