import { postStream, readEvents, RequestFailure, type StreamEvent } from './api.js';

/**
 * Panel queries go to the server in batches (`POST /api/v1/query/batch`): the queries a
 * render starts are gathered until the current task ends and sent as a few streams instead of
 * one each, so a dashboard's panels no longer queue for the browser's six connections per
 * origin. The server runs a batch's queries concurrently and interleaves their events, each
 * tagged with its query's id, so every panel still draws as its own results arrive. Panels
 * asking for the same query share it.
 */

/** BATCH_SIZE is the most queries one stream carries; a dashboard's queries spread over a few streams. */
const BATCH_SIZE = 8;

type Kind = 'metrics' | 'logs';

interface Pending {
  kind: Kind;
  body: Record<string, unknown>;
  onEvent: (event: StreamEvent) => void;
  signal: AbortSignal;
  resolve: () => void;
  reject: (err: unknown) => void;
  settled: boolean;
}

/** Member is one query of a batch, with every panel that asked for exactly this query. */
interface Member {
  id: string;
  kind: Kind;
  body: Record<string, unknown>;
  askers: Pending[];
}

interface TaggedEvent extends StreamEvent {
  id?: string;
}

let waiting: Pending[] = [];
let nextId = 0;

/**
 * batchedQuery runs one query as part of the next batch and hands its events to `onEvent`
 * like `streamQuery` does: it resolves after the query's `done` (or when the stream closes),
 * and rejects with RequestFailure when the server refused the query before streaming it.
 */
export function batchedQuery(kind: Kind, body: Record<string, unknown>, onEvent: (event: StreamEvent) => void, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    waiting.push({ kind, body, onEvent, signal, resolve, reject, settled: false });
    // Every panel's layout effect of one render runs in this task: they share the flush.
    if (waiting.length === 1) queueMicrotask(flush);
  });
}

function flush(): void {
  for (const p of waiting) if (p.signal.aborted) settle(p, undefined, p.signal.reason);
  // Panels that ask for the same query over the same window (a stat and a chart of one
  // expression) share one evaluation: the server runs it once, every asker gets its events.
  const byQuery = new Map<string, Member>();
  for (const p of waiting.filter((w) => !w.settled)) {
    const key = JSON.stringify([p.kind, p.body]);
    const member = byQuery.get(key);
    if (member) member.askers.push(p);
    else byQuery.set(key, { id: `q${nextId++}`, kind: p.kind, body: p.body, askers: [p] });
  }
  waiting = [];
  const all = [...byQuery.values()];
  // Even streams: 20 queries are three streams of 7, 7 and 6, not 8, 8 and 4.
  const streams = Math.ceil(all.length / BATCH_SIZE);
  for (let i = 0; i < streams; i++) void runBatch(all.filter((_, index) => index % streams === i));
}

function settle(p: Pending, failure?: unknown, abortReason?: unknown): void {
  if (p.settled) return;
  p.settled = true;
  if (abortReason !== undefined) p.reject(abortReason);
  else if (failure !== undefined) p.reject(failure);
  else p.resolve();
}

async function runBatch(members: Member[]): Promise<void> {
  if (members.length === 0) return;
  const byId = new Map(members.map((m) => [m.id, m]));
  const askers = members.flatMap((m) => m.askers);
  const controller = new AbortController();
  // The stream is dropped once every query in it was given up (a new range, a closed panel).
  const onAbort = (): void => {
    for (const p of askers) if (p.signal.aborted) settle(p, undefined, p.signal.reason);
    if (askers.every((p) => p.settled)) controller.abort();
  };
  for (const p of askers) p.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const body = { queries: members.map((m) => ({ id: m.id, kind: m.kind, ...m.body })) };
    const stream = await postStream('/api/v1/query/batch', body, controller.signal);
    await readEvents<TaggedEvent>(stream, (event) => {
      if (event.id === undefined) return event.type === 'done';
      const member = byId.get(event.id);
      if (member === undefined) return false;
      const { id: _id, ...own } = event;
      for (const p of member.askers) {
        if (p.settled) continue;
        if (own.type === 'error' && typeof own.data.status === 'number') {
          // Refused before streaming: the error body its own endpoint would have answered.
          const data = own.data;
          settle(p, new RequestFailure(data.status as number, String(data.code ?? 'HTTP_' + String(data.status)), String(data.message ?? 'the query was refused'), data));
          continue;
        }
        p.onEvent(own);
        if (own.type === 'done' || own.type === 'error') settle(p);
      }
      return false;
    });
    for (const p of askers) settle(p);
  } catch (err) {
    for (const p of askers) settle(p, err);
  } finally {
    for (const p of askers) p.signal.removeEventListener('abort', onAbort);
  }
}
