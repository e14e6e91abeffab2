import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * WebAsset is one file of the built web app, held in memory with the compressed copies the
 * build wrote beside it (`.br`, `.gz`). The app is a few hundred kilobytes, so reading it once
 * at start-up keeps every request a map lookup with no file system access on the main thread.
 */
export interface WebAsset {
  body: Buffer;
  brotli: Buffer | undefined;
  gzip: Buffer | undefined;
  contentType: string;
  /** immutable is true for files whose name carries a content hash (everything under assets/). */
  immutable: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

function readIfPresent(file: string): Buffer | undefined {
  return existsSync(file) && statSync(file).isFile() ? readFileSync(file) : undefined;
}

/**
 * loadWebAssets reads the built app from `dir` (dist/web) into a map keyed by URL path
 * (`/index.html`, `/assets/index-3f2a.js`). A missing directory gives an empty map: the API
 * still runs, and `/` says how to build the app.
 */
export function loadWebAssets(dir: string): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  if (!existsSync(dir)) return assets;
  for (const file of filesUnder(dir)) {
    if (file.endsWith('.br') || file.endsWith('.gz')) continue;
    const urlPath = '/' + path.relative(dir, file).split(path.sep).join('/');
    assets.set(urlPath, {
      body: readFileSync(file),
      brotli: readIfPresent(`${file}.br`),
      gzip: readIfPresent(`${file}.gz`),
      contentType: CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
      immutable: urlPath.startsWith('/assets/'),
    });
  }
  return assets;
}

/** EncodedBody is the representation chosen for one request. */
export interface EncodedBody {
  body: Buffer;
  encoding: 'br' | 'gzip' | undefined;
}

/**
 * pickEncoding chooses brotli, then gzip, when the client accepts it and the build wrote it.
 * A coding listed with q=0 is refused, as RFC 9110 says.
 */
export function pickEncoding(asset: WebAsset, acceptEncoding: string | undefined): EncodedBody {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const refused = params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
    if (name !== '' && !refused) accepted.add(name.trim());
  }
  if (asset.brotli && accepted.has('br')) return { body: asset.brotli, encoding: 'br' };
  if (asset.gzip && (accepted.has('gzip') || accepted.has('*'))) return { body: asset.gzip, encoding: 'gzip' };
  return { body: asset.body, encoding: undefined };
}
