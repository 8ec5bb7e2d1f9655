/**
 * Turns a stream's chunks into whole lines: a child's output arrives in pieces that may end mid-line, and
 * a prefix must go in front of each line, not each piece.
 */
export class LineForwarder {
  private partial = '';

  constructor(private readonly onLine: (line: string) => void) {}

  write(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.onLine(line.replace(/\r$/, ''));
  }

  /** Hands on an unterminated last line (the process has ended). */
  flush(): void {
    if (this.partial !== '') this.onLine(this.partial);
    this.partial = '';
  }
}
