/**
 * Reading a PostgreSQL connection URL, kept free of the driver so configuration can check a
 * URL without loading it.
 */

export interface UrlParts {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  ssl?: boolean | { rejectUnauthorized: boolean };
}

/**
 * parseUrl reads postgres://user:password@host:port/database?sslmode=...; a `host` query
 * parameter names a Unix socket directory (postgres://user@/db?host=/run/postgresql).
 */
export function parseUrl(text: string): UrlParts {
  let url: URL;
  try {
    // A socket URL (postgres://user@/db?host=/run/postgresql) has no host, which URL refuses.
    url = new URL(text.replace(/^(postgres(?:ql)?:\/\/[^/?#]*@)(?=[/?#]|$)/, '$1localhost'));
  } catch {
    throw new Error('the PostgreSQL URL is not a valid URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error(`the PostgreSQL URL must start with postgres://, got ${url.protocol}//`);
  const parts: UrlParts = {};
  const socketDir = url.searchParams.get('host');
  if (socketDir) parts.host = socketDir;
  else if (url.hostname !== '') parts.host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (url.port !== '') parts.port = Number(url.port);
  if (url.username !== '') parts.user = decodeURIComponent(url.username);
  if (url.password !== '') parts.password = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database !== '') parts.database = database;
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode === 'disable') parts.ssl = false;
  else if (sslmode === 'require' || sslmode === 'prefer') parts.ssl = { rejectUnauthorized: false };
  else if (sslmode === 'verify-ca' || sslmode === 'verify-full') parts.ssl = { rejectUnauthorized: true };
  return parts;
}
