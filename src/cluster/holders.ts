import type { PartitionOwner } from './partitionOwners.js';

/**
 * Holders are the processes a query process asks for what is not in object storage yet (head
 * data, exemplars): the live owners of the write log's partitions, grouped by process, each
 * asked once for all the partitions it owns.
 */

/** Holder is one process to ask and the partitions it is asked for. */
export interface Holder {
  ownerId: string;
  baseUrl: string;
  partitions: number[];
}

/** HolderLayout is every partition's holder: the processes to ask, and the partitions nobody holds now. */
export interface HolderLayout {
  holders: Holder[];
  orphans: number[];
}

/** holdersOf groups the live owners (lease not expired at `nowMs`) of partitions 0..partitions-1 by process. */
export function holdersOf(owners: readonly PartitionOwner[], partitions: number, nowMs: number): HolderLayout {
  const byPartition = new Map<number, PartitionOwner>();
  for (const o of owners) if (o.leaseExpiresAtMs > nowMs) byPartition.set(o.partition, o);
  const byUrl = new Map<string, Holder>();
  const orphans: number[] = [];
  for (let p = 0; p < partitions; p++) {
    const owner = byPartition.get(p);
    if (owner === undefined) {
      orphans.push(p);
      continue;
    }
    let holder = byUrl.get(owner.baseUrl);
    if (holder === undefined) byUrl.set(owner.baseUrl, (holder = { ownerId: owner.ownerId, baseUrl: owner.baseUrl, partitions: [] }));
    holder.partitions.push(p);
  }
  return { holders: [...byUrl.values()], orphans };
}

/** sameLayout tells whether two layouts send every partition to the same holder (or to none). */
export function sameLayout(a: HolderLayout, b: HolderLayout): boolean {
  const layout = (x: HolderLayout) => {
    const byPartition = new Map<number, string>();
    for (const h of x.holders) for (const p of h.partitions) byPartition.set(p, `${h.ownerId}\u0000${h.baseUrl}`);
    return JSON.stringify([...byPartition].sort((m, n) => m[0] - n[0]).concat(x.orphans.map((p) => [p, ''])));
  };
  return layout(a) === layout(b);
}

/** readLimited reads a response body of at most `maxBytes`, or says why not. */
export async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array | string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return `answer of ${declared} bytes is over the limit of ${maxBytes}`;
  }
  if (res.body === null) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return `answer is over the limit of ${maxBytes} bytes`;
    }
    parts.push(value);
  }
  return Buffer.concat(parts, total);
}

/** HolderCall is how a query process asks a holder: the cluster token, a deadline and a size bound. */
export interface HolderCall {
  /** token authenticates this process to the holders (SVC_INTERNAL_TOKEN). */
  token: string;
  /** timeoutMs bounds one request to one holder, answer included. */
  timeoutMs: number;
  /** maxBytes bounds one holder's answer. */
  maxBytes: number;
}

/**
 * askHolder posts a JSON request to one holder's internal route and reads its answer whole,
 * within the call's deadline and size bound. A failure (refused connection, deadline, another
 * status, an oversized answer) comes back as its description, so callers can report the holder
 * as unavailable and go on with the others.
 */
export async function askHolder(holder: Holder, route: string, request: unknown, call: HolderCall): Promise<Uint8Array | string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), call.timeoutMs);
  try {
    const res = await fetch(holder.baseUrl + route, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${call.token}` },
      body: JSON.stringify(request),
      signal: controller.signal,
    });
    if (res.status !== 200) {
      const text = await res.text().catch(() => '');
      return `answered ${res.status}${text ? ` ${text.slice(0, 300)}` : ''}`;
    }
    return await readLimited(res, call.maxBytes);
  } catch (err) {
    return controller.signal.aborted ? `no answer within ${call.timeoutMs} ms` : describeError(err);
  } finally {
    clearTimeout(timer);
  }
}

/** describeError words a failed request to a holder, with its cause (a refused connection, say). */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
