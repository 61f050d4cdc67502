import type { MentionBackfillOutput } from "../../api/schemas/entities";
import {
  exactNameHolders,
  type MentionedMessage,
  type MessageMentions,
} from "../../entities/message-mentions";
import type { MentionExtractor } from "../../ports/mention-extractor";
import { projectDatabase } from "../../tenancy/placement";
import type { Tenant } from "../../tenancy/registry";
import type { ExclusiveHost, TransactionHost } from "../host";
import type { ThreadRecord } from "../thread-record";
import type { ArrivedMessage, Transcript } from "../transcript/transcript";
import type { ExtractionStore, WeakName } from "./extraction-store";

/** Messages read per page: one D1 read and one D1 batch, in one exclusive section of the object. */
const PAGE = 100;
/** Weak names checked per D1 statement (the candidate index's whole-name terms). */
const NAME_CHUNK = 1000;

/** What one backfill call did, and what is left (the route's schema documents each field). */
export type MentionBackfillReport = MentionBackfillOutput;

/** How much one call may do: messages read, from the first again (`restart`), weak names checked. */
export interface BackfillOptions {
  limit: number;
  restart: boolean;
  /** Weak names checked against the registry at most (all of them when absent). */
  maxNames?: number;
}

interface Budget {
  left: number;
  read: number;
  added: number;
  created: number;
  /** The registry could not be read or written: the call stops where it was, to be called again. */
  failed: boolean;
}

/**
 * The back-fill of message mentions (issue 17 item 1), a capability of the thread's extraction. Two
 * gaps close here, with the same code as an extraction run's reading (src/entities/message-mentions.ts):
 *
 * - Messages extracted before mentions were read (migration 0009), or whose reading failed, lie past the
 *   thread's mention watermark: they are read in pages, oldest first, up to extraction's own watermark
 *   (later messages are their run's), and the watermark moves on with each page's commit.
 * - A weak mention ("Kestrel" on its own) only refers to an entity already going by exactly that name,
 *   so one named before the entity existed (created later by a fact, or given the name as an alias)
 *   referred to nothing. Its name is kept with the thread (`weak_mentions`); the backfill asks the
 *   registry who goes by each such name now and reads the messages again only where that changed since
 *   the name was last checked. Reading again binds only as the write path does: to the one active entity
 *   of exactly that name whose score binds, never a partial name, a review or one of two namesakes.
 *
 * Everything written is keyed (references by message and name, entities by name), so a call repeated,
 * or a page redone after a failure, adds nothing; a call reads at most `limit` messages and says when
 * there is more. Each page is one exclusive section, so compiles and runs go on between pages.
 */
export class MentionBackfill {
  constructor(
    private readonly host: TransactionHost & ExclusiveHost,
    private readonly store: ExtractionStore,
    private readonly transcript: Transcript,
    private readonly extractedSeq: () => number,
  ) {}

  async run(
    record: ThreadRecord,
    tenant: Tenant,
    mentions: MessageMentions,
    options: BackfillOptions,
    extractor?: MentionExtractor,
  ): Promise<{ report: MentionBackfillReport; failed: boolean }> {
    if (options.restart) this.host.transaction(() => this.store.restartMentions());
    const database = await projectDatabase(tenant, record.project_id);
    const writer = { projectId: record.project_id, threadId: record.thread, identity: record.identity };
    const reread = (messages: readonly MentionedMessage[], budget: Budget, throughSeq?: number) =>
      this.reread(messages, budget, throughSeq, (read) =>
        mentions.record(database, writer, read, tenant.entity_thresholds, extractor),
      );
    const budget: Budget = { left: options.limit, read: 0, added: 0, created: 0, failed: false };
    let caughtUp = await this.catchUp(budget, reread);
    let checked = false;
    if (caughtUp && !budget.failed) {
      checked = await this.checkWeakNames(budget, options.maxNames ?? Infinity, reread, (names) =>
        exactNameHolders(database, record.project_id, names),
      );
      caughtUp = this.store.mentionedSeq() >= this.extractedSeq();
    }
    const mentioned = this.store.mentionedSeq();
    const pending =
      this.transcript.countArrivedAfter(mentioned) - this.transcript.countArrivedAfter(this.extractedSeq());
    const report = {
      read: budget.read,
      references_added: budget.added,
      entities_created: budget.created,
      mentioned_through: mentioned,
      pending_messages: Math.max(0, pending),
      unresolved_names: this.store.weakNameCount(),
      done: caughtUp && checked && !budget.failed,
    };
    return { report, failed: budget.failed };
  }

