/**
 * Encoders for Loki's push API: the `logproto.PushRequest` protobuf, its snappy-compressed
 * body, and the stream selector string that carries a stream's labels in it.
 */
import { quoteGoString } from '../../common/quote.js';
import { parseStreamSelector } from '../lokiSelector.js';
import { snappyCompress } from '../snappy.js';
import { ProtoWriter } from './protoWriter.js';

/** LokiEntryInput is one log line of a stream. */
export interface LokiEntryInput {
  timestampNs: bigint;
  line: string;
  structuredMetadata?: Record<string, string>;
}

/** LokiStreamInput is one stream: its labels (an object or a selector string) and entries. */
export interface LokiStreamInput {
  labels: Record<string, string> | string;
  entries: LokiEntryInput[];
}

/** PushRequestInput is a Loki push request. */
export interface PushRequestInput {
  streams: LokiStreamInput[];
}

const LEGACY_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const NS_PER_SECOND = 1_000_000_000n;

/**
 * formatStreamSelector renders labels as the selector Loki expects (`{app="api", env="prod"}`),
 * quoting names that are not classic Prometheus names.
 */
export function formatStreamSelector(labels: Record<string, string>): string {
  const parts = Object.keys(labels).map((name) => {
    const shownName = LEGACY_NAME.test(name) ? name : quoteGoString(name);
    return `${shownName}=${quoteGoString(labels[name])}`;
  });
  return `{${parts.join(', ')}}`;
}

/** encodePushRequest writes a `logproto.PushRequest` protobuf (uncompressed). */
export function encodePushRequest(req: PushRequestInput): Uint8Array {
  const w = new ProtoWriter(4096);
  for (const stream of req.streams) {
    w.message(1, () => {
      w.stringField(1, typeof stream.labels === 'string' ? stream.labels : formatStreamSelector(stream.labels));
      for (const entry of stream.entries) {
        w.message(2, () => {
          const seconds = entry.timestampNs / NS_PER_SECOND;
          const nanos = entry.timestampNs % NS_PER_SECOND;
          w.message(1, () => {
            w.int64Field(1, seconds);
            w.int32Field(2, Number(nanos));
          });
          w.stringField(2, entry.line);
          const metadata = entry.structuredMetadata;
          if (metadata !== undefined) {
            for (const name of Object.keys(metadata)) {
              w.message(3, () => {
                w.stringField(1, name);
                w.stringField(2, metadata[name]);
              });
            }
          }
        });
      }
    });
  }
  return w.finish();
}

/** encodeLokiPushBody writes the snappy-compressed protobuf body of a Loki push request. */
export function encodeLokiPushBody(req: PushRequestInput): Uint8Array {
  return snappyCompress(encodePushRequest(req));
}

/** lokiPushJson renders a push request in Loki's JSON form. */
export function lokiPushJson(req: PushRequestInput): string {
  return JSON.stringify({
    streams: req.streams.map((stream) => ({
      stream: typeof stream.labels === 'string' ? selectorToObject(stream.labels) : stream.labels,
      values: stream.entries.map((e) =>
        e.structuredMetadata === undefined
          ? [e.timestampNs.toString(), e.line]
          : [e.timestampNs.toString(), e.line, e.structuredMetadata],
      ),
    })),
  });
}

function selectorToObject(selector: string): Record<string, string> {
  const parsed = parseStreamSelector(selector);
  if (!parsed.ok) throw new Error(`invalid stream selector ${JSON.stringify(selector)}: ${parsed.message}`);
  return Object.fromEntries(parsed.labels);
}
