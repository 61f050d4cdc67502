// `npm run bench:mentions [-- --data DIR] [--sets locomo,beam,wild,statebench] [--verbose]`
//
// What the message mention path (src/entities/message-mentions.ts) would add to an empty registry from
// the dev conversations (LoCoMo conv-26/conv-41, BEAM chats 1–3, the wild timelines, and with --sets
// the StateBench dev timelines' turns): every turn read in
// order, one message per extraction run, with the same rules, bounds and thresholds as the write path.
// Prints, per conversation, the entities it would create and the reviews it would open, for judging
// the rules' precision by hand (issue 17). Offline and deterministic; figures only, no assertions.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_ENTITY_THRESHOLDS } from "../src/domain/entities";
import { MemoryRegistry } from "../src/entities/memory-registry";
import { ruleMentions } from "../src/entities/mentions/rule-mention-extractor";
import {
  exactHolder,
  type MentionedMessage,
  messageMentionInput,
  messageMentions,
} from "../src/entities/message-mentions";
import { resolveMentions } from "../src/entities/resolution/resolve";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
/** The data sets, by default ../shared/data beside the repository (as bench:all reads them). */
const data = option("--data") ?? fileURLToPath(new URL("../../shared/data", import.meta.url));
const sets = new Set((option("--sets") ?? "locomo,beam,wild").split(","));
const verbose = args.includes("--verbose");

type Turn = Pick<MentionedMessage, "role" | "content">;

function locomo(file: string): Turn[] {
  const parsed = JSON.parse(readFileSync(file, "utf8"));
  const conversation = (parsed.conversation ?? parsed) as Record<string, unknown>;
  return Object.keys(conversation)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]))
    .flatMap((k) => (conversation[k] as { text: string }[]).map((t) => ({ role: "user", content: t.text })));
}

function beam(dir: string): Turn[] {
  const batches = JSON.parse(readFileSync(join(dir, "chat.json"), "utf8")) as { turns: unknown[] }[];
  return batches.flatMap((batch) =>
    (batch.turns.flat() as { role: string; content: unknown }[])
      .filter((t) => typeof t?.content === "string")
      .map((t) => ({
        role: t.role === "assistant" ? "assistant" : "user",
        content: (t.content as string).replace(/\s*->->\s*\d+\s*,\s*\d+\s*$/, ""),
      })),
  );
}

function timelines(file: string, set: string): { name: string; turns: Turn[] }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map((timeline) => ({
      name: `${set} ${timeline.id}`,
      turns: (timeline.events as { type: string; speaker?: string; text?: string }[])
        .filter((e) => e.type === "conversation_turn" && typeof e.text === "string")
        .map((e) => ({ role: e.speaker === "assistant" ? "assistant" : "user", content: e.text as string })),
    }));
}

const conversations: { name: string; turns: Turn[] }[] = [
  ...(sets.has("locomo")
    ? ["conv-26", "conv-41"].map((c) => ({
        name: `locomo ${c}`,
        turns: locomo(join(data, "locomo", `${c}.json`)),
      }))
    : []),
  ...(sets.has("beam")
    ? readdirSync(join(data, "beam"))
        .sort()
        .map((c) => ({ name: `beam ${c}`, turns: beam(join(data, "beam", c)) }))
    : []),
  ...(sets.has("wild") ? timelines(join(data, "wild", "dev.jsonl"), "wild") : []),
  ...(sets.has("statebench") ? timelines(join(data, "statebench", "dev.jsonl"), "statebench") : []),
];

const thresholds = DEFAULT_ENTITY_THRESHOLDS;
const totals = { created: 0, reviews: 0, weakLinks: 0 };
/** Sets of many short timelines (wild, StateBench), each timeline a project of its own: totals per set. */
const perSet = new Map<string, { created: number; reviews: number }>();
for (const { name, turns } of conversations) {
  const registry = new MemoryRegistry();
  const created: string[] = [];
  const reviews: string[] = [];
  let weakLinks = 0;
  for (const [i, turn] of turns.entries()) {
    const input = messageMentionInput(turn);
    if (!input) continue;
    const mentions = messageMentions(ruleMentions(input), turn.role);
    const context = { threadId: name, userId: "u1" };
    const strong = mentions.filter((m) => m.strength === "strong");
    const plan = resolveMentions(
      [{ key: String(i), mentions: strong, context, provenance: { thread_id: name } }],
      registry,
      thresholds,
    );
    for (const entity of plan.created) {
      if (entity.status !== "active") continue;
      const written = strong.find((m) => m.name === entity.canonicalName)?.text ?? entity.canonicalName;
      const at = turn.content.indexOf(written);
      const around =
        verbose && at >= 0
          ? `  «${turn.content.slice(Math.max(0, at - 60), at + written.length + 40).replace(/\s+/g, " ")}»`
          : "";
      created.push(`${entity.canonicalName} [${entity.type}]${around}`);
    }
    for (const review of plan.reviews) {
      const pending = registry.get(review.entityId);
      const candidate = registry.get(review.candidateId);
      reviews.push(`${pending?.canonicalName} ~ ${candidate?.canonicalName} (${review.score})`);
    }
    for (const mention of mentions.filter((m) => m.strength === "weak")) {
      if (exactHolder(mention, registry, context, thresholds)) weakLinks++;
    }
  }
  totals.created += created.length;
  totals.reviews += reviews.length;
  totals.weakLinks += weakLinks;
  const set = name.split(" ")[0] as string;
  if (set === "wild" || set === "statebench") {
    const sum = perSet.get(set) ?? { created: 0, reviews: 0 };
    sum.created += created.length;
    sum.reviews += reviews.length;
    perSet.set(set, sum);
    if (!verbose) continue;
  }
  console.log(
    `${name}: ${turns.length} turns, ${created.length} entities, ${reviews.length} reviews, ${weakLinks} weak references`,
  );
  for (const c of created) console.log(`  + ${c}`);
  for (const r of reviews) console.log(`  ? ${r}`);
}
for (const [set, sum] of perSet)
  console.log(`${set} (all timelines): ${sum.created} entities, ${sum.reviews} reviews`);
console.log(
  `total: ${totals.created} entities, ${totals.reviews} reviews, ${totals.weakLinks} weak references`,
);
