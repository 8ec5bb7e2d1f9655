import { createReadStream } from 'node:fs';
import { appendFile, open, stat, truncate } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { required, type CommandContext, type CommandSpec } from '../command.js';
import { CliError } from '../errors.js';
import { ProgressBar } from '../progress-bar.js';

/** What the CLI reads of an export page (`GET /sidetree/v1/export`). */
interface ExportPage {
  items: unknown[];
  cursor: string;
  more: boolean;
  latestTransactionNumber: number;
}

function nodeUrlOf({ args }: CommandContext): string {
  return required(args.nodeUrl, 'node-url').replace(/\/+$/, '');
}

function headers(token: string | undefined, json = false): Record<string, string> {
  return {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(json ? { 'content-type': 'application/json' } : {}),
  };
}

async function failure(response: Response, what: string): Promise<CliError> {
  let message = await response.text();
  try {
    message = (JSON.parse(message) as { message?: string }).message ?? message;
  } catch {
    // not JSON: the text says what happened
  }
  return new CliError(`${what}: ${response.status} ${message}`);
}

/**
 * The cursor after the last whole line of an export file, and the file cut back to that line: an export
 * stopped mid-write (killed, disk full, network gone) resumes exactly where its last page ended.
 */
async function resumePoint(file: string): Promise<{ cursor: string; pages: number; items: number }> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return { cursor: '', pages: 0, items: 0 };
  }
  let cursor = '';
  let pages = 0;
  let items = 0;
  let whole = 0;
  let offset = 0;
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    const end = offset + Buffer.byteLength(line) + 1;
    offset = end;
    // The last line is whole only when its newline made it to the disk.
    if (end > size) break;
    try {
      const page = JSON.parse(line) as ExportPage;
      cursor = page.cursor;
      items += page.items.length;
      pages++;
      whole = end;
    } catch {
      break;
    }
  }
  if (whole < size) await truncate(file, whole);
  return { cursor, pages, items };
}

const exportCommand: CommandSpec = {
  name: 'export',
  describe:
    "Write every operation a node holds, page by page in anchor order, to a file (one export page a line), with a progress bar; --resume goes on from the file's last cursor",
  options: {
    file: { type: 'string', describe: 'The file to write (JSON lines, one page of GET /sidetree/v1/export each)' },
    resume: {
      type: 'boolean',
      default: false,
      describe: 'Go on after the last whole page of an existing file (a partial last line is cut off first)',
    },
    count: { type: 'number', default: 1000, describe: 'Operations per page (1 to 1000)' },
    follow: {
      type: 'boolean',
      default: false,
      describe: 'At the end, wait for new anchors and append them as they are committed (until interrupted)',
    },
  },
  examples: [
    ['anchor export --node-url http://127.0.0.1:8081 --file node1.jsonl', 'the whole history of a node'],
    ['anchor export --node-url http://127.0.0.1:8081 --file node1.jsonl --resume', 'go on after an interruption'],
  ],
  async run(context) {
    const { args, out, io } = context;
    const node = nodeUrlOf(context);
    const file = required(args['file'], 'file');
    const count = Number(args['count']);
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw new CliError('--count must be from 1 to 1000', 2);
    const existing = await stat(file).catch(() => undefined);
    if (existing && existing.size > 0 && args['resume'] !== true)
      throw new CliError(`${file} exists: give --resume to go on with it, or remove it`, 2);
    const start = await resumePoint(file);
    if (start.pages > 0) out.note(`resuming ${file} after ${start.items} operations (cursor ${start.cursor})`);
    const handle = await open(file, 'a');
    await handle.close();

    const bar = new ProgressBar(out, io, 'exporting');
    let cursor = start.cursor;
    let items = start.items;
    let pages = start.pages;
    const startedAt = Date.now();
    let exported = 0;
    try {
      for (;;) {
        const response = await fetch(`${node}/sidetree/v1/export?count=${count}&after=${encodeURIComponent(cursor)}`, {
          headers: headers(args.token),
        });
        if (!response.ok) throw await failure(response, `GET ${node}/sidetree/v1/export`);
        const text = await response.text();
        const page = JSON.parse(text) as ExportPage;
        if (page.items.length > 0) {
          // One write per page, newline last: a line is whole on disk or cut off by --resume.
          await appendFile(file, `${text}\n`);
          pages++;
          items += page.items.length;
          exported += page.items.length;
          cursor = page.cursor;
        }
        const transaction = Number(cursor.split(':')[0] ?? 0);
        const rate = exported / Math.max(0.001, (Date.now() - startedAt) / 1000);
        bar.update(
          page.latestTransactionNumber > 0 ? transaction / page.latestTransactionNumber : 1,
          `${items.toLocaleString('en-US')} operations, anchor ${transaction}/${page.latestTransactionNumber}, ${Math.round(rate).toLocaleString('en-US')} ops/s`,
        );
        if (page.more) continue;
        if (args['follow'] !== true) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    } catch (error) {
      bar.fail();
      throw error;
    }
    bar.done(`exported ${items.toLocaleString('en-US')} operations in ${pages} pages to ${file}`);
    out.result({ file, operations: items, pages, cursor }, () => `${file}: ${items} operations, last cursor ${cursor}`);
  },
};

const importCommand: CommandSpec = {
  name: 'import',
  describe:
    "Build a mirror: send each page of an export file to a node's POST /sidetree/v1/import, which verifies every anchor (linkset, proofs, batch files) before it commits it",
  options: {
    file: { type: 'string', describe: 'An export file written by anchor export' },
  },
  examples: [
    [
      'anchor import --node-url http://127.0.0.1:8083 --token admin-secret --file node1.jsonl',
      'fill an empty node from an export',
    ],
  ],
  async run(context) {
    const { args, out, io } = context;
    const node = nodeUrlOf(context);
    const file = required(args['file'], 'file');
    const size = (await stat(file).catch(() => undefined))?.size;
    if (size === undefined) throw new CliError(`cannot read ${file}`, 2);
    const bar = new ProgressBar(out, io, 'importing');
    const totals = { imported: 0, known: 0, operations: 0, pages: 0 };
    let read = 0;
    const startedAt = Date.now();
    try {
      for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
        read += Buffer.byteLength(line) + 1;
        if (line.trim() === '') continue;
        const response = await fetch(`${node}/sidetree/v1/import`, {
          method: 'POST',
          body: line,
          headers: headers(args.token, true),
        });
        if (!response.ok) throw await failure(response, `page ${totals.pages + 1} of ${file}`);
        const result = (await response.json()) as { imported: number; known: number; operations: number };
        totals.imported += result.imported;
        totals.known += result.known;
        totals.operations += result.operations;
        totals.pages++;
        const rate = totals.operations / Math.max(0.001, (Date.now() - startedAt) / 1000);
        bar.update(
          read / size,
          `${totals.operations.toLocaleString('en-US')} operations, ${totals.imported} anchors, ${Math.round(rate).toLocaleString('en-US')} ops/s`,
        );
      }
    } catch (error) {
      bar.fail();
      throw error;
    }
    bar.done(
      `imported ${totals.imported} anchors (${totals.operations.toLocaleString('en-US')} operations) from ${file}`,
    );
    out.result(
      totals,
      () => `${totals.imported} anchors imported (${totals.operations} operations), ${totals.known} already here`,
    );
  },
};

export const EXPORT_COMMANDS: CommandSpec[] = [exportCommand, importCommand];
