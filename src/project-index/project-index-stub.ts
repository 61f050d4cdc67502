import type { Env } from "../env";
import type { ProjectIndexRpc } from "./project-index-rpc";

/**
 * The only way to address a project's index. Its name joins the authenticated tenant and the project,
 * so no call can reach another tenant's vectors by naming a project.
 */
export function projectIndexStub(env: Env, tenant: string, projectId: string): ProjectIndexRpc {
  const name = `tenant:${tenant}/project:${projectId}`;
  return env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(name)) as unknown as ProjectIndexRpc;
}
