/** A position in the transcript's (ts, id) order: how far extraction has read. */
export interface WatermarkPosition {
  ts: string;
  id: string;
}

/** One extraction run as the thread's log records it (GET /threads/:id/extractions). */
export interface ExtractResult {
  id: string;
  extractor: string;
  started_at: string;
  duration_ms: number;
  messages: number;
  through: WatermarkPosition | null;
  items_extracted: number;
  items_merged: number;
  items_conflicted: number;
  items_superseded: number;
  items_dropped: number;
  facts_extracted: number;
  skipped_reason: string | null;
}
