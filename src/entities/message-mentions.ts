import { DEFAULT_ENTITY_THRESHOLDS, type EntityThresholds, type Mention } from "../domain/entities";
import type { MentionExtractor, MentionInput } from "../ports/mention-extractor";
import { type MessageLink, messageReferenceWrites, resolutionWrites } from "./entity-edits";
import { EntityRepository, registryEntities } from "./entity-repository";
import type { MemoryRegistry } from "./memory-registry";
import { RuleMentionExtractor } from "./mentions/rule-mention-extractor";
import { nameWords, normalizeName } from "./names";
import type { RegistryEntity } from "./registry-entity";
import type { ResolutionSource } from "./resolution/resolve";
import { type MentionContext, scoreCandidate } from "./resolution/score";
import { mentionNorms } from "./resolution/terms";
import { boundMentions, resolveSources, type Writer } from "./resolve-on-write";

/**
 * Mentions in a thread's messages and tool output (issue 17 item 1), resolved into the project's registry
 * on the write path (an extraction run), with a reference from each entity to the messages that name it.
 *
 * Conversation is noisier than facts, and a false merge costs more than a missed one, so a message adds
 * to the registry only what it names plainly: the rule extractor's strong mentions (addresses, paths,
 * document ids, roles, "the Kestrel service", "Project Atlas", a capitalised name inside a sentence)
 * resolve as a fact's do, at the tenant's thresholds (bind, review, or a new entity). A weak mention (a
 * lone capitalised word, a run of capitals opening a sentence or a line, a camel-case word) only refers
 * to an active entity that already goes by exactly that name, and to no other when two do: "Hi Sam"
 * creates nothing and is not sent to review. Fenced code is not read, a message is read up to
 * MAX_SCANNED characters, and each adds at most a few mentions, so pasted logs and code cannot flood the
 * registry. System messages are instructions, not conversation, and are not read.
 */

/** The message fields mention extraction reads. */
export interface MentionedMessage {
  id: string;
  /** Arrival order in the thread. */
  seq: number;
  role: "user" | "assistant" | "system" | "tool";
  content: string;
}

/** Characters of one message read; names are met early, and a longer message is a document or a log. */
const MAX_SCANNED = 4000;
/** Mentions one message adds at most, and of them strong ones (which may create entities). */
const MAX_MENTIONS_PER_MESSAGE = 12;
const MAX_STRONG_PER_MESSAGE = 4;
/** Fenced code blocks (``` or ~~~), an unclosed fence running to the end. */
const FENCED_CODE = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)/g;

/** What the extractor reads of a message: its text without code, bounded, by where it came from. */
export function messageMentionInput(
  message: Pick<MentionedMessage, "role" | "content">,
): MentionInput | null {
  if (message.role === "system") return null;
  const text = message.content.replace(FENCED_CODE, "\n").slice(0, MAX_SCANNED);
  return { text, origin: message.role === "tool" ? "tool_output" : "message" };
}

/**
 * The mentions a message may add, strong ones first, bounded. In an assistant's turn an untyped run of
 * capitals is weak: generated prose capitalises its headings, list items and terms ("**Compress
 * Assets**", "Internal Server Error"), so only what the words type (an address, a path, a role, "the
 * Kestrel service", a person who speaks) may create an entity there. So is a thing described in common
 * words ("your support team", "the migration repository", "your site dashboard"): an assistant advises
 * on kinds of things, where the user's "the ingest pipeline" is their own.
 */
export function messageMentions(
  extracted: readonly Mention[],
  role: MentionedMessage["role"] = "user",
): Mention[] {
  const read =
    role === "assistant"
      ? extracted.map((m): Mention => (untypedName(m) || commonWords(m) ? { ...m, strength: "weak" } : m))
      : extracted;
  return boundMentions(read, MAX_MENTIONS_PER_MESSAGE, MAX_STRONG_PER_MESSAGE);
}

/** A capitalised run the rules could not type: no kind, no identifier, no further name. */
const untypedName = (m: Mention) =>
  m.type === "other" && m.aliases.length === 0 && Object.keys(m.metadata).length === 0;

/** A thing (not a role) written in lower case and without an identifier: "support team", "site dashboard". */
const commonWords = (m: Mention) =>
  m.type !== "role" && /^\p{Ll}/u.test(m.text) && Object.keys(m.metadata).length === 0;

/**
 * The one active entity going by exactly the weak mention's name, when its score binds (a type of
 * another kind does not); none when no entity or several do.
 */
