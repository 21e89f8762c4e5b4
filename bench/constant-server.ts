/**
 * Process entry of the benchmark's HTTP floor: Node's own `node:http`
 * server, no framework and no database, answering every request with the
 * body in `CONSTANT_BODY` (the run passes resc's answer to the read by id)
 * as `application/json`. What the load generator drives against it on the same
 * cores is the most any Node server could answer with that body here, so
 * the report sets the read by id beside it as well as beside pgbench's
 * ceiling (README, "Benchmark"). `PORT` as for the other servers; prints
 * `listening <port>` once ready.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const text = process.env.CONSTANT_BODY;
if (text === undefined) throw new Error("CONSTANT_BODY is not set");
const body = Buffer.from(text, "utf8");
const headers = { "content-type": "application/json; charset=utf-8", "content-length": String(body.length) };

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
