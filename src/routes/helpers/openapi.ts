import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteSpec } from '../../http/router.js';
import { packageRoot } from '../../packageRoot.js';

/**
 * The OpenAPI document describes every route of the service. It lives in `schemas/` at the
 * package root, beside the other schemas, and is read once at start-up; the package root is
 * found the same way whether the code runs as source or compiled under `dist/`.
 */

/** openApiDocumentPath is where the document sits: `schemas/openapi.json` under the package root. */
export function openApiDocumentPath(root: string = packageRoot()): string {
  return path.join(root, 'schemas', 'openapi.json');
}

/**
 * loadOpenApiDocument reads and parses the document, so a missing or broken file stops
 * start-up instead of surfacing as an error on the first request.
 */
export function loadOpenApiDocument(file: string = openApiDocumentPath()): Buffer {
  const bytes = readFileSync(file);
  JSON.parse(bytes.toString('utf8'));
  return bytes;
}

/**
 * openApiRoutes serves the document without authentication: it describes the API and holds
 * no org data, and documentation tools fetch it before anyone has typed a key.
 */
export function openApiRoutes(document: Buffer = loadOpenApiDocument()): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      auth: 'none',
      handler: ({ res }) => res.send(200, document, 'application/json'),
    },
  ];
}