export function exactHolder(
  mention: Mention,
  registry: MemoryRegistry,
  context: MentionContext,
  thresholds: EntityThresholds,
): RegistryEntity | undefined {
  const norms = new Set(mentionNorms(mention));
  const holders = registry
    .candidates(mention)
    .filter((entity) => entity.aliases.some((alias) => norms.has(alias.norm)));
  const [holder] = holders;
  if (holders.length !== 1 || holder?.status !== "active") return undefined;
  return scoreCandidate(mention, holder, context).score >= thresholds.bind ? holder : undefined;
}

/**
 * The name a message used, normalised: "cfo" for "our CFO" (an alias of the chief financial officer), so
 * a compile can tell the turns that used another name than its question's, and a split moves the turns
 * that used the split name. The mention's own name when its words are not one of its names.
 */
function writtenName(mention: Mention): string {
  const norms = mentionNorms(mention);
  const written = normalizeName(mention.text);
  return norms.includes(written) ? written : (norms[0] ?? written);
}

/** A name (normalised) one message (its arrival number and id) used. */
export interface NameInMessage {
  messageId: string;
  seq: number;
  name: string;
}

/** What one run's messages added: entities created, and references written (a message naming nothing adds none). */
export interface MessageMentionsRecorded {
  /** False when the registry could not be read or written: nothing was recorded. */
  ok: boolean;
  created: number;
  /** Each reference written: the name (normalised, as written) a message used for an entity it refers to. */
  names: NameInMessage[];
  /**
   * The names of weak mentions that referred to nothing (no active entity went by exactly that name, or
   * several did): each normal form of the mention, for a later backfill to bind once one entity goes by it.
   */
  unresolved: NameInMessage[];
}

const NOTHING: MessageMentionsRecorded = { ok: true, created: 0, names: [], unresolved: [] };
const FAILED: MessageMentionsRecorded = { ...NOTHING, ok: false };

export class MessageMentions {
  constructor(private readonly extractor: MentionExtractor = new RuleMentionExtractor()) {}

  /**
   * Resolves the messages' mentions and writes the registry's changes and the messages' references in
   * one D1 batch. Every row it writes is a no-op when it exists (created entities have ids from their
   * names, references are keyed by message and name), so reading the same messages again, as a redone
   * or redelivered run does, changes nothing. A failure is logged and answered `ok: false`: it costs only
   * the references (the registry is an index, and extraction goes on) until a backfill reads the
   * messages again, as the thread's mention watermark stays behind them. `extractor` is the tenant's
   * (src/extraction/select-adapters.ts), the rules by default.
   */
  async record(
    database: D1Database,
    writer: Writer,
    messages: readonly MentionedMessage[],
    thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
    extractor: MentionExtractor = this.extractor,
  ): Promise<MessageMentionsRecorded> {
    try {
      return await this.write(new EntityRepository(database), writer, messages, thresholds, extractor);
    } catch (error) {
      console.error("message mentions not recorded", writer.projectId, writer.threadId, error);
      return FAILED;
    }
  }

