import { z } from "zod";
import { EXTRACTION_SYSTEM_PROMPT, extractionUserPrompt } from "../extraction/llm-prompt";
import {
  type CandidateItem,
  CONFIDENCES,
  type ExtractionInput,
  type ExtractionOutput,
  type Extractor,
  STATE_ITEM_TYPES,
} from "../items/types";

/**
 * The LLM adapter of the Extractor port (seed 002, phase A). It asks a chat model for a JSON array of
 * items, keeps the ones that validate, and leaves every decision to the deterministic reconciler.
 * Scope and classification are not the model's to decide: candidates keep the run's open scope.
 */
export interface ChatTransport {
  readonly name: string;
  complete(system: string, user: string, signal: AbortSignal): Promise<string>;
}

/** A transport failure the queue should retry (rate limit, server error, timeout). */
export class ExtractorUnavailable extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

const llmItem = z.object({
  type_tag: z.enum(STATE_ITEM_TYPES),
  text: z.string().trim().min(1).max(500),
  status: z.string().min(1).max(20),
  confidence: z.enum(CONFIDENCES).catch("medium"),
  topic_tags: z.array(z.string().min(1).max(40)).max(3).catch([]),
  refs: z.array(z.string()).min(1),
  supersedes: z.string().nullable().catch(null),
  conflict: z.boolean().catch(false),
});

/** Tolerates the fences and prose models add despite being told not to; anything else is malformed. */
export function parseItems(raw: string): unknown[] | null {
  const start = raw.indexOf("[");
  const end = raw.lastIndexOf("]");
  if (start === -1 || end < start) return null;
  try {
    const parsed: unknown = JSON.parse(raw.slice(start, end + 1));
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export class LlmExtractor implements Extractor {
  readonly name: string;

  constructor(
    private readonly transport: ChatTransport,
    private readonly timeoutMs = 15_000,
  ) {
    this.name = `llm:${transport.name}`;
  }

  async extract(input: ExtractionInput): Promise<ExtractionOutput> {
    const raw = await this.transport.complete(
      EXTRACTION_SYSTEM_PROMPT,
      extractionUserPrompt(input.messages, input.existing),
      AbortSignal.timeout(this.timeoutMs),
    );
    const parsed = parseItems(raw);
    if (!parsed) return { items: [], facts: [], dropped: 1, openScope: input.openScope };
    const allowed = new Set(input.messages.map((m) => m.id));
    const items: CandidateItem[] = [];
    let dropped = 0;
    for (const entry of parsed) {
      const valid = llmItem.safeParse(entry);
      const refs = valid.success ? valid.data.refs.filter((ref) => allowed.has(ref)) : [];
      if (!valid.success || refs.length === 0) {
        dropped++;
        continue;
      }
      items.push({
        ...valid.data,
        refs,
        scope: input.openScope?.scope ?? "global",
        scope_id: input.openScope?.scope_id ?? null,
        classification: "public",
        allow_roles: [],
      });
    }
    return { items, facts: [], dropped, openScope: input.openScope };
  }
}

/** Any OpenAI-compatible chat-completions endpoint (URL, model, key from a secret). */
export class ChatCompletionsTransport implements ChatTransport {
  readonly name: string;

  constructor(
    private readonly url: string,
    private readonly model: string,
    private readonly apiKey: string | undefined,
  ) {
    this.name = model;
  }

  async complete(system: string, user: string, signal: AbortSignal): Promise<string> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        signal,
        headers: {
          "content-type": "application/json",
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.model,
          temperature: 0,
          messages: [
            { role: "system", content: system },
            { role: "user", content: user },
          ],
        }),
      });
    } catch (error) {
      throw new ExtractorUnavailable(`chat completion failed: ${(error as Error).message}`, null);
    }
    if (!response.ok) {
      throw new ExtractorUnavailable(`chat completion answered ${response.status}`, response.status);
    }
    const body = (await response.json().catch(() => null)) as {
      choices?: { message?: { content?: unknown } }[];
    } | null;
    const content = body?.choices?.[0]?.message?.content;
    return typeof content === "string" ? content : "";
  }
}

/** Workers AI through the `AI` binding. */
export class WorkersAiTransport implements ChatTransport {
  readonly name: string;

  constructor(
    private readonly ai: Ai,
    private readonly model: string,
  ) {
    this.name = model;
  }

  async complete(system: string, user: string, signal: AbortSignal): Promise<string> {
    // Called through the binding so `run` keeps its receiver.
    const ai = this.ai as unknown as { run(model: string, input: unknown): Promise<{ response?: unknown }> };
    const timeout = new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(new ExtractorUnavailable("Workers AI timed out", null))),
    );
    const result = await Promise.race([
      ai.run(this.model, {
        messages: [
          { role: "system", content: system },
          { role: "user", content: user },
        ],
      }),
      timeout,
    ]);
    return typeof result.response === "string" ? result.response : JSON.stringify(result.response ?? "");
  }
}
