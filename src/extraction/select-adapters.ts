import { HashingEmbedder } from "../adapters/hashing-embedder";
import {
  ChatCompletionsTransport,
  type ChatTransport,
  LlmExtractor,
  WorkersAiTransport,
} from "../adapters/llm-extractor";
import { LlmMentionExtractor } from "../adapters/llm-mention-extractor";
import { WorkersAiEmbedder } from "../adapters/workers-ai-embedder";
import { RuleMentionExtractor } from "../entities/mentions/rule-mention-extractor";
import type { Env } from "../env";
import type { Extractor } from "../items/types";
import type { Embedder } from "../ports/embedder";
import type { MentionExtractor } from "../ports/mention-extractor";
import type { Tenant } from "../tenancy/registry";
import { RuleExtractor } from "./rules/rule-extractor";

/**
 * Which adapters a thread uses. The offline ones are the default everywhere: they need no network,
 * are deterministic, and are what `wrangler dev` and the tests run. A tenant opts into an LLM
 * extractor in the registry; a configured binding or secret that is missing falls back to the rules.
 */
const rules = new RuleExtractor();
const hashing = new HashingEmbedder();

const ruleMentions = new RuleMentionExtractor();

/** The chat model the tenant configured, when its binding is there; undefined for the rules. */
function transportFor(tenant: Tenant, env: Env): ChatTransport | undefined {
  const config = tenant.extractor;
  const bindings = env as unknown as Record<string, unknown>;
  if (config?.kind === "chat-completions") {
    const key = config.key_secret ? bindings[config.key_secret] : undefined;
    return new ChatCompletionsTransport(config.url, config.model, typeof key === "string" ? key : undefined);
  }
  if (config?.kind === "workers-ai" && bindings.AI)
    return new WorkersAiTransport(bindings.AI as Ai, config.model);
  return undefined;
}

export function extractorFor(tenant: Tenant, env: Env): Extractor {
  const transport = transportFor(tenant, env);
  return transport ? new LlmExtractor(transport) : rules;
}

/**
 * Who reads the entity mentions of the tenant's facts and messages: the same chat model as its
 * extractor (the rules' mentions kept, and alone when the model fails), or the rules.
 */
export function mentionExtractorFor(tenant: Tenant, env: Env): MentionExtractor {
  const transport = transportFor(tenant, env);
  return transport ? new LlmMentionExtractor(transport, ruleMentions) : ruleMentions;
}

/** Workers AI embeddings when the deployment asks for them (TENURE_EMBEDDER) and has the binding. */
export function embedderFor(env: Env): Embedder {
  const bindings = env as unknown as Record<string, unknown>;
  if (bindings.TENURE_EMBEDDER === "workers-ai" && bindings.AI)
    return new WorkersAiEmbedder(bindings.AI as Ai);
  return hashing;
}
