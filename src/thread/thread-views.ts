import { FactRepository } from "../facts/fact-repository";
import { toFactView } from "../facts/fact-view";
import { renderStateSection } from "../items/render";
import type { Tenant } from "../tenancy/registry";
import type { ThreadExtraction } from "./extraction/thread-extraction";
import type { ClockHost } from "./host";
import type { LayerStore } from "./layers/layer-store";
import { type ThreadRecord, viewOf } from "./thread-record";
import type { ExpandedItem, ExtractionLog, ThreadStateValue } from "./thread-rpc";
import type { Transcript } from "./transcript/transcript";

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

  async state(record: ThreadRecord, tenant: Tenant): Promise<ThreadStateValue> {
    const { transcript, layers, extraction } = this.sources;
    const current = await new FactRepository(tenant.database).currentInProject(record.project_id);
    const visible = current.filter((f) => f.userId === null || f.userId === record.identity.user_id);
    const activeItems = extraction.store.activeItems();
    return {
      thread: viewOf(record),
      facts: visible.map(toFactView),
      working_set: layers.entries("working").map((e) => ({
        key: e.key,
        value: JSON.parse(e.valueJson),
        ts: e.ts,
        expires_at: e.expiresAt,
      })),
      environment_facts: layers.entries("environment").map((e) => ({
        key: e.key,
        value: JSON.parse(e.valueJson),
        ts: e.ts,
      })),
      message_count: transcript.count(),
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
}
