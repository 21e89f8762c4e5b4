/**
 * A real identity provider for the authentication suites: oidc-provider on
 * a local port, issuing JWT access tokens with the client credentials grant
 * (a resource indicator makes them JWTs, RFC 8707 and RFC 9068), signed with
 * the keys it is given and published at its `/jwks`. Its keys can be
 * replaced while it runs (a new provider behind the same port and issuer),
 * as an identity provider rotating its keys would, and it counts the key
 * set fetches it answers.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";

/** A signing key of the provider: its private JWK with `kid`, `alg` and `use`. */
export type SigningKey = JWK & { kid: string; alg: string };

/** A new signing key for `alg`, named `kid`. */
export async function signingKey(alg: "RS256" | "ES256", kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg, use: "sig" };
}

/** The audience every access token of the provider is for, except the `other` resource's. */
export const AUDIENCE = "notes";

/** The resource indicators the provider knows: each names the algorithm its tokens are signed with. */
export const RESOURCES = {
  rs256: "urn:notes:rs256",
  es256: "urn:notes:es256",
  /** Tokens for another API (audience `other`), ES256. */
  other: "urn:notes:other",
} as const;

/** The client the suites ask tokens for; its id is the tokens' `sub`. */
export const CLIENT = { id: "notes-worker", secret: "notes-worker-secret-notes-worker-secret" };

/** A running provider. */
export interface Idp {
  issuer: string;
  jwksUrl: string;
  /** An access token for `resource` (the client's, with `claims` added to its payload). */
  token(resource: string): Promise<string>;
  /** Replaces the signing keys (the first of each algorithm signs); the issuer and port stay. */
  rotate(keys: SigningKey[]): void;
  /** How many times `/jwks` was fetched so far. */
  keySetFetches(): number;
  close(): Promise<void>;
}

/**
 * Starts the provider on 127.0.0.1 with `keys`; every token carries
 * `extraClaims` (read at each token, so a suite may change it).
 */
export async function startIdp(keys: SigningKey[], extraClaims: Record<string, unknown>): Promise<Idp> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let fetches = 0;
  const provider = (signing: SigningKey[]): Provider =>
    new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
          grant_types: ["client_credentials"],
          redirect_uris: [],
          response_types: [],
          token_endpoint_auth_method: "client_secret_post",
        },
      ],
      jwks: { keys: signing },
      ttl: { ClientCredentials: 600 },
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => RESOURCES.es256,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => ({
            scope: "notes",
            audience: resource === RESOURCES.other ? "other" : AUDIENCE,
            accessTokenFormat: "jwt",
            accessTokenTTL: 600,
            jwt: { sign: { alg: resource === RESOURCES.rs256 ? "RS256" : "ES256" } },
          }),
        },
      },
      extraTokenClaims: () => ({ ...extraClaims }),
    });
  let handler = provider(keys).callback();
  server.on("request", (req, res) => {
    if (req.url?.startsWith("/jwks")) fetches++;
    void handler(req, res);
  });
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    async token(resource) {
      const r = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
          resource,
          scope: "notes",
        }),
      });
      const body = (await r.json()) as { access_token?: string };
      if (!r.ok || !body.access_token) throw new Error(`the provider gave no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    rotate(next) {
      handler = provider(next).callback();
    },
    keySetFetches: () => fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
