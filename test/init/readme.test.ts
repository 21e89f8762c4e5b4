/**
 * The README `resc init` writes (cli/init/readme.ts): the notes example's
 * shows the token's round trip; a schema of the user's names its own
 * collection, and drops the token sections when `resc token` can mint none
 * for it (docs/decisions/1242-init.md, docs/decisions/1367-access-rules.md).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectReadme } from "../../cli/init/readme.js";

const TEMPLATE = await readFile(path.resolve(import.meta.dirname, "../../templates/init/README.md"), "utf8");

describe("the README resc init writes", () => {
  it("shows the notes example's token: npm start, npm run token, curl with it, a 401 without, the CLI's --token", () => {
    const text = projectReadme(TEMPLATE, {
      bin: "notes",
      secretEnv: "NOTES_JWT_SECRET",
      tokenEnv: "NOTES_TOKEN",
      tokenArgs: "--sub alice",
    });
    expect(text).not.toMatch(/<!--|NAME|SECRET_ENV|TOKEN_ENV|TOKEN_ARGS|ANONYMOUS_ROLE/);
    expect(text).toContain("a request without one is answered 401");
    expect(text).not.toContain("served as the role");
    const order = [
      "npm start",
      "TOKEN=$(npm run -s token -- --sub alice)",
      'curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:3000/notes',
      "curl -i http://127.0.0.1:3000/notes      # no token: 401 Unauthorized",
    ].map((line) => text.indexOf(line));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain("While `NOTES_JWT_SECRET` is unset, `npm start` verifies tokens");
    expect(text).toContain('npx notes notes list --done false --token "$TOKEN"');
    expect(text).toContain("export NOTES_TOKEN=$(npm run -s token -- --sub alice)");
    expect(text).toContain("with a token of `--sub bob` the list is empty");
    expect(text).not.toMatch(/\n\n\n/);
  });

  it("a schema of the user's without tokens: its collection, no token sections, no Authorization header", () => {
    const text = projectReadme(TEMPLATE, {
      bin: "shop",
      tokenEnv: "SHOP_TOKEN",
      tokenArgs: "--sub alice",
      collection: "/products",
    });
    expect(text).not.toMatch(
      /<!--|NAME|SECRET_ENV|TOKEN_ENV|TOKEN|token|\/notes|notes list|notes create|Authorization/,
    );
    expect(text).toContain("curl 'http://127.0.0.1:3000/products'\n");
    expect(text).toContain("npx shop products list\n");
    expect(text).not.toContain("curl -X POST");
    expect(text).not.toMatch(/\n\n\n/);
  });

  it("a schema of the user's with HS* tokens: its collection and variables, without the notes example's prose", () => {
    const text = projectReadme(TEMPLATE, {
      bin: "desk",
      secretEnv: "DESK_SECRET",
      tokenEnv: "DESK_TOKEN",
      tokenArgs: "--sub alice",
      collection: "/tickets",
    });
    expect(text).not.toMatch(/<!--|NAME|SECRET_ENV|TOKEN_ENV|\/notes|notes list|notes create|owner/);
    for (const line of [
      "TOKEN=$(npm run -s token -- --sub alice)",
      'curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:3000/tickets\n',
      "curl -i http://127.0.0.1:3000/tickets",
      `curl -H "Authorization: Bearer $TOKEN" 'http://127.0.0.1:3000/tickets'\n`,
      'npx desk tickets list --token "$TOKEN"\n',
      "export DESK_TOKEN=$(npm run -s token -- --sub alice)\nnpx desk tickets list\n",
      "While `DESK_SECRET` is unset",
    ])
      expect(text).toContain(line);
  });

  it("a schema of the user's requiring a role and a claim, with an anonymous role: its token command, the anonymous sentence", () => {
    const tokenArgs = "--sub alice --role member --claim org=3f0c9d52-5b7e-4a59-8c1e-2c3b4d5e6f70";
    const text = projectReadme(TEMPLATE, {
      bin: "club",
      secretEnv: "CLUB_JWT_SECRET",
      tokenEnv: "CLUB_TOKEN",
      tokenArgs,
      collection: "/events",
      anonymous: "visitor",
    });
    expect(text).not.toMatch(/<!--|NAME|SECRET_ENV|TOKEN_ENV|TOKEN_ARGS|ANONYMOUS_ROLE/);
    for (const line of [
      `TOKEN=$(npm run -s token -- ${tokenArgs})\n`,
      `export CLUB_TOKEN=$(npm run -s token -- ${tokenArgs})\n`,
      "one without is served as the role `visitor`, and\nan operation that role is not granted is answered 401 with\n`WWW-Authenticate: Bearer`.",
      "curl -i http://127.0.0.1:3000/events      # no token: as visitor, 401 unless granted\n",
    ])
      expect(text).toContain(line);
    // The 401 sentence is the schema without an anonymous role's: none of it is left here.
    expect(text).not.toMatch(/answered 401\.|no token: 401|--sub alice\)/);
    expect(text).not.toMatch(/\n\n\n/);
  });
});
