import { loadConfig, settingsTable, unknownSettings } from '../config.js';
import type { Command } from './command.js';

export const serve: Command = {
  name: 'serve',
  summary: 'Run the Sluice HTTP service.',
  usage: 'sluice serve [--port N] [--host ADDR] [--data-dir DIR] [--demo]',
  options: {
    port: { type: 'string', valueName: 'N', description: 'Port to listen on (overrides SVC_PORT).' },
    host: { type: 'string', valueName: 'ADDR', description: 'Address to listen on (overrides SVC_HOST).' },
    'data-dir': { type: 'string', valueName: 'DIR', description: 'Data directory (overrides SVC_DATA_DIR).' },
    demo: { type: 'boolean', description: 'Feed the first org with generated demo data: the last hour at once, then live; an org without data also gets the example dashboards.' },
  },
  details: () => `Environment variables:\n${settingsTable()}`,
  async run(values) {
    const env = { ...process.env };
    if (typeof values.port === 'string') env.SVC_PORT = values.port;
    if (typeof values.host === 'string') env.SVC_HOST = values.host;
    if (typeof values['data-dir'] === 'string') env.SVC_DATA_DIR = values['data-dir'];
    const config = loadConfig(env);
    // Loaded here, not at the top: the other commands share this entry point and should start fast.
    const [{ startService }, { startDemo }] = await Promise.all([import('../service.js'), import('../gen/demo.js')]);
    const service = await startService(config);
    const unknown = unknownSettings(env);
    if (unknown.length > 0) service.log.warn({ variables: unknown }, 'ignoring unknown SVC_ variables; see sluice serve --help for the settings');
    const stopDemo = values.demo ? await startDemo(service, config.host) : async () => {};
    await new Promise<void>(() => {
      const onSignal = (signal: NodeJS.Signals): void => {
        service.log.info({ signal }, 'shutting down');
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        // Idle keep-alive connections would hold the event loop open for their whole timeout,
        // so once in-flight work is done and the log is flushed the process exits outright.
        void stopDemo()
          .then(() => service.stop())
          .then(() => service.log.flush(() => process.exit(0)));
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    });
    return 0; // not reached: the signal handler exits the process
  },
};
