import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

const api = `
api {
  title = "T"
  security bearerAuth { scheme = "bearer", bearer_format = "JWT" }
}
`;

const table = (name: string, path: string, settings = "ops = [list]") => `
table ${name} {
  id bigint @primary_key
  resource "${path}" { ${settings} }
}
`;

describe("resource blocks (spec: Resource declaration; Authentication rule 3)", () => {
  it("accepts distinct /<segment> paths and declared security schemes", () => {
    const src = api + table("a", "/a", "ops = [list]  security = [bearerAuth]") + table("b", "/b-2_x");
    expect(check(src)).toEqual([]);
  });

  it("refuses a path not of the form /<segment>", () => {
    const src = table("a", "/a/b");
    expectOne(check(src), src, "invalid-resource-path", {
      message: 'Resource path "/a/b" must have the form /<segment> (letters, digits, "-", "_", ".", "~")',
      at: "resource",
    });
  });

  it("refuses a path served twice", () => {
    const src = table("a", "/items") + table("b", "/items");
    expectOne(check(src), src, "duplicate-resource-path", {
      message: 'Resource path "/items" is already served by table "a"',
      at: "resource",
      nth: 2,
    });
  });

  it("refuses an undeclared security scheme", () => {
    const src = api + table("a", "/a", "ops = [list]  security = [oauth]");
    expectOne(check(src), src, "unknown-security-scheme", {
      message: 'Security scheme "oauth" is not declared in the api block (declared: bearerAuth)',
      at: "oauth",
    });
  });

  it("warns about a resource exposing no operation", () => {
    const src = table("a", "/a", "ops = []");
    expectOne(check(src), src, "resource-without-ops", {
      message: 'Resource "/a" of table "a" exposes no operation',
      at: "[]",
      severity: "warning",
    });
  });
});

describe("generate block (spec: Generator configuration)", () => {
  it("accepts a package that is one directory name", () => {
    expect(check('generate { package = "tracker-api_2" }\n')).toEqual([]);
  });

  it("refuses a package that would leave the output directory", () => {
    const src = 'generate { package = "../elsewhere" }\n';
    expectOne(check(src), src, "invalid-package", {
      message: 'Package "../elsewhere" must be one directory name (letters, digits, "_", "-", ".")',
      at: "generate",
    });
  });
});
