import type { CliIo, Output } from './output.js';

const WIDTH = 30;
/** Off a terminal, a line at most this often. */
const LINE_EVERY_MS = 5_000;

/**
 * A progress bar on stderr for work whose share done is known (`anchor export`, `anchor import`): redrawn in
 * place on a terminal, a plain line every few seconds otherwise, so `--json` output on stdout stays clean.
 */
export class ProgressBar {
  private readonly started = Date.now();
  private lastLine = 0;
  private fraction = 0;
  private detail = '';

  constructor(
    private readonly out: Output,
    private readonly io: CliIo,
    private readonly label: string,
  ) {}

  update(fraction: number, detail: string): void {
    this.fraction = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
    this.detail = detail;
    if (this.io.interactive) {
      this.io.stderr(`\r\u001b[2K${this.line()}`);
      return;
    }
    if (Date.now() - this.lastLine < LINE_EVERY_MS) return;
    this.lastLine = Date.now();
    this.out.note(this.line());
  }

  done(summary: string): void {
    if (this.io.interactive) this.io.stderr('\r\u001b[2K');
    this.out.note(`${summary} (${this.elapsed()})`);
  }

  fail(): void {
    if (this.io.interactive) this.io.stderr('\n');
    this.out.note(`${this.label}: stopped after ${this.elapsed()} at ${this.detail}`);
  }

  private line(): string {
    const filled = Math.round(this.fraction * WIDTH);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]`;
    return `${this.label} ${bar} ${(this.fraction * 100).toFixed(1).padStart(5)}% ${this.detail} ${this.out.paint(this.elapsed(), 'dim')}`;
  }

  private elapsed(): string {
    return `${((Date.now() - this.started) / 1000).toFixed(1)} s`;
  }
}
