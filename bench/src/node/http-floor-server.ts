/**
 * The HTTP floor of the node bench (`node.bench.ts`): a bare node:http server that answers a create the way
 * the node's intake does in shape only. It reads the body, parses it as JSON, and answers 1,030 bytes of
 * JSON with the kit's security headers 4 ms later, about a group commit's wait. Under the held phase's load,
 * its CPU per request is what Node's HTTP server, its timers and the kernel's loopback cost on this machine
 * at that moment, before any work of the node's own. It is a machine figure like the Ed25519 loop: the
 * node's CPU per create is read against it.
 *
 *   node http-floor-server.js <port>
 *
 * `GET /cpu` answers the process's CPU time so far (all threads) in microseconds; any other request is read
 * as a create and answered as above, or with a 400 when its body is not JSON.
 */
import { createServer } from 'node:http';
import { securityHeaders } from '@anchor/common/http';

/** The size of the node's answer to a bench create (a DID resolution result), measured on 2026-11-26. */
const ANSWER_BYTES = 1_030;
const COMMIT_WAIT_MS = 4;

const unpadded = JSON.stringify({ didDocument: { id: 'x' }, padding: '' }).length;
const body = JSON.stringify({ didDocument: { id: 'x' }, padding: 'p'.repeat(ANSWER_BYTES - unpadded) });
const fields = securityHeaders().flatMap(([name, value]) => [name, value]);
fields.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body)));

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: http-floor-server.js <port>');

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/cpu') {
    const { user, system } = process.cpuUsage();
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(String(user + system));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('not JSON');
      return;
    }
    setTimeout(() => res.writeHead(200, fields).end(body), COMMIT_WAIT_MS);
  });
}).listen(port, '127.0.0.1');

process.on('SIGTERM', () => process.exit(0));
