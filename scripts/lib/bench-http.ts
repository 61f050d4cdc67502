// Helpers the HTTP benches share (scripts/bench-compile.ts, scripts/bench-scale.ts): a percentile over a
// sorted list, and a JSON client for one tenant of a running server.

/** The p-th percentile (nearest rank) of an ascending list; NaN for an empty one. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** An ascending copy. */
export function sorted(list: number[]): number[] {
  return [...list].sort((a, b) => a - b);
}

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field by the benches as it was before this helper.
export type Call = (method: string, path: string, body?: unknown) => Promise<any>;

export interface ApiClient {
  /** `${url}/v1/tenants/${tenant}` */
  base: string;
  headers: Record<string, string>;
  /** A JSON call under `base`; a non-2xx answer throws with its status and body. */
  call: Call;
}

export function apiClient(url: string, tenant: string, key: string, timeoutMs = 120_000): ApiClient {
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const base = `${url}/v1/tenants/${tenant}`;
  const call: Call = async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      // A call stuck behind a long extraction run is reported rather than waited on forever.
      signal: AbortSignal.timeout(timeoutMs),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { base, headers, call };
}
