import { createRequire } from 'node:module';
import type * as Uws from 'uWebSockets.js';

/**
 * UwsModule is the native uWebSockets.js API the HTTP front uses (App, listen, socket helpers).
 * Both builds export the listen option as a number; the typings only declare it as an enum.
 */
export type UwsModule = typeof Uws & { LIBUS_LISTEN_EXCLUSIVE_PORT: number };

/**
 * UwsCandidate is one uWebSockets.js build the service can run on. uWebSockets.js ships one
 * native binary per Node ABI, linked against one glibc, and no single published build covers
 * every Node line: each candidate is tried in order and the first that loads is used.
 */
export interface UwsCandidate {
  /** name is the package as package.json spells it, with the upstream build it stands for. */
  name: string;
  /** runsOn says where this build loads, for the message when none does. */
  runsOn: string;
  load(): UwsModule;
}

export interface UwsBuild {
  name: string;
  module: UwsModule;
}

/** SUPPORTED_PLATFORMS is the one sentence README's "Supported platforms" section expands on. */
export const SUPPORTED_PLATFORMS =
  'Node.js 22 or 24 on Linux x64 or arm64 with glibc 2.38 or newer (not musl), macOS, or Windows x64; Node.js 20 (end of life) also on glibc 2.28 or newer';

const require = createRequire(import.meta.url);

/**
 * DEFAULT_CANDIDATES, newest first. The modern build (an optional dependency) covers Node 20
 * to 25 but needs glibc 2.38. The older build covers Node 16 to 20 and needs only glibc 2.27; its
 * package entry point silently swaps in a pure JavaScript fallback when its binary does not
 * load, which answers the first request with a crash instead of failing at start, so its
 * binary is required directly and a missing or unloadable one counts as "does not load".
 */
export const DEFAULT_CANDIDATES: readonly UwsCandidate[] = [
  {
    name: 'uws-modern (@btc-vision/uwebsockets.js 20.57)',
    runsOn: 'Node 20, 22, 24, 25; glibc 2.38+',
    load: () => require('uws-modern') as UwsModule,
  },
  {
    name: 'uWebSockets.js (@trufflesuite/uws-js-unofficial 20.30)',
    runsOn: 'Node 16, 18, 20',
    load: () => require(`uWebSockets.js/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`) as UwsModule,
  },
];

/** UwsUnavailableError stops the service at start when no build loads on this Node and libc. */
export class UwsUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UwsUnavailableError';
  }
}

/** runtimeDescription names what a build must match: Node version and ABI, platform, glibc. */
export function runtimeDescription(): string {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  const libc = header?.glibcVersionRuntime ? `, glibc ${header.glibcVersionRuntime}` : '';
  return `Node ${process.versions.node} (ABI ${process.versions.modules}) on ${process.platform} ${process.arch}${libc}`;
}

/**
 * whyNotLoaded keeps the line of a load error that says what is missing (a package, a binary
 * for this ABI, or a libc symbol), without the require stack Node appends.
 */
function whyNotLoaded(err: unknown): string {
  const lines = String((err as Error)?.message ?? err).split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const stackAt = lines.indexOf('Require stack:');
  const last = (stackAt >= 0 ? lines.slice(0, stackAt) : lines).at(-1) ?? 'failed to load';
  if (/Cannot find module '[^']*\.node'/.test(last)) return 'no binary for this Node ABI and platform';
  if (/Cannot find module/.test(last)) return 'not installed';
  return last;
}

/** selectUws returns the first candidate that loads, or explains why none did. */
export function selectUws(candidates: readonly UwsCandidate[]): UwsBuild {
  const failures: string[] = [];
  for (const candidate of candidates) {
    try {
      const module = candidate.load();
      if (typeof module.App !== 'function' || typeof module.us_listen_socket_close !== 'function' || typeof module.LIBUS_LISTEN_EXCLUSIVE_PORT !== 'number') {
        throw new Error('does not export the uWebSockets.js API');
      }
      return { name: candidate.name, module };
    } catch (err) {
      failures.push(`  - ${candidate.name} [${candidate.runsOn}]: ${whyNotLoaded(err)}`);
    }
  }
  throw new UwsUnavailableError(
    [
      `no uWebSockets.js build loads on ${runtimeDescription()}.`,
      `Sluice runs on ${SUPPORTED_PLATFORMS}.`,
      'Builds tried:',
      ...failures,
    ].join('\n'),
  );
}

let loaded: UwsBuild | undefined;

/** uwsBuild loads the HTTP front's native module once per process (see DEFAULT_CANDIDATES). */
export function uwsBuild(): UwsBuild {
  loaded ??= selectUws(DEFAULT_CANDIDATES);
  return loaded;
}
