import { clearanceFrom, redact } from "../compiler/passes/redact";
import { DEFAULT_AUTHORITY_LADDER } from "../facts/authority";
import { viewFor } from "../facts/fact-reads";
import { FactRepository } from "../facts/fact-repository";
import { identityGate, mayView, mayViewObject, redactValue } from "../facts/fact-visibility";
import { renderStateSection } from "../items/render";
import type { Embedder } from "../ports/embedder";
import { passageSpans } from "../retrieval/passages";
import { projectDatabase } from "../tenancy/placement";
import type { Tenant } from "../tenancy/registry";
import type { ThreadExtraction } from "./extraction/thread-extraction";
import type { ClockHost } from "./host";
import type { LayerStore } from "./layers/layer-store";
import { type ThreadRecord, viewOf } from "./thread-record";
import type { ExpandedItem, ExtractionLog, MessageView, ThreadStateValue } from "./thread-rpc";
import type { Transcript } from "./transcript/transcript";

/**
 * The state view lists at most this many of the project's current facts, the newest; a project can hold
 * millions, which GET /facts pages through.
 */
export const STATE_FACT_LIMIT = 1_000;

interface ViewSources {
  transcript: Transcript;
  layers: LayerStore;
  extraction: ThreadExtraction;
}

/** The thread's read views for its GET routes: state, the extraction log, an item with its sources. */
export class ThreadViews {
  constructor(
    private readonly clock: ClockHost,
    private readonly sources: ViewSources,
  ) {}

  /**
   * The thread's state as its own user may see it: the gates a compile applies for that identity
   * (other users' private facts and what its roles or clearance do not reach are left out) and its
   * redaction of secrets in every value and item text.
   */
  async state(record: ThreadRecord, tenant: Tenant, embedder: Embedder): Promise<ThreadStateValue> {
    const { transcript, layers, extraction } = this.sources;
    const gate = identityGate(record.identity, tenant.authority_ladder ?? DEFAULT_AUTHORITY_LADDER);
    const database = await projectDatabase(tenant, record.project_id);
    const current = await new FactRepository(database).currentInProject(
      record.project_id,
      record.identity.user_id,
      STATE_FACT_LIMIT,
    );
    const visible = current.rows.filter((f) => mayView(f, gate));
    const layer = (name: "working" | "environment") =>
      layers.entries(name).filter((e) =>
        mayViewObject(
          {
            classification: e.classification,
            allowRoles: JSON.parse(e.allowRolesJson) as string[],
            denyRoles: JSON.parse(e.denyRolesJson) as string[],
          },
          gate,
        ),
      );
    const activeItems = extraction.store
      .activeItems()
      .filter((item) =>
        mayViewObject(
          { classification: item.classification, allowRoles: item.allow_roles, denyRoles: [] },
          gate,
        ),
      )
      .map((item) => ({ ...item, text: redactValue(item.text, gate) as string }));
    return {
      thread: viewOf(record),
      facts: visible.map((f) => viewFor(f, gate)),
      facts_truncated: current.truncated,
      working_set: layer("working").map((e) => ({
        key: e.key,
        value: redactValue(JSON.parse(e.valueJson), gate, e.key),
        ts: e.ts,
        expires_at: e.expiresAt,
      })),
      environment_facts: layer("environment").map((e) => ({
        key: e.key,
        value: redactValue(JSON.parse(e.valueJson), gate, e.key),
        ts: e.ts,
      })),
      message_count: transcript.count(),
      unindexed_messages: transcript.unindexed(embedder),
      watermark: extraction.watermark(),
      items: activeItems,
      rendered_state: renderStateSection(activeItems, this.clock.now()),
    };
  }

  extractions(): ExtractionLog {
    const { extraction } = this.sources;
    return {
      runs: extraction.store.runs(100),
      dead_jobs: extraction.store.deadJobs(),
      watermark: extraction.watermark(),
    };
  }

  /** The item and the messages it was read from, or undefined when there is no such item. */
  expand(uid: string): ExpandedItem | undefined {
    const item = this.sources.extraction.store.item(uid);
    return item ? { item, messages: this.sources.transcript.messages(item.refs) } : undefined;
  }

  /**
   * One message as the thread's own user may read it (secrets and PII redacted as a compile would for
   * that identity), with how many passages it has and the one asked for: an excerpt in a context says
   * "part 3 of 14", and this is where a caller reads the rest. Undefined when there is no such message;
   * `part` is null for a part past the last.
   */
  message(
    record: ThreadRecord,
    id: string,
    part: number | undefined,
  ): { view: MessageView; partFound: boolean } | undefined {
    const [stored] = this.sources.transcript.messages([id]);
    if (!stored) return undefined;
    const content = redact(stored.content, clearanceFrom(record.identity)).text;
    const spans = passageSpans(content);
    const span = part === undefined ? undefined : spans[part - 1];
    return {
      view: {
        message: { ...stored, content },
        parts: spans.length,
        part: span && part !== undefined ? { index: part, text: content.slice(span.start, span.end) } : null,
      },
      partFound: part === undefined || span !== undefined,
    };
  }
}
