import { loadConfig, settingsTable, unknownSettings } from '../config.js';
import { ROLES, ROLE_TABLE, isRole } from '../roles/roles.js';
import { UsageError, type Command } from './command.js';

export const serve: Command = {
  name: 'serve',
  summary: 'Run the Sluice HTTP service.',
  usage: `sluice serve [--role ${ROLES.join('|')}] [--port N] [--host ADDR] [--data-dir DIR] [--demo]`,
  options: {
    port: { type: 'string', valueName: 'N', description: 'Port to listen on (overrides SVC_PORT).' },
    host: { type: 'string', valueName: 'ADDR', description: 'Address to listen on (overrides SVC_HOST).' },
    'data-dir': { type: 'string', valueName: 'DIR', description: 'Data directory (overrides SVC_DATA_DIR).' },
    role: { type: 'string', valueName: 'ROLE', description: `What this process runs (overrides SVC_ROLE; default all): ${ROLES.join(', ')}. See "Roles" below.` },
    demo: { type: 'boolean', description: 'Feed the first org with generated demo data: the last hour at once, then live; an org without data also gets the example dashboards.' },
  },
  details: () => `Roles:\n${ROLES.map((r) => `  ${r.padEnd(11)}${ROLE_TABLE[r].summary}`).join('\n')}\n\nEnvironment variables:\n${settingsTable()}`,
  async run(values) {
    const env = { ...process.env };
    if (typeof values.port === 'string') env.SVC_PORT = values.port;
    if (typeof values.host === 'string') env.SVC_HOST = values.host;
    if (typeof values['data-dir'] === 'string') env.SVC_DATA_DIR = values['data-dir'];
    if (typeof values.role === 'string') {
      if (!isRole(values.role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}, got "${values.role}"`);
      env.SVC_ROLE = values.role;
    }
    const config = loadConfig(env);
    // The demo writes through the ingest routes and creates dashboards: it needs the whole service.
    if (values.demo === true && config.role !== 'all') throw new UsageError(`--demo needs the all role, not ${config.role}`);
    // Signals are watched from the start: one that arrives while the server is still starting
    // stops it as soon as it is up, instead of killing the process mid-write.
    const signalled = new Promise<NodeJS.Signals>((resolve) => {
      const onSignal = (signal: NodeJS.Signals): void => resolve(signal);
      // Kept registered for the whole shutdown: a terminal's Ctrl-C reaches both npm and this
      // process, and npm forwards it again, so a second signal must not kill the process halfway.
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    });
    // Loaded here, not at the top: the other commands share this entry point and should start fast.
    const [{ startService }, { startDemo }] = await Promise.all([import('../service.js'), import('../gen/demo.js')]);
    const service = await startService(config);
    const unknown = unknownSettings(env);
    if (unknown.length > 0) service.log.warn({ variables: unknown }, 'ignoring unknown SVC_ variables; see sluice serve --help for the settings');
    const stopDemo = values.demo ? await startDemo(service, config.host) : async () => {};
    const signal = await signalled;
    service.log.info({ signal, deadlineMs: shutdownDeadlineMs(config.shutdownTimeoutMs) }, 'shutting down');
    // The deadline bounds the whole shutdown, whatever hangs (a store that will not close, a
    // broken stdout): past it the process exits with status 1 rather than lingering.
    setTimeout(() => {
      process.stderr.write(`sluice serve: shutdown did not finish within ${shutdownDeadlineMs(config.shutdownTimeoutMs)} ms; exiting\n`);
      process.exit(1);
    }, shutdownDeadlineMs(config.shutdownTimeoutMs));
    await stopDemo();
    await service.stop();
    // Idle keep-alive connections would hold the event loop open for their whole timeout, so
    // once in-flight work is done and the log is flushed the process exits outright.
    await new Promise<void>((resolve) => service.log.flush(() => resolve()));
    process.exit(0);
  },
};

/**
 * shutdownDeadlineMs is how long a stop may take in all: SVC_SHUTDOWN_TIMEOUT_MS for requests
 * in flight, then up to CLOSE_ALLOWANCE_MS to end streams, flush the WAL and close the stores.
 */
export function shutdownDeadlineMs(shutdownTimeoutMs: number): number {
  return shutdownTimeoutMs + CLOSE_ALLOWANCE_MS;
}

const CLOSE_ALLOWANCE_MS = 15_000;
