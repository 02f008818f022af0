// panva's oidc-provider (npm) as the authorization server of an MCP server, on loopback.
//
//   node oidc_provider.mjs STATE_DIR
//
// Serves on 127.0.0.1:$PORT (0 or unset: a free port) and prints its issuer URL on
// stdout once it listens. Only configuration is written here; the protocol is the
// package's: discovery (/.well-known/openid-configuration), dynamic client registration
// (RFC 7591, open), PKCE (required for public clients), resource indicators (RFC 8707:
// JWT access tokens for the MCP server named by `resource`), refresh tokens (rotated),
// and its development sign-in and consent pages (forms the tests fill in).
//
// Everything it stores (registered clients, grants, refresh tokens, sessions) and its
// signing key live in STATE_DIR/store.json, so a restarted process with the same
// STATE_DIR and port knows the clients and refresh tokens of the previous one.
// Every token granted is logged as a line `grant <grant_type> <client_id>` to
// STATE_DIR/grants.log. ACCESS_TOKEN_S sets the access tokens' lifetime (default 3600).
import { createRequire } from 'node:module';
import { appendFileSync, existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const prefix = process.env.ASSISTA_TEST_SERVERS;
const stateDir = process.argv[2];
if (!prefix || !stateDir) {
  console.error('usage: ASSISTA_TEST_SERVERS=<npm prefix> node oidc_provider.mjs STATE_DIR');
  process.exit(2);
}
const resolve = createRequire(join(prefix, 'package.json')).resolve;
const { default: Provider } = await import(pathToFileURL(resolve('oidc-provider')).href);

const storePath = join(stateDir, 'store.json');
const store = existsSync(storePath) ? JSON.parse(readFileSync(storePath, 'utf8')) : {};
store.models ??= {};
if (!store.jwk) {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  store.jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'assista-test', alg: 'ES256', use: 'sig' };
}
const save = () => {
  writeFileSync(`${storePath}.tmp`, JSON.stringify(store));
  renameSync(`${storePath}.tmp`, storePath);
};
save();

// The adapter interface oidc-provider asks for, on the JSON file above.
class FileAdapter {
  constructor(name) {
    this.name = name;
    store.models[name] ??= {};
    this.rows = store.models[name];
  }

  async upsert(id, payload, expiresIn) {
    this.rows[id] = { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null };
    save();
  }

  async find(id) {
    const row = this.rows[id];
    if (!row || (row.expiresAt && row.expiresAt < Date.now())) return undefined;
    return row.payload;
  }

  async findByUserCode(userCode) {
    return Object.values(this.rows).find((r) => r.payload.userCode === userCode)?.payload;
  }

  async findByUid(uid) {
    return Object.values(this.rows).find((r) => r.payload.uid === uid)?.payload;
  }

  async consume(id) {
    if (this.rows[id]) {
      this.rows[id].payload.consumed = Math.floor(Date.now() / 1000);
      save();
    }
  }

  async destroy(id) {
    delete this.rows[id];
    save();
  }

  async revokeByGrantId(grantId) {
    for (const [id, row] of Object.entries(this.rows)) {
      if (row.payload.grantId === grantId) delete this.rows[id];
    }
    save();
  }
}

const port = Number(process.env.PORT || 0);
const lifetime = Number(process.env.ACCESS_TOKEN_S || 3600);
// The issuer needs the port: bind first, then build the provider for that address.
const { createServer } = await import('node:http');
const server = createServer();
await new Promise((done) => server.listen(port, '127.0.0.1', done));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  adapter: FileAdapter,
  jwks: { keys: [store.jwk] },
  cookies: { keys: ['assista-test-cookie-key'] },
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  scopes: ['openid', 'offline_access', 'mcp'],
  clientDefaults: { grant_types: ['authorization_code', 'refresh_token'],
                    token_endpoint_auth_method: 'none',
                    id_token_signed_response_alg: 'ES256' },  // its one key is an EC key
  features: {
    registration: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A token for the MCP server the client names (its URL, RFC 8707), as a JWT
      // the MCP server checks with this issuer's published keys.
      getResourceServerInfo: async (_ctx, resource) => ({
        scope: 'mcp', audience: resource, accessTokenTTL: lifetime,
        accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } },
      }),
      useGrantedResource: async () => true,
    },
  },
  // Refresh tokens to every client allowed the grant (not only with offline_access).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  ttl: { AccessToken: lifetime },
});
provider.proxy = false;
provider.on('grant.success', (ctx) => {
  const { grant_type: grantType } = ctx.oidc.params;
  appendFileSync(join(stateDir, 'grants.log'), `grant ${grantType} ${ctx.oidc.client?.clientId}\n`);
});
provider.on('registration_create.success', (_ctx, client) => {
  appendFileSync(join(stateDir, 'grants.log'), `register ${client.clientId}\n`);
});
provider.on('server_error', (_ctx, error) => console.error('server_error', error));
server.on('request', provider.callback());
console.log(issuer);
