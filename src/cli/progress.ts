/**
 * ProgressReporter shows how far a long CLI action has come, on stderr so stdout keeps only the
 * result a script reads. On a terminal one line is redrawn in place; otherwise (a pipe, a CI
 * log) a line is written at every tenth of the way, so logs stay short.
 */
export class ProgressReporter {
  private lastTenth = -1;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /** update reports `done` of `total` units; `detail` adds what they amount to. */
  update(done: number, total: number, detail: string): void {
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    const text = `${this.label}: ${percent}% (${done}/${total}) ${detail}`;
    if (this.out.isTTY) {
      this.out.write(`\r${text}\u001b[K`);
      this.drawn = true;
      return;
    }
    const tenth = Math.floor(percent / 10);
    if (tenth === this.lastTenth) return;
    this.lastTenth = tenth;
    this.out.write(`${text}\n`);
  }

  /** finish ends the redrawn line on a terminal. */
  finish(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
