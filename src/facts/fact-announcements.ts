import type { FactRepository, FactsWritten, FactWatcher } from "./fact-repository";

/** Tells another thread's object that its project's facts reached `revision`; false when it holds no such copy. */
export type AnnounceTo = (
  tenant: string,
  thread: string,
  projectId: string,
  token: string,
  revision: number,
) => Promise<boolean>;

/**
 * Tells every thread holding the project's facts in memory (but `except`, the writer itself) that the
 * project reached `written.revision`, so their next compile reads it (fact-candidate-cache.ts). A holder
 * that is gone is unregistered; a call that fails is logged, and the holder's periodic recheck covers it.
 * Call outside any exclusive section: announcing waits on other objects, which may be announcing too.
 */
export async function announceRevision(
  announceTo: AnnounceTo,
  tenant: string,
  projectId: string,
  written: FactsWritten,
  repository: () => Promise<FactRepository>,
  except?: string,
): Promise<void> {
  const { revision, watchers } = written;
  const gone: FactWatcher[] = [];
  await Promise.all(
    watchers
      .filter((w) => w.thread !== except)
      .map(async (w) => {
        try {
          const held = await announceTo(tenant, w.thread, projectId, w.token, revision);
          if (!held) gone.push(w);
        } catch (error) {
          console.error("could not announce a fact write", tenant, w.thread, revision, error);
        }
      }),
  );
  if (gone.length) {
    await (await repository())
      .forget(projectId, gone)
      .catch((error) => console.error("could not unregister fact holders", tenant, error));
  }
}
