import { z } from "zod";
import { ENTITY_TYPES, type Mention } from "../domain/entities";
import { nameWords, normalizeName } from "../entities/names";
import type { MentionExtractor, MentionInput } from "../ports/mention-extractor";
import { type ChatTransport, parseItems } from "./llm-extractor";

/**
 * The LLM adapter of the MentionExtractor port (issue 17 item 1): a chat model, through the same
 * transports as the state extractor (Workers AI, chat-completions), reads the texts of a write for the
 * names of people, projects, documents, systems, places, roles, tools, organisations and teams.
 *
 * The rules stay the floor and the fallback. Every text gets the rules' mentions (with the identifiers,
 * the types and the strength the rules give them, tuned for precision on conversation); the model only
 * adds names the rules did not find. A transport error, a timeout or an answer that is not a JSON array
 * leaves a chunk of texts with the rules' mentions alone, and each entry of the answer is checked before
 * it is believed: a schema (zod), words that occur exactly so in the text they are said to come from, and
 * aliases only when that text also says them ("the chief financial officer (CFO)"). A false merge costs
 * more than a missed one, so what the model adds is strong (may create an entity) only when it types it
 * and it has two words or more; a single word it finds ("Sam") is weak, as the rules' is, and only refers
 * to an entity already going by exactly that name.
 */

export const MENTION_SYSTEM_PROMPT = `You find the names of specific things in texts: people, projects, documents, systems, places, roles, tools, organizations and teams.

Answer with a JSON array only, no prose, no markdown fences. One object per name:
{"input": <the number of the text>, "text": "<the words exactly as written in that text>", "type": "person|project|document|system|place|role|tool|organization|team|other", "aliases": ["<another name for it that the same text also uses>"]}

Rules:
- Only names of specific things. No pronouns, generic nouns, dates, amounts, headings or code.
- "text" must be copied exactly from the text numbered "input". Never invent or complete a name.
- "aliases" only when the same text names the thing in two ways, e.g. "chief financial officer (CFO)".
- Answer [] when a text names nothing.`;

/** Texts and characters one model call reads at most: a long write is asked in several calls. */
const MAX_INPUTS_PER_CALL = 40;
const MAX_CHARS_PER_CALL = 12_000;
/** Names the model may add per text, and their length at most (a longer "name" is a sentence). */
const MAX_ADDED_PER_TEXT = 12;
const MAX_NAME = 120;

const modelMention = z.object({
  input: z.number().int().min(0),
  text: z.string().trim().min(1).max(MAX_NAME),
  type: z.enum(ENTITY_TYPES),
  aliases: z.array(z.string().trim().min(1).max(MAX_NAME)).max(5).catch([]),
});

/** The user prompt: each text with its number and where it came from, fenced so that no text can end another. */
export function mentionUserPrompt(inputs: readonly MentionInput[]): string {
  return inputs
    .map((input, i) => `<text input="${i}" origin="${input.origin}">\n${input.text}\n</text>`)
    .join("\n\n");
}

/** The name under which a model's words would be registered: without a leading article or "our". */
const LEADING = /^(?:the|our|a|an)\s+/i;

export class LlmMentionExtractor implements MentionExtractor {
  readonly name: string;

  constructor(
    private readonly transport: ChatTransport,
    private readonly rules: MentionExtractor,
    private readonly timeoutMs = 15_000,
  ) {
    this.name = `llm:${transport.name}`;
  }

  async extract(inputs: readonly MentionInput[]): Promise<Mention[][]> {
    const found = (await this.rules.extract(inputs)).map((mentions) => [...mentions]);
    for (const chunk of chunks(inputs)) {
      const added = await this.ask(chunk.map((i) => inputs[i] as MentionInput));
      if (!added) continue;
      for (const [offset, mentions] of added.entries()) {
        const index = chunk[offset] as number;
        found[index] = [...(found[index] ?? []), ...beyond(found[index] ?? [], mentions)];
      }
    }
    return found;
  }

  /** The model's mentions of each text of one call, checked; null when the call or its answer failed. */
  private async ask(inputs: readonly MentionInput[]): Promise<Mention[][] | null> {
    let raw: string;
    try {
      raw = await this.transport.complete(
        MENTION_SYSTEM_PROMPT,
        mentionUserPrompt(inputs),
        AbortSignal.timeout(this.timeoutMs),
      );
    } catch (error) {
      console.warn("mention extractor unavailable; the rules read these texts", this.name, error);
      return null;
    }
    const parsed = parseItems(raw);
    if (!parsed) {
      console.warn("mention extractor answered no JSON array; the rules read these texts", this.name);
      return null;
    }
    const out: Mention[][] = inputs.map(() => []);
    for (const entry of parsed) {
      const valid = modelMention.safeParse(entry);
      if (!valid.success) continue;
      const input = inputs[valid.data.input];
      const list = out[valid.data.input];
      if (!input || !list || list.length >= MAX_ADDED_PER_TEXT) continue;
      const mention = checked(valid.data, input);
      if (mention) list.push(mention);
    }
    return out;
  }
}

/** A model's entry as a mention, when the text says its words exactly so; undefined otherwise. */
function checked(entry: z.infer<typeof modelMention>, input: MentionInput): Mention | undefined {
  if (!input.text.includes(entry.text)) return undefined;
  const name = entry.text.replace(LEADING, "").trim();
  if (!normalizeName(name)) return undefined;
  const type = entry.type === "other" && input.hint ? input.hint : entry.type;
  const aliases = [...new Set(entry.aliases)].filter(
    (alias) =>
      input.text.includes(alias) && normalizeName(alias) && normalizeName(alias) !== normalizeName(name),
  );
  const typed = type !== "other" && nameWords(normalizeName(name)).length >= 2;
  return {
    text: entry.text,
    name,
    type,
    strength: typed ? "strong" : "weak",
    aliases,
    metadata: {},
    origin: input.origin,
  };
}

/**
 * The model's mentions the rules did not find: a name equal to, inside or around one the rules found
 * (their "Project Atlas" for its "Atlas") is theirs, with the identifiers and type they read.
 */
function beyond(rules: readonly Mention[], model: readonly Mention[]): Mention[] {
  const words = (name: string) => ` ${nameWords(normalizeName(name)).join(" ")} `;
  const known = rules.map((m) => words(m.name));
  const seen = new Set<string>();
  return model.filter((m) => {
    const own = words(m.name);
    if (seen.has(own) || known.some((k) => k.includes(own) || own.includes(k))) return false;
    seen.add(own);
    return true;
  });
}

/** The inputs' indexes in calls of at most MAX_INPUTS_PER_CALL texts and MAX_CHARS_PER_CALL characters. */
function chunks(inputs: readonly MentionInput[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let chars = 0;
  for (const [i, input] of inputs.entries()) {
    if (
      current.length &&
      (current.length >= MAX_INPUTS_PER_CALL || chars + input.text.length > MAX_CHARS_PER_CALL)
    ) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(i);
    chars += input.text.length;
  }
  if (current.length) out.push(current);
  return out;
}
