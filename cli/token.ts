// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";

/**
 * `resc token [FILE] --sub S`: prints a development bearer token for the
 * schema's HS* settings, signed with the secret `resc dev` verifies with
 * (the `secret_env` variable when it is set, else the development secret in
 * `.resc/jwt-secret`), carrying `"resc_dev": true` so that `resc serve`
 * refuses it (docs/decisions/1367-access-rules.md, "Authentication").
 */
export default class Token extends RescCommand {
  static override description =
    "Print a development bearer token for the schema's auth block, accepted by resc dev and refused by resc serve.";
  static override examples = [
    "<%= config.bin %> token spec.resource --sub ada --role member --claim org=3f0c9d52-5b7e-4a59-8c1e-2c3b4d5e6f70",
    'curl -H "Authorization: Bearer $(<%= config.bin %> token --sub ada)" http://127.0.0.1:3000/issues',
  ];
  static override args = {
    file: Args.string({ description: "the .resource file (default: the only one in the current directory)" }),
  };
  static override flags = {
    sub: Flags.string({ description: "the token's subject (sub)", required: true }),
    role: Flags.string({ description: "a role of the schema (repeatable); none: the default role", multiple: true }),
    claim: Flags.string({
      description: "a claim of the schema as name=value, the value JSON when it parses (repeatable)",
      multiple: true,
    }),
    ttl: Flags.integer({ description: "seconds until the token expires", default: 3600, min: 1 }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Token);
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const file = args.file ?? (await this.onlySchema());
    const { loadSchema } = await import("./load.js");
    const { buildDescriptor } = await import("../compiler/descriptor.js");
    const { mintDevelopmentToken, developmentAlgorithm } = await import("./token/mint.js");
    const { developmentSecret } = await import("../runtime/auth/development.js");
    const r = await loadSchema(file, (s) => process.stderr.write(s));
    if (!r.ok) this.fail(r.message);
    const auth = buildDescriptor(r.schema).auth;
    try {
      developmentAlgorithm(auth, file);
      const named = process.env[auth!.jwt!.secretEnv!];
      const secret = named !== undefined && named !== "" ? named : developmentSecret();
      const token = await mintDevelopmentToken(auth, file, secret, {
        subject: flags.sub,
        roles: flags.role ?? [],
        claims: flags.claim ?? [],
        ttlSeconds: flags.ttl,
      });
      process.stdout.write(token + "\n");
    } catch (e) {
      this.fail((e as Error).message);
    }
  }

  /** The only `.resource` file of the working directory; fails when there is none or several. */
  private async onlySchema(): Promise<string> {
    const { readdir } = await import("node:fs/promises");
    const found = (await readdir(".")).filter((f) => f.endsWith(".resource"));
    if (found.length === 1) return found[0]!;
    return this.fail(
      found.length === 0
        ? "no .resource file in the current directory: name the schema (resc token FILE --sub …)"
        : `several .resource files here (${found.join(", ")}): name the schema (resc token FILE --sub …)`,
    );
  }
}
