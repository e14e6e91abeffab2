/**
 * StartupError is a reason the server cannot start that the operator fixes outside Sluice (a
 * busy port, a data directory in use). The CLI prints its message alone, without a stack trace.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
