/**
 * The did:plc peer of `npm run bench -- peers`: Bluesky's PLC directory (@did-plc/server) on PostgreSQL, started
 * the way its own bin starts it (migrations, then the server), on a loopback port, logging off (its default).
 *
 *   DATABASE_URL=postgres://... node plc-server.mjs <port>
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Database, PlcServer } = require('@did-plc/server');

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: plc-server.mjs <port>');
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL names the PostgreSQL database');

const db = Database.postgres({ url });
await db.migrateToLatestOrThrow();
// PlcServer.start() listens on every interface; the bench binds loopback only, so its app is served here.
const server = PlcServer.create({ db, port });
const http = server.app.listen(port, '127.0.0.1');
await new Promise((resolve, reject) => http.once('listening', resolve).once('error', reject));
console.log(`did:plc directory on 127.0.0.1:${port}`);
process.on('SIGTERM', () => {
  http.close();
  http.closeAllConnections();
  void db.close().finally(() => process.exit(0));
});
