/**
 * The concrete-syntax parser of the `.resource` language (grammar in
 * docs/language.md and docs/syntax-diagrams.html).
 *
 * One Chevrotain `CstParser`, built once and reused (building a parser runs
 * a grammar analysis that is far more expensive than a parse). Error
 * recovery is on, so one typo does not hide the errors after it; the CST it
 * returns may hold partial nodes, which the IR builder tolerates.
 *
 * The grammar needs no separators: commas are optional inside blocks and
 * lists, and a column may continue over several lines because every
 * attribute starts with `@`. Newlines matter in exactly two places, both
 * decided by gates that look at token lines: a multi-word type
 * (`double precision`) continues only on the same line, and `domain x y`
 * is a declaration only when it sits on one line (otherwise `domain` can be
 * a column name). See docs/decisions/0103-keywords-newlines-and-duplicates.md.
 */
import type { IOrAlt, IToken, OrMethodOpts, TokenType } from "chevrotain";
import { CstParser, tokenMatcher } from "./chevrotain.js";
import { allTokens } from "./lexer.js";
import {
  Access,
  Action,
  And,
  Api,
  Auth,
  Check,
  Claim,
  Domain,
  Enum,
  Generate,
  Has,
  Hide,
  Identifier,
  In,
  Is,
  Jwt,
  Database,
  Not,
  Or,
  Resource,
  Returns,
  Rows,
  Security,
  Stamp,
  Table,
} from "./tokens/keywords.js";
import {
  AttributeName,
  BlockAttributeName,
  NumberLiteral,
  SqlString,
  StringLiteral,
  UnterminatedString,
} from "./tokens/literals.js";
import {
  Colon,
  Comma,
  Dot,
  DoubleColon,
  Equals,
  Greater,
  GreaterEquals,
  LBracket,
  LCurly,
  Less,
  LessEquals,
  LParen,
  Minus,
  NotEquals,
  Question,
  RBracket,
  RCurly,
  RParen,
} from "./tokens/punctuation.js";
import { syntaxMessageProvider } from "./syntax-errors.js";

/** Words that may continue a multi-word PostgreSQL type name (`double precision`, `timestamp with time zone`). */
const TYPE_CONTINUATIONS = new Set(["precision", "varying", "with", "without", "time", "zone"]);

function onSameLine(a: IToken, b: IToken): boolean {
  return a.endLine !== undefined && b.startLine !== undefined && a.endLine === b.startLine;
}

/** The parser class; use the shared `parser` instance rather than building another. */
export class ResourceParser extends CstParser {
  /**
   * The alternatives of each OR, built on first use and kept: the DSL would
   * otherwise allocate them at every call, and they are most of the garbage a
   * large file's parse makes (Chevrotain's performance guide, "caching arrays
   * of alternatives").
   */
  private readonly altLists: Record<string, IOrAlt<unknown>[]> = {};
  private readonly altOpts: Record<string, OrMethodOpts<unknown>> = {};

  /**
   * @param options.validate run Chevrotain's grammar validations (ambiguities,
   *   left recursion, …) while building: off for the shared instance, since
   *   they cost 20 ms at every `resc` start and the grammar only changes in
   *   development; test/grammar/grammar-validity.test.ts builds one with them
   *   on, which throws on a definition error (bench/COMPILER.md).
   */
  constructor(options: { validate?: boolean } = {}) {
    super([...allTokens], {
      recoveryEnabled: true,
      maxLookahead: 3,
      skipValidations: options.validate !== true,
      nodeLocationTracking: "onlyOffset",
      errorMessageProvider: syntaxMessageProvider,
    });
    this.performSelfAnalysis();
  }

  /** True when the next tokens begin a top-level declaration, so a table body missing its `}` ends here. */
  private atDeclarationStart(): boolean {
    const t1 = this.LA(1);
    const type: TokenType = t1.tokenType;
    if (type === Api || type === Auth || type === Generate) return this.LA(2).tokenType === LCurly;
    if (type === Table || type === Enum) return this.LA(3).tokenType === LCurly;
    if (type === Domain) {
      // `domain name basetype`: the third token is a type name. A column named `domain` reads `domain text?`,
      // `domain text @hidden` or `domain int[]`, whose third token is punctuation or an attribute.
      const t2 = this.LA(2);
      const t3 = this.LA(3);
      return onSameLine(t1, t2) && onSameLine(t2, t3) && t3.tokenType === Identifier;
    }
    return false;
  }

