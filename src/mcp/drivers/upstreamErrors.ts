import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * How an upstream failure is told to the caller. The text goes to a model (as a tool error) and
 * to the logs, so it names the integration and the upstream host and says what to change, and it
 * never carries the stored credentials: every text passes through `redact` with the header
 * values and the URL's userinfo and query, and the URL itself is only ever shown without them.
 */

/** UpstreamTarget is one resolved upstream: where to connect and what may never be shown. */
export interface UpstreamTarget {
  /** integration is the driver name ("chat"), the way operators address it. */
  integration: string;
  orgId: string;
  /** url is what the client connects to: the stored URL without its userinfo. */
  url: URL;
  /** shown is the URL as error texts and logs print it: no userinfo, no query, no fragment. */
  shown: string;
  /** secrets are the strings to blank out of any text that leaves the driver. */
  secrets: string[];
}

/** UpstreamFailure is a failure whose message is final: already naming the integration and redacted. */
export class UpstreamFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}

const REDACTED = '[redacted]';

/** MIN_SECRET is the shortest value worth blanking out of a message. */
const MIN_SECRET = 4;

/** Words that open an Authorization value; they are not secret, the token after them is. */
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'token', 'digest', 'bot']);

/**
 * secretsOf lists what must never appear in a message: each header value, each word of it long
 * enough to be a token (an upstream that echoes only the token part must not leak it either),
 * and the userinfo and query of the stored URL, decoded and not.
 */
export function secretsOf(rawUrl: string, headers: Record<string, string> | undefined, url: URL | undefined): string[] {
  const found = new Set<string>();
  const add = (value: string | undefined): void => {
    if (!value) return;
    found.add(value);
    try {
      found.add(decodeURIComponent(value));
    } catch {
      // not percent-encoded; the raw form is enough
    }
  };
  for (const value of Object.values(headers ?? {})) {
    add(value.trim());
    for (const word of value.split(/\s+/)) if (!AUTH_SCHEMES.has(word.toLowerCase())) add(word);
  }
  if (url) {
    add(url.username);
    add(url.password);
    if (url.search.length > 1) {
      add(url.search.slice(1));
      for (const value of url.searchParams.values()) add(value);
    }
  }
  // An unparsable URL can only be hidden whole; a parsable one is shown in its safe form anyway.
  if (!url) add(rawUrl);
  // Blanking a two-letter value would shred every message (ports, hosts) and hide nothing a
  // guess would not find. Longer first, so a value is blanked whole before a word inside it is.
  return [...found].filter((s) => s.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
}

/** redact blanks every secret out of a text. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** shownUrl is a URL as it may be printed: origin and path; a query is marked, never shown. */
export function shownUrl(url: URL): string {
  const safe = new URL(url.href);
  const hadQuery = safe.search !== '';
  safe.username = '';
  safe.password = '';
  safe.search = '';
  safe.hash = '';
  return hadQuery ? `${safe.href}?…` : safe.href;
}

/** seconds prints a timeout the way a person reads it: "15 s", "0.2 s". */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

/** subject opens every message: which integration, which upstream. */
export function subject(target: UpstreamTarget): string {
  return `integration "${target.integration}" (upstream ${target.shown})`;
}

/** setHint is the command an operator runs to fix the stored record. */
function setHint(target: UpstreamTarget, flag: string): string {
  return `sluice integrations set ${target.orgId} ${target.integration} ${flag}`;
}

/** timeoutFailure: the upstream took longer than the driver's bound. */
export function timeoutFailure(target: UpstreamTarget, timeoutMs: number): UpstreamFailure {
  return new UpstreamFailure(`${subject(target)} did not answer within ${seconds(timeoutMs)}`);
}

/** cancelledFailure: the caller left or the gateway's own deadline passed. */
export function cancelledFailure(target: UpstreamTarget, reason: unknown): UpstreamFailure {
  const why = reason instanceof Error && reason.message ? reason.message : typeof reason === 'string' && reason ? reason : 'the request was aborted';
  return new UpstreamFailure(redact(`${subject(target)}: the call was cancelled: ${why}`, target.secrets));
}

/** droppedFailure: the response stream ended or broke before the answer arrived. */
export function droppedFailure(target: UpstreamTarget, cause: unknown): UpstreamFailure {
  const how = cause === undefined ? 'closed the response' : `dropped the connection (${clip(causeText(cause))})`;
  return new UpstreamFailure(redact(`${subject(target)} ${how} before answering; the upstream server may have crashed or restarted`, target.secrets));
}

/**
 * describeFailure turns whatever the SDK or fetch threw into one actionable, redacted message.
 * `doing` says what was asked ("tools/list", `tools/call "search_issues"`).
 */
export function describeFailure(target: UpstreamTarget, err: unknown, doing: string): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  const s = subject(target);
  let message: string;
  if (err instanceof StreamableHTTPError) {
    const code = err.code ?? -1;
    if (code === 401 || code === 403) {
      message = `${s} refused the stored credentials (HTTP ${code}); check the headers with '${setHint(target, '--header "authorization=…"')}'`;
    } else if (code === 404 || code === 405) {
      message = `${s} has no MCP endpoint at that path (HTTP ${code}); check the URL with '${setHint(target, '--url …')}'`;
    } else if (code > 0) {
      message = `${s} answered HTTP ${code} to ${doing}: ${clip(bodyText(err.message))}`;
    } else {
      message = `${s} does not speak MCP over streamable HTTP: ${clip(bodyText(err.message))}; check the URL with '${setHint(target, '--url …')}'`;
    }
  } else if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return new UpstreamFailure(`${s} did not answer ${doing} in time`);
    if (err.code === ErrorCode.ConnectionClosed) message = `${s} closed the connection during ${doing}`;
    else message = `${s} refused ${doing}: ${clip(err.message)}`;
  } else if (isSchemaError(err)) {
    message = `${s} answered ${doing} with a malformed result: ${schemaIssue(err)}`;
  } else if ((isFetchFailure(err) && socketClosed(err)) || isTerminated(err)) {
    return droppedFailure(target, err);
  } else if (isFetchFailure(err)) {
    message = `${s} is unreachable: ${clip(causeText(err))}; check the URL with '${setHint(target, '--url …')}'`;
  } else {
    message = `${s} failed during ${doing}: ${clip(causeText(err))}`;
  }
  return new UpstreamFailure(redact(message, target.secrets));
}

