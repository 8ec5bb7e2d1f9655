/**
 * The HTTP floor of the kms pair: a bare node:http server that reads each request's body and answers at once
 * with JSON the size of the kms's answer to one sign, nothing else. Driven by the same autocannon as the kms,
 * its requests per second are the most any one-sign-per-request service in Node gets of these cores: a
 * machine figure like the signing loop, not a peer.
 *
 *   node bare-http-process.js <port> <answer bytes>
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const answerBytes = Number(process.argv[3] ?? 120);
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: bare-http-process.js <port> <answer bytes>');
const unpadded = JSON.stringify({ signature: '', keyVersion: 1 }).length;
const body = JSON.stringify({ signature: 's'.repeat(Math.max(0, answerBytes - unpadded)), keyVersion: 1 });
const headers = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };

createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, headers).end(body));
}).listen(port, '127.0.0.1');

process.on('SIGTERM', () => process.exit(0));
