/**
 * The calibration server of the vct-log benchmark: a bare node:http server answering every GET with a
 * fixed JSON body the size of a 100,000-entry proof. Driven with the same load as the log, it shows what
 * the machine itself (loopback, scheduling, the load generator) adds to every latency.
 *
 *   node bench/dist/vct-log/floor-server.js <port>
 */
import http from 'node:http';

const port = Number(process.argv[2]);
const body = `${JSON.stringify({ leaf_index: 4242, audit_path: Array.from({ length: 17 }, (_, i) => Buffer.alloc(32, i).toString('base64')) })}\n`;
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(port, '127.0.0.1', () => console.log(`floor server listening on ${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
