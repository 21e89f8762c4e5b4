/**
 * The canonical layout of `auth` and `access` blocks
 * (docs/decisions/1100-formatter-layout.md, docs/decisions/1367-access-rules.md):
 * settings and claims aligned, rule expressions spaced one way, line breaks
 * around `and`/`or` kept, access blocks after the resource block, comments
 * kept; every result means the same schema and formats to itself.
 */
import { describe, expect, it } from "vitest";
import { formatSource } from "../../grammar/format/index.js";
import { parse } from "../../grammar/index.js";
import { sameSchema } from "../../grammar/format/same-schema.js";

function fmt(text: string): string {
  const r = formatSource(text, "t.resource");
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
  expect(sameSchema(parse(text, "t").schema, parse(r.text, "t").schema)).toBe(true);
  const again = formatSource(r.text, "t.resource");
  expect(again.ok && again.text).toBe(r.text);
  return r.text;
}

describe("the auth block", () => {
  it("aligns settings and claims, keeps the jwt block's settings aligned apart", () => {
    const input = `auth {
jwt { algorithms = [HS256,RS256]
secret_env="S"
  clock_tolerance   = 30 }
roles=[member,admin]
  default_role = member
claim org uuid
  claim   team   text?   @path( "app.team" )
  claim teams text[] }`;
    expect(fmt(input)).toBe(`auth {
  jwt {
    algorithms      = [HS256, RS256]
    secret_env      = "S"
    clock_tolerance = 30
  }
  roles        = [member, admin]
  default_role = member
  claim org   uuid
  claim team  text?  @path("app.team")
  claim teams text[]
}
`);
  });

  it("keeps a one-line auth block on one line", () => {
    expect(fmt(`auth {roles=[a]  claim org uuid   jwt { algorithms = [HS256] secret_env = "S" }}`)).toBe(
      `auth { roles = [a], claim org uuid, jwt { algorithms = [HS256], secret_env = "S" } }\n`,
    );
  });

  it("puts a blank line between the auth block and the next declaration", () => {
    expect(fmt(`auth {\n  roles = [a]\n}\ntable t {\n  id int @primary_key\n}`)).toBe(
      `auth {\n  roles = [a]\n}\n\ntable t {\n  id int @primary_key\n}\n`,
    );
  });

  it("lays out the database block as the jwt block: settings aligned, comments kept, one line kept", () => {
    // docs/decisions/1368-database-row-level-security.md
    const input = `auth {
roles = [member, admin]
  anonymous=anon
    database { role=principal   // each caller acts as its role
  // role = "authenticated"
anonymous    =   "anon"
      claims = "request.jwt.claims" }
}`;
    expect(fmt(input)).toBe(`auth {
  roles     = [member, admin]
  anonymous = anon
  database {
    role      = principal  // each caller acts as its role
    // role = "authenticated"
    anonymous = "anon"
    claims    = "request.jwt.claims"
  }
}
`);
    expect(fmt(`auth { roles = [member]   database {role="authenticated",anonymous="anon"} }`)).toBe(
      `auth { roles = [member], database { role = "authenticated", anonymous = "anon" } }\n`,
    );
  });
});

describe("access blocks", () => {
  it("spaces rules one way, aligns stamps and moves access blocks after the resource", () => {
    const input = `table docs {
  id bigint @primary_key
  org_id uuid
  owner text
  access member,admin {
    ops=[reads,create]
    rows   org_id=claim.org
    rows( update ,delete )owner  =  claim . sub
    check not(org_id!=claim.org)and owner in[ "a","b" ]or owner is  not null
    stamp org_id=claim.org
    stamp owner = claim.sub
    hide[owner,org_id]
  }
  resource "/docs" { ops = [crud, list] }
}`;
    expect(fmt(input)).toBe(`table docs {
  id     bigint @primary_key
  org_id uuid
  owner  text

  resource "/docs" { ops = [crud, list] }

  access member, admin {
    ops = [reads, create]
    rows org_id = claim.org
    rows(update, delete) owner = claim.sub
    check not (org_id != claim.org) and owner in ["a", "b"] or owner is not null
    stamp org_id = claim.org
    stamp owner  = claim.sub
    hide [owner, org_id]
  }
}
`);
  });

  it("keeps a line break around and/or, before the word, one level deeper", () => {
    const input = `table t {
  id int @primary_key
  access m {
    rows (a = 1 or
  b = 2
      and c <= -3)
  }
}`;
    expect(fmt(input)).toBe(`table t {
  id int @primary_key

  access m {
    rows (a = 1
        or b = 2
        and c <= -3)
  }
}
`);
  });

  it("keeps comments, doc comments and a blank line between access blocks that span lines", () => {
    const input = `table t {
  id int @primary_key
  /// Members.
  access m { // trailing
    ops = [all] /* ops */
    rows a = 1 // why
      and /* inner */ b in claim.bs
  }
  access n {
    ops = [list]
  }
  access o { ops = [read] }
}`;
    expect(fmt(input)).toBe(`table t {
  id int @primary_key

  /// Members.
  access m { // trailing
    ops = [all]  /* ops */
    rows a = 1 // why
        and /* inner */ b in claim.bs
  }

  access n {
    ops = [list]
  }

  access o { ops = [read] }
}
`);
  });

  it("writes an empty block as {} and a short one-line block on one line", () => {
    expect(fmt(`table t {\n  id int @primary_key\n  access m {\n  }\n  access n {ops=[all] rows a=1}\n}`)).toBe(
      `table t {\n  id int @primary_key\n\n  access m {}\n  access n { ops = [all], rows a = 1 }\n}\n`,
    );
  });

  it("keeps enum values bare as written, alone and in lists", () => {
    expect(
      fmt(`table t {\n  id int @primary_key\n  access n {ops=[all] rows s=open and s in [open,"closed"]}\n}`),
    ).toBe(
      `table t {\n  id int @primary_key\n\n  access n { ops = [all], rows s = open and s in [open, "closed"] }\n}\n`,
    );
  });

  it("leaves a formatted example alone", () => {
    const text = `auth {
  roles = [member]
  claim org uuid
}

table t {
  id     int  @primary_key
  org_id uuid

  resource "/t" { ops = [reads] }

  access member {
    ops = [reads]
    rows org_id = claim.org
  }
}
`;
    const r = formatSource(text, "t.resource");
    expect(r).toEqual({ ok: true, text, changed: false });
  });
});
