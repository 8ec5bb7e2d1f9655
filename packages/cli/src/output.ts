/**
 * What a command prints: one result (JSON with `--json`, readable text otherwise) on stdout, and progress
 * on stderr (a spinner with elapsed time on a terminal, plain lines when not), so `--json` output can be
 * piped while a person still sees what is happening.
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (spinners, colours). */
  readonly interactive: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
  env: process.env,
};

export interface Progress {
  /** A new step (replaces the spinner's label; a new line when not interactive). */
  step(label: string): void;
  done(summary: string): void;
  fail(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Output {
  constructor(
    private readonly io: CliIo,
    readonly json: boolean,
  ) {}

  /** Colours only on a terminal, and never with NO_COLOR set (no-color.org). */
  get colours(): boolean {
    return this.io.interactive && !this.json && this.io.env['NO_COLOR'] === undefined;
  }

  paint(text: string, colour: 'green' | 'red' | 'yellow' | 'dim' | 'bold'): string {
    if (!this.colours) return text;
    const codes = { green: 32, red: 31, yellow: 33, dim: 2, bold: 1 } as const;
    return `\u001b[${codes[colour]}m${text}\u001b[0m`;
  }

  /** The command's result: `value` as JSON with `--json`, else the text. */
  result(value: unknown, text: () => string): void {
    this.io.stdout(this.json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
  }

  note(line: string): void {
    this.io.stderr(`${line}\n`);
  }

  progress(label: string): Progress {
    const started = Date.now();
    const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    let current = label;
    if (!this.io.interactive) {
      this.note(`${label} ...`);
      return {
        step: (next) => {
          current = next;
          this.note(`${next} ... (${elapsed()})`);
        },
        done: (summary) => this.note(`${summary} (${elapsed()})`),
        fail: () => this.note(`${current}: failed after ${elapsed()}`),
      };
    }
    let frame = 0;
    const draw = () =>
      this.io.stderr(`\r\u001b[2K${FRAMES[frame++ % FRAMES.length]} ${current} ${this.paint(elapsed(), 'dim')}`);
    const timer = setInterval(draw, 100);
    timer.unref();
    draw();
    const end = (line: string) => {
      clearInterval(timer);
      this.io.stderr(`\r\u001b[2K${line}\n`);
    };
    return {
      step: (next) => {
        current = next;
        draw();
      },
      done: (summary) => end(`${this.paint('✔', 'green')} ${summary} ${this.paint(elapsed(), 'dim')}`),
      fail: () => end(`${this.paint('✖', 'red')} ${current} ${this.paint(elapsed(), 'dim')}`),
    };
  }
}

/** Left-aligned columns, two spaces apart; the header in bold on a terminal. */
export function table(output: Output, header: string[], rows: string[][]): string {
  const widths = header.map((title, i) =>
    Math.max(visible(title).length, ...rows.map((row) => visible(row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell + ' '.repeat(Math.max(0, widths[i]! - visible(cell).length)))
      .join('  ')
      .trimEnd();
  return [output.paint(line(header), 'bold'), ...rows.map(line)].join('\n');
}

function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