  private async write(
    repository: EntityRepository,
    writer: Writer,
    messages: readonly MentionedMessage[],
    thresholds: EntityThresholds,
    extractor: MentionExtractor,
  ): Promise<MessageMentionsRecorded> {
    const read = messages.flatMap((message) => {
      const input = messageMentionInput(message);
      return input ? [{ message, input }] : [];
    });
    if (read.length === 0) return NOTHING;
    const extracted = await extractor.extract(read.map((r) => r.input));
    const context: MentionContext = { threadId: writer.threadId, userId: writer.identity.user_id };
    const sources: ResolutionSource[] = [];
    const weak: { message: MentionedMessage; mention: Mention }[] = [];
    for (const [i, { message, input }] of read.entries()) {
      const mentions = messageMentions(extracted[i] ?? [], message.role);
      for (const mention of mentions) if (mention.strength === "weak") weak.push({ message, mention });
      const strong = mentions.filter((m) => m.strength === "strong");
      if (strong.length === 0) continue;
      sources.push({
        key: message.id,
        mentions: strong,
        context,
        provenance: {
          thread_id: writer.threadId,
          user_id: writer.identity.user_id,
          message_id: message.id,
          origin: input.origin,
          extractor: extractor.name,
        },
      });
    }
    if (sources.length === 0 && weak.length === 0) return NOTHING;
    // A weak mention only ever binds on a whole name: it looks up nothing else.
    const exact = weak.flatMap(({ mention }) => mentionNorms(mention).map((norm) => `=${norm}`));
    const { plan, registry } = await resolveSources(repository, writer.projectId, sources, thresholds, exact);
    const seqOf = new Map(messages.map((m) => [m.id, m.seq]));
    const links: MessageLink[] = plan.outcomes.flatMap(({ source, mention, entityId }) =>
      entityId
        ? [{ messageId: source, seq: seqOf.get(source) ?? 0, mention: writtenName(mention), entityId }]
        : [],
    );
    const unresolved = new Map<string, NameInMessage>();
    for (const { message, mention } of weak) {
      const holder = exactHolder(mention, registry, context, thresholds);
      if (holder) {
        links.push({
          messageId: message.id,
          seq: message.seq,
          mention: writtenName(mention),
          entityId: holder.id,
        });
      } else {
        for (const name of mentionNorms(mention))
          unresolved.set(`${message.id}\u0000${name}`, { messageId: message.id, seq: message.seq, name });
      }
    }
    if (links.length === 0 && plan.created.length === 0)
      return { ...NOTHING, unresolved: [...unresolved.values()] };
    const at = new Date().toISOString();
    await repository.run([
      ...resolutionWrites(repository.db, writer.projectId, plan, new Set(), at),
      ...messageReferenceWrites(repository.db, writer.projectId, writer.threadId, links),
    ]);
    const names = links.map((link) => ({ messageId: link.messageId, seq: link.seq, name: link.mention }));
    return { ok: true, created: plan.created.length, names, unresolved: [...unresolved.values()] };
  }
}

/**
 * For each name (normalised), the entities that go by exactly that name now (merged ones aside), as
 * `id:status`, sorted: what decides whether a weak mention of it may bind (to the one holder, when it is
 * active) since it was last read. One statement per thousand names, from the candidate index's
 * whole-name terms.
 */
export async function exactNameHolders(
  database: D1Database,
  projectId: string,
  names: readonly string[],
): Promise<Map<string, string[]>> {
  const repository = new EntityRepository(database);
  const statements = repository.candidateStatements(
    projectId,
    names.map((name) => `=${name}`),
    [],
    { neighbours: false },
  );
  const found = statements.length ? registryEntities(await database.batch(statements)) : [];
  const holders = new Map<string, string[]>(names.map((name) => [name, []]));
  for (const entity of found) {
    for (const norm of new Set(entity.aliases.map((alias) => alias.norm)))
      holders.get(norm)?.push(`${entity.id}:${entity.status}`);
  }
  for (const ids of holders.values()) ids.sort();
  return holders;
}

/** Messages of a thread a compile adds for the entities its question names, at most (the newest). */
export const NAMED_MESSAGES_LIMIT = 10;
/** References read to find them: the newest, most of which may use the question's own words. */
const NAMED_MESSAGES_SCANNED = 200;

/**
 * The newest messages of a thread that refer to any of the entities a question names by a name sharing
 * no word with the question's (`mention`, its words for the entity), each with the entity, from `found`:
 * the thread's newest references by each of the entities' names (`names`, normalised aliases), newest
 * first. A turn whose name for it shares a word with the question ("Project Bootstrap" for "Bootstrap")
 * is what the question's own words retrieve, ranked by how well they match; only a turn that says it
 * otherwise ("our CFO" for "the chief financial officer") needs the registry to be found. Names, not
 * entity ids, are what a thread keeps: a merge or a split moves names between entities, and the turns
 * that used them follow.
 */
export function messagesNaming(
  named: readonly { id: string; mention: string }[],
  names: Readonly<Record<string, readonly string[]>>,
  found: (names: readonly string[], limit: number) => readonly { name: string; messageId: string }[],
): { messageId: string; entityId: string }[] {
  const seen = new Set<string>();
  const out: { messageId: string; entityId: string }[] = [];
  const byName = new Map<string, string>();
  for (const entity of named) for (const name of names[entity.id] ?? []) byName.set(name, entity.id);
  const asked = new Map(named.map((e) => [e.id, new Set(nameWords(normalizeName(e.mention)))]));
  for (const { name, messageId } of found([...byName.keys()], NAMED_MESSAGES_SCANNED)) {
    const entityId = byName.get(name) as string;
    if (nameWords(name).some((w) => asked.get(entityId)?.has(w)) || seen.has(messageId)) continue;
    seen.add(messageId);
    out.push({ messageId, entityId });
    if (out.length >= NAMED_MESSAGES_LIMIT) break;
  }
  return out;
}
