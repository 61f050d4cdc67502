import type { EntityType } from "../domain/entities";
import type { MentionInput } from "../ports/mention-extractor";
import { keyWords } from "./mentions/key-mentions";
import { PERSON_KEYS } from "./mentions/words";

/** A fact's value as text: strings as they are, anything else as JSON. */
const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** The texts of a fact that mention entities: its key, and its value (naming people when the key says so). */
export function factMentionInputs(key: string, value: unknown): MentionInput[] {
  const words = keyWords(key);
  const hint: EntityType | undefined =
    PERSON_KEYS.has(words.join("_")) || PERSON_KEYS.has(words.at(-1) ?? "") ? "person" : undefined;
  return [
    { text: key, origin: "fact_key" },
    { text: asText(value), origin: "fact_value", ...(hint ? { hint } : {}) },
  ];
}
