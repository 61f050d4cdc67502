// `npx tsx scripts/bench-extract.ts [file.jsonl ...] [--rounds N]`
//
// Throughput of the offline rule extractor (src/extraction/rules). Reads every conversation turn of the
// StateBench files (default: ../shared/data/statebench/dev.jsonl and train.jsonl), runs
// `extractFromMessages` over each timeline's turns in one batch, several rounds, and prints
// messages/s, ms per message, and facts and items per message. Figures only; no assertions.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { extractFromMessages } from "../src/extraction/rules/rule-extractor";
import type { ExtractionInput, ExtractionMessage } from "../src/items/types";

// The evaluation data sits beside the repository, in ../shared.
const DEFAULT_FILES = ["dev.jsonl", "train.jsonl"].map((name) =>
  fileURLToPath(new URL(`../../shared/data/statebench/${name}`, import.meta.url)),
);

const args = process.argv.slice(2);
let rounds = 5;
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i] ?? "";
  if (arg === "--rounds") rounds = Math.max(1, Number(args[++i] ?? "5") || 5);
  else files.push(arg);
}
if (files.length === 0) files.push(...DEFAULT_FILES);

interface TimelineEvent {
  type: string;
  ts?: string;
  speaker?: string;
  text?: string;
}

const inputs: ExtractionInput[] = [];
for (const file of files) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const timeline = JSON.parse(line) as { id: string; events?: TimelineEvent[] };
    const messages: ExtractionMessage[] = [];
    for (const event of timeline.events ?? []) {
      if (event.type !== "conversation_turn" || typeof event.text !== "string") continue;
      const role =
        event.speaker === "assistant" ? "assistant" : event.speaker === "system" ? "system" : "user";
      messages.push({
        id: `${timeline.id}:${messages.length}`,
        ts: event.ts ?? "1970-01-01T00:00:00Z",
        role,
        speaker: null,
        content: event.text,
      });
    }
    if (messages.length) inputs.push({ messages, existing: [], existingFacts: [], openScope: null });
  }
}

const totalMessages = inputs.reduce((n, input) => n + input.messages.length, 0);
let facts = 0;
let items = 0;
let dropped = 0;
// One warm-up pass (JIT), which also gives the per-message yields.
for (const input of inputs) {
  const out = extractFromMessages(input);
  facts += out.facts.length;
  items += out.items.length;
  dropped += out.dropped;
}

const timings: number[] = [];
for (let round = 0; round < rounds; round++) {
  const start = performance.now();
  for (const input of inputs) extractFromMessages(input);
  timings.push(performance.now() - start);
}
timings.sort((a, b) => a - b);
const median = timings[Math.floor(timings.length / 2)] ?? 0;
const best = timings[0] ?? 0;
const fmt = (n: number, digits = 1) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

console.log(`files:               ${files.join(", ")}`);
console.log(`timelines:           ${inputs.length}`);
console.log(`messages per round:  ${totalMessages}`);
console.log(`rounds:              ${rounds} (after 1 warm-up)`);
console.log(`median round:        ${fmt(median, 2)} ms`);
console.log(`messages/s (median): ${fmt((totalMessages / median) * 1000, 0)}`);
console.log(`messages/s (best):   ${fmt((totalMessages / best) * 1000, 0)}`);
console.log(`ms per message:      ${fmt(median / totalMessages, 4)}`);
console.log(`facts per message:   ${fmt(facts / totalMessages, 3)}`);
console.log(`items per message:   ${fmt(items / totalMessages, 3)}`);
console.log(`dropped per message: ${fmt(dropped / totalMessages, 3)}`);
