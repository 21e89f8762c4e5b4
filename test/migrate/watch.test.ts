/**
 * `resc dev --watch` (docs/decisions/1241-dev-keeps-data.md): a saved schema is recompiled, the
 * embedded database migrated with its rows, and the routes swapped on the
 * same port; a schema with an error is reported and the last good one kept
 * serving.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startResc, type ServeProcess } from "../support/serve-process.js";
import { until } from "../support/until.js";

const V1 = `table notes {
  id   bigint @primary_key @default(identity)
  body text

  resource "/notes" { ops = [crud, list] }
}
`;
const V2 = `${V1}
table tags {
  id    bigint @primary_key @default(identity)
  label text

  resource "/tags" { ops = [crud, list] }
}
`;

let dir = "";
let dev: ServeProcess;
let base = "";
const out = (): string => dev.output();
/** Waits for `what` to hold, naming it and what resc printed when it does not. */
const seen = (what: string, f: () => boolean | Promise<boolean>): Promise<true> => until(what, f, 20_000, out);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-watch-"));
  await writeFile(path.join(dir, "schema.resource"), V1);
  dev = await startResc("dev", "schema.resource", ["--watch", "--data-dir", "db"], { cwd: dir });
  base = dev.base;
});

afterAll(async () => {
  await dev?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("resc dev --watch", () => {
  it("serves a new resource after a save, on the same port, keeping the rows", async () => {
    const created = await fetch(`${base}/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"body":"kept"}',
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/tags`)).status).toBe(404);
    await writeFile(path.join(dir, "schema.resource"), V2);
    await seen("/tags served", async () => (await fetch(`${base}/tags`)).status === 200);
    expect(out()).toMatch(/reloaded schema\.resource in \d+ ms/);
    const notes = (await (await fetch(`${base}/notes`)).json()) as { items: unknown[] };
    expect(notes.items).toEqual([{ id: 1, body: "kept" }]);
  });

  it("keeps serving the last good schema when the saved one has an error", async () => {
    await writeFile(path.join(dir, "schema.resource"), V2.replace("label text", "label text @sortabel"));
    await seen("the error reported", () => out().includes("still serving the last good schema"));
    expect(out()).toMatch(/Unknown attribute "@sortabel"/);
    expect((await fetch(`${base}/tags`)).status).toBe(200);
    expect(dev.child.exitCode).toBeNull();
  });
});
