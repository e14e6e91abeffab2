import type { Config } from '../config.js';
import type { PostgresSettings } from './connection.js';

/** postgresSettings picks the SVC_POSTGRES_* settings out of the configuration. */
export function postgresSettings(config: Config): PostgresSettings {
  return {
    url: config.postgresUrl,
    host: config.postgresHost,
    port: config.postgresPort,
    user: config.postgresUser,
    password: config.postgresPassword,
    passwordFile: config.postgresPasswordFile,
    database: config.postgresDatabase,
    poolSize: config.postgresPoolSize,
    statementTimeoutMs: config.postgresStatementTimeoutMs,
  };
}
