// A BEAM chat (../shared/data/beam/chat-N: chat.json and probing_questions.json) as the evidence benches
// (scripts/lib/evidence-bench.mjs) read a conversation: turns with a stable id, role, time and text, and
// questions with their evidence turn ids. BEAM marks a knowledge update by its category,
// knowledge_update, whose `source_chat_ids` name the turn that first stated the value (`original_info`)
// and the turn that changed it (`updated_info`); those questions carry them as `update`.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
/** The schema's bound on a message's content (1 MiB of text); a longer turn is cut to it (and scored as cut). */
const MAX_CONTENT = 1_048_576;

/** "March-15-2024" → epoch ms (UTC). */
function parseAnchor(text) {
  const match = /^([A-Za-z]+)-(\d{1,2})-(\d{4})$/.exec(text ?? "");
  if (!match) return undefined;
  const month = MONTHS.indexOf(match[1].toLowerCase().slice(0, 3));
  return month < 0 ? undefined : Date.UTC(Number(match[3]), month, Number(match[2]), 9);
}

/** Every turn id a question names, whatever its shape (a list, or lists under keys for updates). */
function evidenceIds(ids) {
  if (Array.isArray(ids)) return ids.flatMap(evidenceIds);
  if (ids && typeof ids === "object") return Object.values(ids).flatMap(evidenceIds);
  return ids === undefined || ids === null ? [] : [String(ids)];
}

/** The original and updated turns of a knowledge update; undefined when the question names no pair. */
function updateOf(ids) {
  if (!ids?.original_info || !ids?.updated_info) return undefined;
  return { original: evidenceIds(ids.original_info), updated: evidenceIds(ids.updated_info) };
}

export function loadBeamChat(dir) {
  const batches = JSON.parse(readFileSync(join(dir, "chat.json"), "utf8"));
  const probing = JSON.parse(readFileSync(join(dir, "probing_questions.json"), "utf8"));
  const turns = [];
  // Turns are a minute apart from their session's anchor date; a new anchor starts a new day.
  let clock = Date.UTC(2024, 0, 1, 9);
  for (const batch of batches) {
    for (const turn of batch.turns.flat()) {
      if (typeof turn?.content !== "string") continue;
      const anchor = parseAnchor(turn.time_anchor);
      if (anchor !== undefined && anchor > clock) clock = anchor;
      clock += 60_000;
      const content =
        turn.content.replace(/\s*->->\s*\d+\s*,\s*\d+\s*$/, "").slice(0, MAX_CONTENT) || "(no text)";
      turns.push({
        dia: String(turn.id),
        role: turn.role === "assistant" ? "assistant" : "user",
        speaker: turn.role === "assistant" ? "assistant" : "user",
        text: content,
        content,
        ts: new Date(clock).toISOString(),
      });
    }
  }
  const questions = Object.entries(probing).flatMap(([category, list]) =>
    list
      .filter((q) => typeof q.question === "string")
      .map((q) => ({
        question: q.question,
        category,
        evidence: [...new Set(evidenceIds(q.source_chat_ids))],
        update: updateOf(q.source_chat_ids),
      })),
  );
  return { sample: dir, turns, questions, note: "BEAM probing questions" };
}
