import type { Env } from "../env";
import type { ThreadRpc } from "./thread-rpc";

/**
 * The only way to address a thread's object. Its name joins the authenticated tenant and the thread,
 * so no path or job can reach another tenant's thread by naming it.
 */
export function threadStub(env: Env, tenant: string, thread: string): ThreadRpc {
  // RPC stubs type free-form JSON (the environment map) as unserializable; the values really are JSON.
  return env.THREADS.get(env.THREADS.idFromName(`tenant:${tenant}/thread:${thread}`)) as unknown as ThreadRpc;
}
