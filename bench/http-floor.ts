/**
 * The floor of any Node.js HTTP API on this machine, for the API benchmark (bench/api-load.ts):
 * `GET /coordinates/{country}/{lat}/{lon}` on a bare node:http server that runs the coordinate
 * endpoint's SQL on the lookup pool's settings and sends its row as JSON, rendered by PostgreSQL
 * (row_to_json) so that Node.js neither parses nor serializes it. No token, no call count, no
 * validation, no schema: what is left between wrk and PostgreSQL is HTTP and the driver. The
 * distance from this floor to the bare pgbench is what no API layer can recover; the distance
 * from the API to this floor is what nordprop's own work per request costs.
 *
 *   DATABASE_URL=… PORT=… node dist/bench/http-floor.js
 */
import http from 'node:http';
import { loadConfig } from '../lib/config.js';
import { getPool } from '../lib/db.js';
import { COORDINATE_SQL } from '../api/store/coordinates.js';
import { countryStatementOnce } from '../api/store/country-statement.js';

/** The endpoint's statement, its row rendered as JSON text by PostgreSQL. */
const FLOOR_SQL = `SELECT row_to_json(l)::text AS body FROM (${COORDINATE_SQL}) l`;
const PATH = /^\/coordinates\/(NO|SE)\/(-?[0-9.]+)\/(-?[0-9.]+)$/;
const config = loadConfig();
const pool = getPool(config.databaseUrl, 'api-lookup');

const server = http.createServer((request, response) => {
  const match = PATH.exec(request.url ?? '');
  if (!match) {
    response.writeHead(404).end();
    return;
  }
  pool
    .query({ ...countryStatementOnce('floor-coordinates', FLOOR_SQL, match[1]), values: [Number(match[2]), Number(match[3])] })
    .then((result) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(result.rows[0]?.body ?? '{}');
    })
    .catch((error: Error) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(error.message);
    });
});

server.listen(Number(process.env.PORT ?? 8081), '127.0.0.1', () => {
  process.stdout.write(`nordprop HTTP floor listening on ${process.env.PORT ?? 8081}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
