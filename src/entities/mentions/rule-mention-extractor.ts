import type { Mention } from "../../domain/entities";
import type { MentionExtractor, MentionInput } from "../../ports/mention-extractor";
import { keyMentions } from "./key-mentions";
import { textMentions } from "./text-mentions";

/** The mentions of one input by the offline rules: keys as identifiers, everything else as text. */
export function ruleMentions(input: MentionInput): Mention[] {
  return input.origin === "fact_key"
    ? keyMentions(input.text)
    : textMentions(input.text, input.origin, input.hint);
}

/** The offline adapter of the MentionExtractor port: deterministic, no I/O. */
export class RuleMentionExtractor implements MentionExtractor {
  readonly name = "rules";

  async extract(inputs: readonly MentionInput[]): Promise<Mention[][]> {
    return inputs.map(ruleMentions);
  }
}
