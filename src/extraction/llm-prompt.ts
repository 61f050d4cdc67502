import type { ExtractionMessage, StateItem } from "../items/types";

/** The extraction instructions of seed 002, with its two worked examples. */
export const EXTRACTION_SYSTEM_PROMPT = `You are a structured state extractor. Given conversation messages and existing state, extract new or updated items.

Types: decision, constraint, action, question, risk. DO NOT invent new item types.

Each item: {"type_tag", "text", "status", "confidence", "topic_tags", "refs", "supersedes", "conflict"}

Rules:
- Only concrete, specific items. No vague observations.
- Reference existing items by UID. Do NOT repeat unchanged items.
- Only output NEW items or updates (supersede/conflict) supported by the new messages.
- refs must be message IDs from the provided transcript only. Never invent IDs.
- topic_tags: 1-3 short labels at most.
- Set supersedes ONLY with explicit change language (instead, replaced, switched, changed to, no longer).
- Otherwise set conflict=true for tensions.
- Return ONLY a JSON array. No prose. No markdown fences.

Examples:
Given:
[msg_a1] user: Let's use Redis for caching
[msg_a2] assistant: OK
Output:
[{"type_tag":"decision","text":"Use Redis for caching","status":"active","confidence":"high","topic_tags":["caching"],"refs":["msg_a1","msg_a2"],"supersedes":null,"conflict":false}]

Given:
[msg_b1] user: Let's switch to Memcached instead of Redis
Existing: [d_abc123] decision (active): Use Redis for caching
Output:
[{"type_tag":"decision","text":"Use Memcached for caching instead of Redis","status":"active","confidence":"high","topic_tags":["caching"],"refs":["msg_b1"],"supersedes":"d_abc123","conflict":false}]`;

export function extractionUserPrompt(messages: ExtractionMessage[], existing: StateItem[]): string {
  const state = existing.length
    ? existing.map((i) => `[${i.uid}] ${i.type_tag} (${i.status}): ${i.text}`).join("\n")
    : "(none)";
  const transcript = messages.map((m) => `[${m.id}] ${m.speaker ?? m.role}: ${m.content}`).join("\n");
  return `## Existing State (reference by UID — do NOT repeat unchanged items)\n${state}\n\n## New messages\n${transcript}`;
}
