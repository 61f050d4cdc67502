/**
 * Pass 10, emit the envelope in the shape a provider takes, with the static prefix first and marked,
 * so a caller can see (prefix_hash) whether the provider's prompt cache will hit.
 */

import { sha256Hex } from "../../items/sha256";
import { isStaticZone, orderZones, type ZoneBlock, type ZoneName } from "./zones";

export const OUTPUT_FORMATS = ["text", "openai", "anthropic"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface OpenAIMessage {
  role: "system" | "user";
  content: string;
}

export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: { type: "ephemeral" };
}

export interface AnthropicEnvelope {
  system: AnthropicTextBlock[];
  messages: { role: "user"; content: AnthropicTextBlock[] }[];
}

export interface CacheInfo {
  /** sha256 (hex) of the static prefix text: equal hashes mean the same cacheable prefix. */
  prefix_hash: string;
  static_prefix_tokens?: number;
  dynamic_tokens?: number;
}

export interface EmittedContext {
  /** The whole envelope as one string, static zones first; present in every format. */
  context: string;
  messages?: OpenAIMessage[];
  anthropic?: AnthropicEnvelope;
  cache: CacheInfo;
}

const BLOCK_SEPARATOR = "\n\n";

function joinZone(blocks: ZoneBlock[]): string {
  return blocks
    .map((b) => b.text)
    .filter((t) => t.length > 0)
    .join(BLOCK_SEPARATOR);
}

/**
 * Renders ordered zones. `text` is one string; `openai` puts the static zones in the first system
 * message and the dynamic zones in a second one appended after it, so the top message (the cached
 * prefix) is never edited when per-request context changes (seed 001); `anthropic` gives each static
 * zone a system text block, puts cache_control on the last of them (the static boundary) and carries
 * the dynamic zones as a user turn, keeping retrieved data out of the system prompt.
 */
export function emitFormat(
  blocks: readonly ZoneBlock[],
  format: OutputFormat,
  memos: EmitFormatMemos,
  countTokens?: (text: string) => number,
  /** The whole text's count when the caller already has it: the dynamic part is then not counted again. */
  totalTokens?: number,
): EmittedContext {
  const ordered = orderZones(blocks);
  const staticBlocks = ordered.filter((b) => isStaticZone(b.zone));
  const dynamicBlocks = ordered.filter((b) => !isStaticZone(b.zone));
  const staticText = joinZone(staticBlocks);
  const dynamicText = joinZone(dynamicBlocks);
  const context = [staticText, dynamicText].filter((t) => t.length > 0).join(BLOCK_SEPARATOR);

  const cache: CacheInfo = { prefix_hash: prefixHash(staticText, memos) };
  if (countTokens) {
    cache.static_prefix_tokens = staticText ? countTokens(staticText) : 0;
    cache.dynamic_tokens = !dynamicText
      ? 0
      : totalTokens === undefined
        ? countTokens(dynamicText)
        : Math.max(0, totalTokens - cache.static_prefix_tokens);
  }

  if (format === "openai") {
    const messages: OpenAIMessage[] = [];
    if (staticText) messages.push({ role: "system", content: staticText });
    if (dynamicText) messages.push({ role: "system", content: dynamicText });
    return { context, messages, cache };
  }
  if (format === "anthropic") {
    const system: AnthropicTextBlock[] = staticZoneTexts(staticBlocks).map((text) => ({
      type: "text",
      text,
    }));
    const boundary = system.at(-1);
    if (boundary) boundary.cache_control = { type: "ephemeral" };
    const messages: AnthropicEnvelope["messages"] = dynamicText
      ? [{ role: "user", content: [{ type: "text", text: dynamicText }] }]
      : [];
    return { context, anthropic: { system, messages }, cache };
  }
  return { context, cache };
}

/** The memo tables this file reads (CompilerMemos holds them). */
export interface EmitFormatMemos {
  /** The last prefix hashed: the static prefix stays the same from compile to compile, by design. */
  lastPrefix: { text: string; hash: string } | undefined;
}

function prefixHash(text: string, memos: EmitFormatMemos): string {
  if (memos.lastPrefix?.text !== text) memos.lastPrefix = { text, hash: sha256Hex(text) };
  return memos.lastPrefix.hash;
}

/** One text per non-empty static zone, in zone order; their concatenation is the hashed prefix. */
function staticZoneTexts(staticBlocks: ZoneBlock[]): string[] {
  const byZone = new Map<ZoneName, ZoneBlock[]>();
  for (const block of staticBlocks) byZone.set(block.zone, [...(byZone.get(block.zone) ?? []), block]);
  return [...byZone.values()].map(joinZone).filter((t) => t.length > 0);
}
