import { randomBytes } from 'node:crypto';
import type { Storage } from '../../engine/index.js';
import { narrowHeadExport } from '../../engine/storage/headFilter.js';
import { encodeHeadExport, encodedLength } from '../../engine/storage/headWire.js';
import { parseJsonBody } from '../http/body.js';
import type { RouteSpec } from '../http/router.js';
import { HEAD_ROUTE, MAX_HEAD_REQUEST_BYTES, overFetchLimit, parseHeadRequest } from './headRequest.js';
import { checkInternalToken } from './internalToken.js';

export interface HeadRouteDeps {
  storage: Storage;
  /** token is SVC_INTERNAL_TOKEN; unset, the endpoint refuses every request. */
  token: string | undefined;
  /** maxBytes bounds one answer (SVC_HEAD_FETCH_MAX_BYTES). */
  maxBytes: number;
  /** onServe hears of every answer sent, with its size in bytes. */
  onServe?: (bytes: number) => void;
}

/**
 * CHUNK_ID_PREFIX names this process in the ids of the chunks it sends: chunk ids are unique
 * only within a process, and a query process may read the heads of several holders. It stays
 * the same for the life of the process, so a sealed chunk fetched twice keeps its id and a
 * query worker's decoded copy of it stays valid.
 */
const CHUNK_ID_PREFIX = `${randomBytes(6).toString('hex')}:`;

/**
 * headRoutes is the internal endpoint a process that holds heads (roles all and ingester)
 * serves them to query processes on: POST /internal/v1/head with a JSON HeadRequest, answered
 * with the org's head snapshots in the head wire format (engine/storage/headWire.ts), narrowed
 * to the series and streams of the request's selectors and to its time range when it names
 * them (headFilter.ts). It is
 * authenticated by the cluster-internal token, never by users' API keys, and bounded: the
 * request body by MAX_HEAD_REQUEST_BYTES, the answer by `maxBytes`.
 */
export function headRoutes(deps: HeadRouteDeps): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: HEAD_ROUTE,
      auth: 'none',
      body: 'json',
      maxBodyBytes: MAX_HEAD_REQUEST_BYTES,
      handler: ({ headers, body, res }) => {
        checkInternalToken(headers.authorization, deps.token);
        const request = parseHeadRequest(parseJsonBody(body ?? Buffer.alloc(0)));
        const whole = deps.storage.exportHeads(request.org, { metrics: request.signals.includes('metrics'), logs: request.signals.includes('logs') });
        const have = new Set(request.have);
        const data = narrowHeadExport(whole, request, (id) => have.has(CHUNK_ID_PREFIX + id));
        const parts = encodeHeadExport(data, CHUNK_ID_PREFIX, have);
        const length = encodedLength(parts);
        if (length > deps.maxBytes) throw overFetchLimit("the org's heads", length, deps.maxBytes);
        res.send(200, Buffer.concat(parts, length), 'application/octet-stream');
        deps.onServe?.(length);
      },
    },
  ];
}
