/**
 * `resc/runtime`: what generated code and applications import. The runtime
 * never imports the compiler or the grammar.
 */
export type {
  ActionDescriptor,
  AuthDescriptor,
  DatabaseRoleDescriptor,
  ClaimDescriptor,
  ColumnDescriptor,
  JwtAlgorithm,
  JwtDescriptor,
  Limits,
  OpSet,
  RelationDescriptor,
  ResourceDescriptor,
  ServiceDescriptor,
  SortTerm,
  TableDescriptor,
  ValueKind,
} from "./descriptor.js";
export {
  DEFAULT_LIMITS,
  DEFAULT_EXPAND_LIMIT,
  MAX_GROUP_DEPTH,
  MAX_LIST_VALUES,
  MAX_VALUE_BYTES,
} from "./descriptor.js";
export type {
  Predicate,
  Comparison,
  And,
  Or,
  Not,
  RawPredicate,
  Operator,
  JsonValue,
  ScalarValue,
} from "./predicate.js";
export { and, or, not, cmp, raw, countLeaves } from "./predicate.js";
export type { ProblemDocument, ProblemItem, ProblemKind } from "./problem.js";
export { PROBLEM_KINDS, ProblemError } from "./problem.js";
export type { Executor, ExecutorLimits, SqlStatement, QueryResult } from "./exec/executor.js";
export { createPgExecutor, type PgExecutor, type PgExecutorOptions } from "./exec/pg.js";
export { createPgliteExecutor } from "./exec/pglite.js";
export { createReplicaRouter, type ReplicaRouter, type ReplicaState } from "./exec/replicas.js";
// The database-role mode (docs/decisions/1368-database-row-level-security.md).
export {
  asDatabaseIdentity,
  actedAs,
  DatabaseIdentityCrossed,
  DatabaseRoleRefused,
  type DatabaseIdentity,
  type IdentityOptions,
} from "./exec/identity.js";
export { databaseIdentityOf } from "./auth/database.js";
export {
  openEmbeddedDatabase,
  EmbeddedDatabaseError,
  SCHEMA_MARKER,
  type EmbeddedDatabase,
  type EmbeddedDatabaseOptions,
} from "./exec/embedded.js";
export { DataDirectoryLockedError, lockFileOf, type LockHolder } from "./exec/data-dir-lock.js";
export type {
  Hooks,
  HookContext,
  HookData,
  HookOperation,
  BeforeQueryHook,
  BeforeCreateHook,
  ValidateCreateHook,
  AfterCommitHook,
  CommitEvent,
  RowValues,
  ActionContext,
  ActionImplementation,
} from "./hooks.js";
export { HookError, type HookKind } from "./hook-error.js";
export { registrationErrors, type RegistrationError } from "./hooks/registration.js";
export { missingHooks, stubMissingHooks, type MissingHook } from "./hooks/stubs.js";
export {
  mountService,
  mountsStopped,
  type EventOptions,
  type MountAuthOptions,
  type MountOptions,
  type MountResult,
} from "./http/mount.js";
// Bearer authentication and the principal (docs/decisions/1367-access-rules.md, "Authentication").
export { type Principal, principalOf, setPrincipal } from "./auth/principal.js";
export {
  createAuthenticator,
  MAX_TOKEN_BYTES,
  DEVELOPMENT_CLAIM,
  type Authenticator,
  type AuthenticatorOptions,
} from "./auth/verify.js";
export { bearerAuthentication, type BearerOptions } from "./auth/middleware.js";
// The development secret, standing in for an unset HS* secret variable (`resc dev`, `resc token`, `resc init`'s server).
export {
  DEVELOPMENT_SECRET_FILE,
  developmentSecret,
  developmentTokenArguments,
  developmentTokenCommand,
  secretStandIn,
} from "./auth/development.js";
export { AuthConfigError, KeysUnavailable, TokenRefused, type RefusalReason } from "./auth/errors.js";
export type { KeySetCacheOptions } from "./auth/keys.js";
export type { WebhookEventKind, WebhookOptions, WebhookSubscription } from "./events/webhooks.js";
export {
  createQueryBuilder,
  TableQuery,
  type QueryBuilder,
  type QueryBuilderOptions,
  type WhereBuilder,
  type ColumnFlag,
  type ColumnMeta,
  type ColumnType,
  type RelationMeta,
  type TableMeta,
  type SchemaShape,
  type TypedService,
  type UntypedSchema,
} from "./builder/index.js";
export { mountDocs, type OpenApiData, type DocsOptions, type DocsResult, type DocsCollision } from "./http/docs.js";
export { problemResponse } from "./http/respond.js";
export { defaultFaultLogger, formatFault, requestIdOf, type FaultLogger, type FaultReport } from "./http/fault-log.js";
