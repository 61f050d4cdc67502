import type { EntityType, Mention, MentionOrigin } from "../domain/entities";

/**
 * The MentionExtractor port: finds the entity mentions (people, projects, documents, systems, places,
 * roles, tools) in texts, before resolution decides which canonical entity each one names. Adapters:
 * `RuleMentionExtractor` (offline rules, the default; src/entities/mentions) and `LlmMentionExtractor`
 * (src/adapters/llm-mention-extractor.ts: a tenant's chat model adding to the rules' mentions). Batched,
 * so a remote adapter makes few calls for a whole write.
 */
export interface MentionExtractor {
  /** Identifies the adapter in provenance ("rules"). */
  readonly name: string;
  /** The mentions of each input, in input order. */
  extract(inputs: readonly MentionInput[]): Promise<Mention[][]>;
}

/** One text to read, where it came from, and a type for names its words leave untyped. */
export interface MentionInput {
  text: string;
  origin: MentionOrigin;
  hint?: EntityType;
}
