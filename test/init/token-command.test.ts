/**
 * The token command `resc init` prints, writes in the README and `npm start`
 * names (runtime/auth/development.ts, docs/decisions/1242-init.md): it gives
 * `resc token` the role and the claims the schema requires, with example
 * values of their types, so the token it mints is one the service accepts.
 */
import { describe, expect, it } from "vitest";
import { compileSource } from "../../compiler/compile.js";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { developmentPayload } from "../../cli/token/mint.js";
import { principalFromPayload } from "../../runtime/auth/claims.js";
import {
  developmentTokenArguments,
  developmentTokenCommand,
  exampleClaimValue,
} from "../../runtime/auth/development.js";
import type { ClaimDescriptor, ServiceDescriptor } from "../../runtime/descriptor.js";

/** The descriptor of a schema of `auth` and `tables` (with HS256 settings). */
function service(auth: string, tables = ""): ServiceDescriptor {
  const text = `auth {\n  jwt {\n    algorithms = [HS256]\n    secret_env = "T_JWT_SECRET"\n  }\n${auth}\n}\n${tables}`;
  const r = compileSource(text, "t.resource");
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
  return buildDescriptor(r.schema);
}

/** The arguments as `resc token`'s flags read them: the subject, the roles and the `name=value` claims. */
function parsed(args: string[]): { sub: string; roles: string[]; claims: string[] } {
  const out = { sub: "", roles: [] as string[], claims: [] as string[] };
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === "--sub") out.sub = args[i + 1]!;
    else if (args[i] === "--role") out.roles.push(args[i + 1]!);
    else if (args[i] === "--claim") out.claims.push(args[i + 1]!);
    else throw new Error(`unexpected ${args[i]}`);
  }
  return out;
}

/** The principal the service makes of the token minted with `args`: throws where it would refuse it. */
function accepted(s: ServiceDescriptor, args: string[]) {
  const { sub, roles, claims } = parsed(args);
  const payload = developmentPayload(s.auth!, { subject: sub, roles, claims, ttlSeconds: 60 }, 1_000);
  return principalFromPayload(s.auth!, payload);
}

describe("the development token command resc init prints", () => {
  it("is --sub alice alone for the notes example's block (a default role, no claim)", () => {
    const s = service("  roles = [member]\n  default_role = member");
    expect(developmentTokenArguments(s)).toEqual(["--sub", "alice"]);
    expect(developmentTokenCommand(s)).toBe("npm run -s token -- --sub alice");
  });

  it("names a required uuid claim with the fixed uuid and a role when there is no default role; the token is accepted", () => {
    const s = service("  roles = [member]\n  anonymous = visitor\n  claim org uuid");
    const args = developmentTokenArguments(s);
    expect(args).toEqual(["--sub", "alice", "--role", "member", "--claim", "org=3f0c9d52-5b7e-4a59-8c1e-2c3b4d5e6f70"]);
    expect(accepted(s, args)).toMatchObject({
      subject: "alice",
      roles: ["member"],
      claims: { org: "3f0c9d52-5b7e-4a59-8c1e-2c3b4d5e6f70" },
    });
    // Without them `resc token` mints nothing: the command as it used to be printed.
    expect(() => accepted(s, ["--sub", "alice"])).toThrow(/no default_role|lacks the claim/);
    expect(() => accepted(s, ["--sub", "alice", "--role", "member"])).toThrow(/lacks the claim org/);
  });

  it("gives every claim type a value of it, arrays as JSON arrays, leaves optional claims out, quotes for the shell", () => {
    const s = service(
      [
        "  roles = [member]",
        "  default_role = member",
        "  claim org   uuid",
        "  claim level integer",
        "  claim big   bigint",
        "  claim share numeric",
        "  claim ratio float",
        "  claim staff boolean",
        "  claim name  text",
        "  claim tier  tier",
        "  claim teams text[]",
        "  claim ids   integer[]",
        "  claim nick  text?",
      ].join("\n"),
      "enum tier {\n  gold\n  silver\n}\n",
    );
    const args = developmentTokenArguments(s);
    expect(args).toEqual([
      "--sub",
      "alice",
      ...[
        "org=3f0c9d52-5b7e-4a59-8c1e-2c3b4d5e6f70",
        "level=1",
        "big=1",
        "share=1",
        "ratio=1",
        "staff=true",
        "name=example",
        "tier=gold",
        'teams=["example"]',
        "ids=[1]",
      ].flatMap((c) => ["--claim", c]),
    ]);
    expect(accepted(s, args).claims).toMatchObject({ org: expect.any(String), level: 1, staff: true, nick: null });
    expect(developmentTokenCommand(s)).toContain(`--claim 'teams=["example"]' --claim 'ids=[1]'`);
  });

  it("takes a text that would parse as JSON as a JSON string, so it stays a text", () => {
    const claim = (enumValues: string[]): ClaimDescriptor => ({
      name: "e",
      path: ["e"],
      kind: "enum",
      array: false,
      sqlType: "e",
      nullable: false,
      enumValues,
    });
    expect(exampleClaimValue(claim(["true"]))).toBe('"true"');
    expect(exampleClaimValue(claim(["gold"]))).toBe("gold");
  });

  it("picks the first role an access block grants list of a served collection", () => {
    const s = service(
      "  roles = [auditor, member]",
      [
        "table events {",
        "  id bigint @primary_key @default(identity)",
        '  resource "/events" { ops = [crud, list] }',
        "  access auditor { ops = [read] }",
        "  access member { ops = [all] }",
        "}",
      ].join("\n"),
    );
    const args = developmentTokenArguments(s);
    expect(args).toEqual(["--sub", "alice", "--role", "member"]);
    expect(accepted(s, args).roles).toEqual(["member"]);
  });
});