  /** Reads the messages past the mention watermark, page by page, up to extraction's; true when caught up. */
  private async catchUp(budget: Budget, reread: Reread): Promise<boolean> {
    while (!budget.failed) {
      const done = await this.host.exclusive(async () => {
        const mark = this.store.mentionedSeq();
        const through = this.extractedSeq();
        if (mark >= through) return true;
        if (budget.left <= 0) return false;
        const page = this.transcript
          .arrivedAfter<ArrivedMessage & Record<string, SqlStorageValue>>(mark, Math.min(PAGE, budget.left))
          .filter((m) => m.seq <= through);
        const pageThrough = page.length ? Math.max(...page.map((m) => m.seq)) : through;
        const screened = this.transcript.screensOf(page.map((m) => m.id));
        await reread(page.filter((m) => !screened.has(m.id)).map(mentioned), budget, pageThrough);
        return false;
      });
      if (done) return true;
      if (budget.left <= 0) return this.store.mentionedSeq() >= this.extractedSeq();
    }
    return false;
  }

  /**
   * Checks the weak names (from where the last call stopped) against who goes by them now, and reads
   * again the messages of each whose holders changed; true when every name was checked.
   */
  private async checkWeakNames(
    budget: Budget,
    maxNames: number,
    reread: Reread,
    holdersOf: (names: string[]) => Promise<Map<string, string[]>>,
  ): Promise<boolean> {
    let after = this.store.weakNamesChecked();
    let names = 0;
    while (!budget.failed) {
      const chunk = this.store.weakNames(after, Math.min(NAME_CHUNK, maxNames - names));
      if (chunk.length === 0 && names >= maxNames) return false;
      if (chunk.length === 0) {
        if (after !== "") this.store.setWeakNamesChecked("");
        return true;
      }
      names += chunk.length;
      const holders = await holdersOf(chunk.map((n) => n.name)).catch((error) => {
        console.error("weak names not checked", error);
        budget.failed = true;
        return undefined;
      });
      if (!holders) break;
      for (const name of chunk) {
        const now = (holders.get(name.name) ?? []).join(",");
        if (!(await this.checkName(name, now, budget, reread))) {
          this.store.setWeakNamesChecked(after);
          return false;
        }
        after = name.name;
      }
      this.store.setWeakNamesChecked(after);
    }
    return false;
  }

  /** One weak name: its messages read again when its holders changed; false when the budget ran out first. */
  private async checkName(name: WeakName, now: string, budget: Budget, reread: Reread): Promise<boolean> {
    if (now === name.holders && name.readThrough === null) return true;
    // Nobody goes by it, or only entities pending review: nothing could bind, so there is nothing to read.
    if (!now.split(",").some((holder) => holder.endsWith(":active"))) {
      this.host.transaction(() => this.store.checkedWeakName(name.name, now));
      return true;
    }
    let through = name.readThrough ?? 0;
    while (!budget.failed) {
      if (budget.left <= 0) return false;
      const finished = await this.host.exclusive(async () => {
        const uses = this.store.weakMentionsOf(name.name, through, Math.min(PAGE, budget.left));
        if (uses.length === 0) {
          this.host.transaction(() => this.store.checkedWeakName(name.name, now));
          return true;
        }
        const seqOf = new Map(uses.map((u) => [u.messageId, u.seq]));
        const messages = this.transcript
          .messages([...seqOf.keys()])
          .map((m) => mentioned({ ...m, seq: seqOf.get(m.id) ?? 0 }));
        await reread(messages, budget);
        through = Math.max(...uses.map((u) => u.seq));
        if (!budget.failed) this.host.transaction(() => this.store.weakNameReadThrough(name.name, through));
        return false;
      });
      if (finished) return true;
    }
    return false;
  }

  /**
   * Reads the messages' mentions and commits what they found (and the mention watermark, when given) in
   * one transaction; a failed reading commits nothing and stops the call.
   */
  private async reread(
    messages: readonly MentionedMessage[],
    budget: Budget,
    throughSeq: number | undefined,
    record: (messages: readonly MentionedMessage[]) => ReturnType<MessageMentions["record"]>,
  ): Promise<void> {
    const found = messages.length
      ? await record(messages)
      : { ok: true, created: 0, names: [], unresolved: [] };
    if (!found.ok) {
      budget.failed = true;
      return;
    }
    budget.left -= Math.max(1, messages.length);
    budget.read += messages.length;
    budget.created += found.created;
    budget.added += this.host.transaction(() =>
      this.store.recordMentions({ ...found, read: messages.map((m) => m.id) }, throughSeq),
    );
  }
}

type Reread = (messages: readonly MentionedMessage[], budget: Budget, throughSeq?: number) => Promise<void>;

/** A stored message as mention extraction reads it. */
const mentioned = (m: ArrivedMessage): MentionedMessage => ({
  id: m.id,
  seq: m.seq,
  role: m.role as MentionedMessage["role"],
  content: m.content,
});