/** bodyText keeps what the upstream said, without the SDK's own prefix. */
function bodyText(message: string): string {
  return message.replace(/^Streamable HTTP error: /, '').replace(/^Error POSTing to endpoint: ?/, '') || 'no details';
}

/** clip keeps messages one readable line: an upstream error page can be kilobytes of HTML. */
function clip(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * isFetchFailure recognises the failure to reach the server at all (refused, unknown host, TLS):
 * undici rejects with `TypeError: fetch failed` and the real reason as `cause`.
 */
function isFetchFailure(err: unknown): err is TypeError {
  return err instanceof TypeError && err.message === 'fetch failed';
}

/** isTerminated is undici's word for a response body cut off by the peer. */
function isTerminated(err: unknown): boolean {
  return err instanceof TypeError && err.message === 'terminated';
}

/** socketClosed tells a connection the upstream accepted and then closed from one never made. */
function socketClosed(err: Error): boolean {
  return (err.cause as { code?: unknown } | undefined)?.code === 'UND_ERR_SOCKET';
}

/**
 * causeText digs the useful reason out of an error chain: "fetch failed" alone says nothing, its
 * cause says "connect ECONNREFUSED 127.0.0.1:4000"; an AggregateError (one attempt per address)
 * has an empty message and the reasons inside.
 */
export function causeText(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 5; depth++) {
    if (!(current instanceof Error)) break;
    const cause = (current as { cause?: unknown }).cause;
    const generic = current.message === 'fetch failed' || current.message === 'terminated' || current.message === '';
    if (cause !== undefined && generic) {
      current = cause;
      continue;
    }
    if (current instanceof AggregateError && current.errors.length > 0) {
      const inner = current.errors[0] as unknown;
      return inner instanceof Error && inner.message ? inner.message : String((current as { code?: string }).code ?? 'connection failed');
    }
    if (current.message) return current.message;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    break;
  }
  if (current instanceof Error) return current.message || current.name;
  return String(current);
}

function isSchemaError(err: unknown): err is { issues: Array<{ path?: unknown[]; message?: string }> } {
  return err instanceof Error && Array.isArray((err as { issues?: unknown }).issues);
}

function schemaIssue(err: { issues: Array<{ path?: unknown[]; message?: string }> }): string {
  const first = err.issues[0];
  if (!first) return 'does not match the MCP schema';
  const where = first.path && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
  return clip(`${where}${first.message ?? 'invalid'}`);
}