  /**
   * True right after a string that lost its closing quote when the next
   * token is on a later line: the `)` or `]` the string swallowed was on its
   * line, so the list ends here instead of eating the following lines.
   */
  private afterUnterminatedString(): boolean {
    const last = this.LA(0);
    return last.tokenType === UnterminatedString && this.LA(1).startLine !== last.startLine;
  }

  /**
   * True when the next tokens look like a new column (`name type` starting
   * a line) rather than an argument: an argument list left open ends there,
   * so "Missing ")"" is reported instead of the next column being read as
   * arguments. Two bare names in a row never occur inside arguments.
   */
  private atColumnStart(): boolean {
    const t1 = this.LA(1);
    const t2 = this.LA(2);
    return (
      t1.startLine !== this.LA(0).endLine &&
      tokenMatcher(t1, Identifier) &&
      tokenMatcher(t2, Identifier) &&
      onSameLine(t1, t2)
    );
  }

  /**
   * True at `access role[, role…] {`: a column called `access` reads
   * `access text`, so a role list must be closed by "{" to start a block
   * (docs/decisions/1367-access-rules.md).
   */
  private atAccessBlock(): boolean {
    if (!tokenMatcher(this.LA(1), Access)) return false;
    for (let i = 2; ; i += 2) {
      if (!tokenMatcher(this.LA(i), Identifier)) return false;
      const after = this.LA(i + 1);
      if (tokenMatcher(after, LCurly)) return true;
      if (!tokenMatcher(after, Comma)) return false;
    }
  }

  /** True at `word` followed by something other than "=": a keyword statement, not a setting of that name. */
  private atStatement(keyword: TokenType): boolean {
    return tokenMatcher(this.LA(1), keyword) && !tokenMatcher(this.LA(2), Equals);
  }

  /** The whole file: declarations in any order. */
  public schema = this.RULE("schema", () => {
    this.MANY(() => {
      this.OR(
        (this.altLists.or1 ??= [
          { ALT: () => this.SUBRULE(this.apiDecl) },
          { ALT: () => this.SUBRULE(this.authDecl) },
          { ALT: () => this.SUBRULE(this.generateDecl) },
          { ALT: () => this.SUBRULE(this.enumDecl) },
          { ALT: () => this.SUBRULE(this.domainDecl) },
          { ALT: () => this.SUBRULE(this.tableDecl) },
        ]),
      );
    });
  });

  /** `api { title = "…"  security name { … } }`. */
  public apiDecl = this.RULE("apiDecl", () => {
    this.CONSUME(Api);
    this.CONSUME(LCurly);
    // One token of lookahead, so `title "x"` is read as a setting missing its
    // "=" rather than as nothing at all; `security` followed by a name is a scheme.
    this.MANY({
      MAX_LOOKAHEAD: 1,
      DEF: () => {
        this.OR(
          (this.altOpts.or2 ??= {
            MAX_LOOKAHEAD: 1,
            IGNORE_AMBIGUITIES: true,
            DEF: [
              {
                GATE: () => tokenMatcher(this.LA(2), Identifier),
                ALT: () => this.SUBRULE(this.securityScheme),
              },
              { ALT: () => this.SUBRULE(this.setting) },
            ],
          }),
        );
        this.OPTION(() => this.CONSUME(Comma));
      },
    });
    this.CONSUME(RCurly);
  });

  /** `security bearerAuth { scheme = "bearer", bearer_format = "JWT" }`. */
  public securityScheme = this.RULE("securityScheme", () => {
    this.CONSUME(Security);
    this.SUBRULE(this.anyName, { LABEL: "name" });
    this.SUBRULE(this.settingsBlock);
  });

