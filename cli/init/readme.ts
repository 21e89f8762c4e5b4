/**
 * The README of a project `resc init` writes (docs/decisions/1242-init.md),
 * from `templates/init/README.md`. The template is the notes example's; two
 * kinds of section, each between marker lines, depend on the schema:
 *
 * - `<!-- auth -->` … `<!-- /auth -->`: development tokens (`npm run
 *   token`), kept when `resc token` can mint them for the schema (HS* `jwt`
 *   settings, docs/decisions/1367-access-rules.md). Without them the
 *   `Authorization` header and `--token` flag leave the example commands too.
 * - `<!-- example -->` … `<!-- /example -->`: prose about the notes example,
 *   kept for it only.
 * - `<!-- token-required -->` … and `<!-- anonymous -->` …: what a request
 *   without a token is answered, the first kept when the schema has no
 *   `anonymous` role (a 401), the second when it has one (served as that
 *   role; a 401 for an operation it is not granted).
 *
 * A schema of the user's gets its first listed collection in the example
 * commands, without the notes example's filters and bodies. The placeholders
 * `NAME`, `SECRET_ENV`, `TOKEN_ENV`, `TOKEN_ARGS` and `ANONYMOUS_ROLE` become
 * the binary's name, the secret's variable, the command-line client's token
 * variable, the arguments of `npm run token` (`developmentTokenArguments` of
 * runtime/auth/development.ts: the role and claims the schema requires) and
 * the anonymous role.
 */

/** What the README says of the project. */
export interface ReadmeFacts {
  /** The command-line client's name (else the package's). */
  bin: string;
  /** The variable the HS* secret is read from, when `resc token` can mint tokens for the schema. */
  secretEnv?: string;
  /** The command-line client's token variable (`NOTES_TOKEN`). */
  tokenEnv: string;
  /** The user's schema's first listed collection (`/products`); absent for the notes example. */
  collection?: string;
  /** The arguments of `npm run token` as shell words (`--sub alice --claim org=…`); unused without {@link secretEnv}. */
  tokenArgs: string;
  /** The schema's `anonymous` role, when it declares one. */
  anonymous?: string;
}

/** `text` without the sections between `<!-- tag -->` and `<!-- /tag -->` lines, those lines included. */
function dropSections(text: string, tag: string): string {
  return text.replace(new RegExp(`^<!-- ${tag} -->\\n[\\s\\S]*?^<!-- /${tag} -->\\n`, "gm"), "");
}

/** The README's text for a project of `facts`, from the template's `template`. */
export function projectReadme(template: string, facts: ReadmeFacts): string {
  let text = template;
  if (facts.collection !== undefined) {
    const at = `http://127.0.0.1:3000${facts.collection}`;
    const topic = facts.collection.slice(1);
    text = dropSections(text, "example")
      // The example requests name the notes example's columns: a schema of the user's gets plain ones.
      .replace(/^(curl (?:-H "[^"]*" )?)'http:\/\/127\.0\.0\.1:3000\/notes\?[^']*'$/gm, `$1'${at}'`)
      .replace(/^curl -X POST .*\n/gm, "")
      .replace(/^npx (\S+) notes create .*\n/gm, "")
      .replace(/^npx (\S+) notes list(?: --done false)?/gm, `npx $1 ${topic} list`)
      .replaceAll("http://127.0.0.1:3000/notes", at);
  }
  if (facts.secretEnv === undefined)
    text = dropSections(text, "auth")
      .replaceAll(' -H "Authorization: Bearer $TOKEN"', "")
      .replaceAll(' --token "$TOKEN"', "");
  text = dropSections(text, facts.anonymous === undefined ? "anonymous" : "token-required");
  // NAME first: a variable's name may hold those four letters; the token's arguments and the role last, as given.
  return text
    .replace(/^<!-- \/?(auth|example|anonymous|token-required) -->\n/gm, "")
    .replaceAll("NAME", facts.bin)
    .replaceAll("SECRET_ENV", facts.secretEnv ?? "")
    .replaceAll("TOKEN_ENV", facts.tokenEnv)
    .replaceAll("TOKEN_ARGS", facts.tokenArgs)
    .replaceAll("ANONYMOUS_ROLE", facts.anonymous ?? "");
}
