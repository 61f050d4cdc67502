import type { FactEvent } from "../domain/facts";
import { sha256Hex } from "../items/sha256";
import type { ExtractedFact } from "../items/types";

/** The bound of a client's event id (src/api/schemas/common.ts slugId), which an extracted id keeps too. */
const MAX_ID = 128;
/** A part that holds no separator and no character an id may not carry, so it goes in as it is. */
const PLAIN_PART = /^[A-Za-z0-9._-]+$/;
const NOT_ID = /[^A-Za-z0-9._:-]/g;
/** 96 bits of SHA-256: no two (thread, message, key) of a project meet by chance. */
const HASH_HEX = 24;

/**
 * The id of the fact extraction read under `key` from message `message` of `thread`. Facts are unique
 * per project and message ids only per thread, so the thread is part of it; and it is a function of the
 * three alone, so extracting the same message again (a redelivered job, a run redone after a crash)
 * yields the same id, which the write path counts as a duplicate.
 *
 * Readable when it can be: `xt:<thread>:<message>:<key>` when no part holds a `:` or a character ids do
 * not carry and the whole fits 128 characters; its three separators then tell the parts apart, so two
 * triples never share it. Otherwise `xh:<the same text made id-safe, cut>:<SHA-256 of the three
 * parts>`, where the hash keeps triples apart. Ids written before the thread was part of them
 * (`x:<message>:<key>`) stay as stored; new ids never start with `x:`, so none can meet an old one.
 */
export function extractedFactId(thread: string, message: string, key: string): string {
  const plain = `xt:${thread}:${message}:${key}`;
  if (plain.length <= MAX_ID && [thread, message, key].every((part) => PLAIN_PART.test(part))) return plain;
  const hash = sha256Hex(JSON.stringify([thread, message, key])).slice(0, HASH_HEX);
  const readable = `${thread}:${message}:${key}`.replace(NOT_ID, "_").slice(0, MAX_ID - HASH_HEX - 4);
  return `xh:${readable}:${hash}`;
}

/**
 * An extracted fact becomes an ordinary fact event, so it meets the same supersession, authority,
 * scope and permission rules as an explicit one. Its id derives from the thread, source message and key
 * (extractedFactId): extracting the same message twice yields the same ids, which D1 then counts as
 * duplicates.
 */
export function factEventFrom(fact: ExtractedFact, thread: string): FactEvent & { id: string; ts: string } {
  return {
    type: "fact",
    id: extractedFactId(thread, fact.ref, fact.key),
    key: fact.key,
    value: fact.value,
    ts: fact.ts,
    source: { type: "conversation", ...(fact.authority ? { authority: fact.authority } : {}) },
    scope: fact.scope,
    ...(fact.scope_id ? { scope_id: fact.scope_id } : {}),
    ...(fact.supersedes ? { supersedes: fact.supersedes } : {}),
    classification: fact.classification,
    ...(fact.allow_roles.length ? { allow_roles: fact.allow_roles } : {}),
  };
}