  /**
   * `auth { roles = […]  claim org uuid  jwt { … }  database { … } }`: settings, claims,
   * the token verification block and the database-role block, commas optional
   * (docs/decisions/1367-access-rules.md, 1368-database-row-level-security.md). `claim`, `jwt` and
   * `database` start their statements only when no "=" follows, so a misplaced `jwt = …` is
   * reported as an unknown setting.
   */
  public authDecl = this.RULE("authDecl", () => {
    this.CONSUME(Auth);
    this.CONSUME(LCurly);
    this.MANY({
      MAX_LOOKAHEAD: 1,
      DEF: () => {
        this.OR(
          (this.altOpts.orAuth ??= {
            MAX_LOOKAHEAD: 1,
            IGNORE_AMBIGUITIES: true,
            DEF: [
              {
                GATE: () => tokenMatcher(this.LA(1), Jwt) && tokenMatcher(this.LA(2), LCurly),
                ALT: () => this.SUBRULE(this.jwtBlock),
              },
              {
                GATE: () => tokenMatcher(this.LA(1), Database) && tokenMatcher(this.LA(2), LCurly),
                ALT: () => this.SUBRULE(this.databaseBlock),
              },
              { GATE: () => this.atStatement(Claim), ALT: () => this.SUBRULE(this.claimDecl) },
              { ALT: () => this.SUBRULE(this.setting) },
            ],
          }),
        );
        this.OPTION(() => this.CONSUME(Comma));
      },
    });
    this.CONSUME(RCurly);
  });

  /** `jwt { algorithms = [HS256] secret_env = "…" … }`. */
  public jwtBlock = this.RULE("jwtBlock", () => {
    this.CONSUME(Jwt);
    this.SUBRULE(this.settingsBlock);
  });

  /** `database { role = principal  anonymous = "anon"  claims = "request.jwt.claims" }`. */
  public databaseBlock = this.RULE("databaseBlock", () => {
    this.CONSUME(Database);
    this.SUBRULE(this.settingsBlock);
  });

  /** `claim name type[?] @path("a.b")`: written as a column is, its attributes possibly on the next lines. */
  public claimDecl = this.RULE("claimDecl", () => {
    this.CONSUME(Claim);
    this.SUBRULE(this.anyName, { LABEL: "name" });
    this.SUBRULE(this.typeRef);
    this.MANY(() => this.SUBRULE(this.attribute));
  });

