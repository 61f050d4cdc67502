import type { CompileTrace } from "./trace";

/**
 * A compiled context: the text within its token budget, the same content in a provider's message
 * shape when asked for, the cache key of its static prefix, and the trace of how it was compiled.
 */
export interface CompiledContext {
  context: string;
  tokens: number;
  budget_tokens: number;
  trace_id: string;
  sections: { name: string; tokens: number; items: number }[];
  /** format=openai: the static system message first, the per-request one after. */
  messages?: { role: "system" | "user"; content: string }[];
  /** format=anthropic: `system` blocks (the last marked for caching) and the per-request zones as a user turn. */
  anthropic?: {
    system: { type: "text"; text: string; cache_control?: { type: "ephemeral" } }[];
    messages: { role: "user"; content: { type: "text"; text: string }[] }[];
  };
  /** An unchanged prefix_hash (sha256 of zones 1-3) means the provider's prompt cache can be reused. */
  cache?: { prefix_hash: string; static_prefix_tokens?: number; dynamic_tokens?: number };
  trace: CompileTrace;
}