  /**
   * `access member, admin { ops = […]  rows …  rows(op, …) …  check …
   * stamp col = claim.x  hide [a, b] }` inside a table
   * (docs/decisions/1367-access-rules.md). Each statement keyword starts
   * its statement only when no "=" follows it.
   */
  public accessDecl = this.RULE("accessDecl", () => {
    this.CONSUME(Access);
    this.SUBRULE(this.anyName, { LABEL: "role" });
    this.MANY(() => {
      this.CONSUME(Comma);
      this.SUBRULE2(this.anyName, { LABEL: "role" });
    });
    this.CONSUME(LCurly);
    this.MANY2(() => {
      this.OR(
        (this.altOpts.orAccess ??= {
          MAX_LOOKAHEAD: 1,
          IGNORE_AMBIGUITIES: true,
          DEF: [
            { GATE: () => this.atStatement(Rows), ALT: () => this.SUBRULE(this.rowsRule) },
            { GATE: () => this.atStatement(Check), ALT: () => this.SUBRULE(this.checkRule) },
            { GATE: () => this.atStatement(Stamp), ALT: () => this.SUBRULE(this.stampRule) },
            { GATE: () => this.atStatement(Hide), ALT: () => this.SUBRULE(this.hideRule) },
            { ALT: () => this.SUBRULE(this.setting) },
          ],
        }),
      );
      this.OPTION(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RCurly);
  });

  /**
   * `rows expr` or `rows(update, delete) expr`. A "(" after `rows` opens
   * the operation list only when a name and then "," or ")" follow it;
   * otherwise it is the expression's own parenthesis.
   */
  public rowsRule = this.RULE("rowsRule", () => {
    this.CONSUME(Rows);
    this.OPTION({
      MAX_LOOKAHEAD: 1,
      GATE: () =>
        tokenMatcher(this.LA(1), LParen) &&
        tokenMatcher(this.LA(2), Identifier) &&
        (tokenMatcher(this.LA(3), Comma) || tokenMatcher(this.LA(3), RParen)),
      DEF: () => {
        this.CONSUME(LParen);
        this.SUBRULE(this.anyName, { LABEL: "op" });
        this.MANY(() => {
          this.CONSUME(Comma);
          this.SUBRULE2(this.anyName, { LABEL: "op" });
        });
        this.CONSUME(RParen);
      },
    });
    this.SUBRULE(this.ruleExpr);
  });

  /** `check expr`. */
  public checkRule = this.RULE("checkRule", () => {
    this.CONSUME(Check);
    this.SUBRULE(this.ruleExpr);
  });

  /** `stamp column = claim.name`; any operand parses, so a literal is reported by the IR builder, not as a syntax error. */
  public stampRule = this.RULE("stampRule", () => {
    this.CONSUME(Stamp);
    this.SUBRULE(this.anyName, { LABEL: "column" });
    this.CONSUME(Equals);
    this.SUBRULE(this.ruleOperand);
  });

  /** `hide [a, b]`. */
  public hideRule = this.RULE("hideRule", () => {
    this.CONSUME(Hide);
    this.SUBRULE(this.list);
  });

  /** `a or b or …`: the loosest binding of a rule expression. */
  public ruleExpr = this.RULE("ruleExpr", () => {
    this.SUBRULE(this.ruleAnd, { LABEL: "term" });
    this.MANY({
      MAX_LOOKAHEAD: 1,
      DEF: () => {
        this.CONSUME(Or);
        this.SUBRULE2(this.ruleAnd, { LABEL: "term" });
      },
    });
  });

  /** `a and b and …`: binds tighter than `or`. */
  public ruleAnd = this.RULE("ruleAnd", () => {
    this.SUBRULE(this.ruleNot, { LABEL: "term" });
    this.MANY({
      MAX_LOOKAHEAD: 1,
      DEF: () => {
        this.CONSUME(And);
        this.SUBRULE2(this.ruleNot, { LABEL: "term" });
      },
    });
  });

  /**
   * `not … a`: binds tighter than `and`. A rule's left side is never a
   * column called `not` (nor `and`, `or`): those words are always operators here.
   */
  public ruleNot = this.RULE("ruleNot", () => {
    this.MANY({ MAX_LOOKAHEAD: 1, DEF: () => this.CONSUME(Not) });
    this.OR(
      (this.altLists.orRuleAtom ??= [
        {
          ALT: () => {
            this.CONSUME(LParen);
            this.SUBRULE(this.ruleExpr);
            this.CONSUME(RParen);
          },
        },
        { ALT: () => this.SUBRULE(this.ruleCmp) },
      ]),
    );
  });

  /**
   * `column op operand`, `column [not] in operand`, `column has operand`,
   * `column is [not] null`; the column may be `relation.column`. The word
   * after `is [not]` is read as a name and checked to be `null` by the IR
   * builder.
   */
  public ruleCmp = this.RULE("ruleCmp", () => {
    this.SUBRULE(this.anyName, { LABEL: "column" });
    this.OPTION(() => {
      this.CONSUME(Dot);
      this.SUBRULE2(this.anyName, { LABEL: "member" });
    });
    this.OR(
      (this.altLists.orRuleOp ??= [
        {
          ALT: () => {
            this.OR2(
              (this.altLists.orCompare ??= [
                { ALT: () => this.CONSUME(Equals, { LABEL: "op" }) },
                { ALT: () => this.CONSUME(NotEquals, { LABEL: "op" }) },
                { ALT: () => this.CONSUME(LessEquals, { LABEL: "op" }) },
                { ALT: () => this.CONSUME(Less, { LABEL: "op" }) },
                { ALT: () => this.CONSUME(GreaterEquals, { LABEL: "op" }) },
                { ALT: () => this.CONSUME(Greater, { LABEL: "op" }) },
              ]),
            );
            this.SUBRULE(this.ruleOperand);
          },
        },
        {
          ALT: () => {
            this.CONSUME(In, { LABEL: "op" });
            this.SUBRULE2(this.ruleOperand);
          },
        },
        {
          ALT: () => {
            this.CONSUME(Not, { LABEL: "op" });
            this.CONSUME2(In, { LABEL: "op" });
            this.SUBRULE3(this.ruleOperand);
          },
        },
        {
          ALT: () => {
            this.CONSUME(Has, { LABEL: "op" });
            this.SUBRULE4(this.ruleOperand);
          },
        },
        {
          ALT: () => {
            this.CONSUME(Is, { LABEL: "op" });
            this.OPTION2({ MAX_LOOKAHEAD: 1, DEF: () => this.CONSUME2(Not, { LABEL: "op" }) });
            this.SUBRULE3(this.anyName, { LABEL: "nullWord" });
          },
        },
      ]),
    );
  });

  /**
   * A rule's right side: `claim.name`, a string, a number, `-number`, a
   * list, or a name (`true`, `false`, `null`; any other name, `a.b`
   * included, is parsed so the IR builder can say what to write instead).
   */
  public ruleOperand = this.RULE("ruleOperand", () => {
    this.OR(
      (this.altOpts.orOperand ??= {
        IGNORE_AMBIGUITIES: true,
        DEF: [
          {
            GATE: () => tokenMatcher(this.LA(1), Claim) && tokenMatcher(this.LA(2), Dot),
            ALT: () => {
              this.CONSUME(Claim);
              this.CONSUME(Dot);
              this.SUBRULE(this.anyName, { LABEL: "claim" });
            },
          },
          { ALT: () => this.CONSUME(StringLiteral) },
          { ALT: () => this.CONSUME(NumberLiteral) },
          {
            ALT: () => {
              this.CONSUME(Minus);
              this.CONSUME2(NumberLiteral);
            },
          },
          { ALT: () => this.SUBRULE(this.list) },
          {
            ALT: () => {
              this.SUBRULE2(this.anyName, { LABEL: "word" });
              this.OPTION(() => {
                this.CONSUME2(Dot);
                this.SUBRULE3(this.anyName, { LABEL: "member" });
              });
            },
          },
        ],
      }),
    );
  });

  /** `generate { dir = "…" … }`. */
  public generateDecl = this.RULE("generateDecl", () => {
    this.CONSUME(Generate);
    this.SUBRULE(this.settingsBlock);
  });

  /** `{ key = value … }`, commas optional. */
  public settingsBlock = this.RULE("settingsBlock", () => {
    this.CONSUME(LCurly);
    this.MANY(() => {
      this.SUBRULE(this.setting);
      this.OPTION(() => this.CONSUME(Comma));
    });
    this.CONSUME(RCurly);
  });

  /** `key = value`. */
  public setting = this.RULE("setting", () => {
    this.CONSUME(Identifier, { LABEL: "key" });
    this.CONSUME(Equals);
    this.SUBRULE(this.value);
  });

  /** `enum name @map("Name") { a b "PG-13" }`. */
  public enumDecl = this.RULE("enumDecl", () => {
    this.CONSUME(Enum);
    this.SUBRULE(this.anyName, { LABEL: "name" });
    this.MANY2(() => this.SUBRULE(this.attribute));
    this.CONSUME(LCurly);
    this.MANY(() => {
      this.OR(
        (this.altLists.or3 ??= [
          { ALT: () => this.SUBRULE2(this.anyName, { LABEL: "member" }) },
          { ALT: () => this.CONSUME(StringLiteral, { LABEL: "member" }) },
        ]),
      );
      this.OPTION(() => this.CONSUME(Comma));
    });
    this.CONSUME(RCurly);
  });

  /** `domain name base_type @check("…")`. */
  public domainDecl = this.RULE("domainDecl", () => {
    this.CONSUME(Domain);
    this.SUBRULE(this.anyName, { LABEL: "name" });
    this.SUBRULE(this.typeRef);
    this.MANY(() => this.SUBRULE(this.attribute));
  });

  /** `table name { columns  @@attributes  resource "/path" { … } }`. */
  public tableDecl = this.RULE("tableDecl", () => {
    this.CONSUME(Table);
    this.SUBRULE(this.anyName, { LABEL: "name" });
    this.CONSUME(LCurly);
    // One token of lookahead: any name starts a column, so `title @sortable`
    // is a column missing its type (a precise message) rather than an
    // unrecognisable member. `resource` starts a resource block only when a
    // path string (or, mistakenly, a bare name and "{") follows, so a column
    // may still be called `resource`.
    this.MANY({
      GATE: () => !this.atDeclarationStart(),
      MAX_LOOKAHEAD: 1,
      DEF: () => {
        this.OR(
          (this.altOpts.or4 ??= {
            MAX_LOOKAHEAD: 1,
            IGNORE_AMBIGUITIES: true,
            DEF: [
              {
                GATE: () => tokenMatcher(this.LA(2), StringLiteral) || tokenMatcher(this.LA(3), LCurly),
                ALT: () => this.SUBRULE(this.resourceDecl),
              },
              { GATE: () => this.atAccessBlock(), ALT: () => this.SUBRULE(this.accessDecl) },
              { ALT: () => this.SUBRULE(this.blockAttribute) },
              { ALT: () => this.SUBRULE(this.columnDecl) },
            ],
          }),
        );
        this.OPTION(() => this.CONSUME(Comma));
      },
    });
    this.CONSUME(RCurly);
  });

  /**
   * `resource "/path" { settings }`. A bare name in place of the path is
   * accepted here so the IR builder can say how to quote it, instead of the
   * whole block being lost to error recovery.
   */
  public resourceDecl = this.RULE("resourceDecl", () => {
    this.CONSUME(Resource);
    this.OR(
      (this.altLists.or5 ??= [
        { ALT: () => this.CONSUME(StringLiteral, { LABEL: "path" }) },
        { ALT: () => this.SUBRULE(this.anyName, { LABEL: "unquotedPath" }) },
      ]),
    );
    this.SUBRULE(this.resourceBody);
  });

  /**
   * `{ key = value … action name { … } }`: a resource's settings and its
   * declared actions, commas optional. `action` starts an action only when a
   * name follows (`action = …` stays a setting).
   */
  public resourceBody = this.RULE("resourceBody", () => {
    this.CONSUME(LCurly);
    this.MANY(() => {
      this.OR(
        (this.altOpts.or8 ??= {
          MAX_LOOKAHEAD: 1,
          IGNORE_AMBIGUITIES: true,
          DEF: [
            {
              GATE: () => tokenMatcher(this.LA(1), Action) && !tokenMatcher(this.LA(2), Equals),
              ALT: () => this.SUBRULE(this.actionDecl),
            },
            { ALT: () => this.SUBRULE(this.setting) },
          ],
        }),
      );
      this.OPTION(() => this.CONSUME(Comma));
    });
    this.CONSUME(RCurly);
  });

  /**
   * `action name @collection { field type … } returns { field type … }`:
   * a declared action, its input fields written as columns are, and
   * optionally its output (docs/decisions/1334-declared-actions.md).
   */
  public actionDecl = this.RULE("actionDecl", () => {
    this.CONSUME(Action);
    this.SUBRULE(this.anyName, { LABEL: "name" });
    this.MANY(() => this.SUBRULE(this.attribute));
    this.SUBRULE(this.fieldBlock, { LABEL: "input" });
    this.OPTION({
      GATE: () => tokenMatcher(this.LA(1), Returns) && tokenMatcher(this.LA(2), LCurly),
      DEF: () => {
        this.CONSUME(Returns);
        this.SUBRULE2(this.fieldBlock, { LABEL: "output" });
      },
    });
  });

  /** `{ name type … }`: the fields of an action's input or output, one per line. */
  public fieldBlock = this.RULE("fieldBlock", () => {
    this.CONSUME(LCurly);
    this.MANY(() => {
      this.SUBRULE(this.columnDecl);
      this.OPTION(() => this.CONSUME(Comma));
    });
    this.CONSUME(RCurly);
  });

  /** `name type @attribute…`; the attributes may continue on the next lines. */
  public columnDecl = this.RULE("columnDecl", () => {
    this.SUBRULE(this.anyName, { LABEL: "name" });
    this.SUBRULE(this.typeRef);
    this.MANY(() => this.SUBRULE(this.attribute));
  });

  /** `numeric(5,2)`, `varchar(50)?`, `text[]?`, `timestamp with time zone`. */
  public typeRef = this.RULE("typeRef", () => {
    this.CONSUME(Identifier, { LABEL: "word" });
    this.MANY({
      GATE: () => {
        const next = this.LA(1);
        return (
          next.tokenType === Identifier &&
          TYPE_CONTINUATIONS.has(next.image.toLowerCase()) &&
          onSameLine(this.LA(0), next)
        );
      },
      DEF: () => this.CONSUME2(Identifier, { LABEL: "word" }),
    });
    this.OPTION(() => {
      this.CONSUME(LParen);
      this.CONSUME(NumberLiteral, { LABEL: "modifier" });
      this.MANY2(() => {
        this.CONSUME(Comma);
        this.CONSUME2(NumberLiteral, { LABEL: "modifier" });
      });
      this.CONSUME(RParen);
    });
    this.MANY3(() => {
      this.CONSUME(LBracket);
      this.CONSUME(RBracket);
    });
    this.OPTION2(() => this.CONSUME(Question));
  });

  /** `@name` or `@name(arguments)` on a column or domain. */
  public attribute = this.RULE("attribute", () => {
    this.CONSUME(AttributeName);
    this.OPTION(() => this.SUBRULE(this.argList));
  });

  /** `@@name` or `@@name(arguments)` in a table body. */
  public blockAttribute = this.RULE("blockAttribute", () => {
    this.CONSUME(BlockAttributeName);
    this.OPTION(() => this.SUBRULE(this.argList));
  });

  /** `( arg, name: value … )`. */
  public argList = this.RULE("argList", () => {
    this.CONSUME(LParen);
    this.MANY({
      GATE: () => !this.afterUnterminatedString() && !this.atColumnStart(),
      DEF: () => {
        this.SUBRULE(this.arg);
        this.OPTION(() => this.CONSUME(Comma));
      },
    });
    this.CONSUME(RParen);
  });

  /** A positional value or `name: value`. */
  public arg = this.RULE("arg", () => {
    this.OPTION(() => {
      this.CONSUME(Identifier, { LABEL: "key" });
      this.CONSUME(Colon);
    });
    this.SUBRULE(this.value);
  });

  /** `[ item, … ]`, items as in argument lists. */
  public list = this.RULE("list", () => {
    this.CONSUME(LBracket);
    this.MANY({
      GATE: () => !this.afterUnterminatedString(),
      DEF: () => {
        this.SUBRULE(this.arg);
        this.OPTION(() => this.CONSUME(Comma));
      },
    });
    this.CONSUME(RBracket);
  });

  /** A string, number, `-number`, `-name`, list, name or call, optionally followed by a SQL cast `::type`. */
  public value = this.RULE("value", () => {
    this.OR(
      (this.altLists.or6 ??= [
        { ALT: () => this.CONSUME(StringLiteral) },
        { ALT: () => this.CONSUME(SqlString) },
        { ALT: () => this.CONSUME(NumberLiteral) },
        {
          ALT: () => {
            this.CONSUME(Minus);
            this.OR2(
              (this.altLists.or6b ??= [
                { ALT: () => this.CONSUME2(NumberLiteral) },
                { ALT: () => this.SUBRULE(this.anyName, { LABEL: "negatedName" }) },
              ]),
            );
          },
        },
        { ALT: () => this.SUBRULE(this.list) },
        {
          ALT: () => {
            this.SUBRULE2(this.anyName);
            this.OPTION(() => this.SUBRULE(this.argList));
          },
        },
      ]),
    );
    this.OPTION2(() => {
      this.CONSUME(DoubleColon);
      this.CONSUME(Identifier, { LABEL: "cast" });
    });
  });

  /** Any name, including the hard keywords, for positions where a keyword cannot be meant. */
  public anyName = this.RULE("anyName", () => {
    this.OR(
      (this.altLists.or7 ??= [
        { ALT: () => this.CONSUME(Identifier) },
        { ALT: () => this.CONSUME(Api) },
        { ALT: () => this.CONSUME(Auth) },
        { ALT: () => this.CONSUME(Generate) },
        { ALT: () => this.CONSUME(Enum) },
        { ALT: () => this.CONSUME(Domain) },
        { ALT: () => this.CONSUME(Table) },
      ]),
    );
  });
}

/** The one parser instance; set `parser.input` then call `parser.schema()`. */
export const parser = new ResourceParser();
