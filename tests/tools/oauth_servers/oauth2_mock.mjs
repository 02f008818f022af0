// oauth2-mock-server (npm) as the authorization server of an MCP server, on loopback.
//
//   node oauth2_mock.mjs STATE_DIR
//
// Serves on 127.0.0.1:$PORT (0 or unset: a free port) and prints its issuer URL on
// stdout once it listens. The protocol is the package's: OpenID discovery, an
// authorization endpoint that approves at once, PKCE checked at the token endpoint,
// JWT access tokens and refresh grants. It has no dynamic client registration (any
// client id is accepted) and keeps no state: any refresh token is accepted, so a
// restart loses nothing but the codes in flight. Its signing key is kept in
// STATE_DIR/key.json, so tokens signed before a restart still verify after it.
// Every token granted is logged as `grant <grant_type> <client_id>` to STATE_DIR/grants.log.
import { createRequire } from 'node:module';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const prefix = process.env.ASSISTA_TEST_SERVERS;
const stateDir = process.argv[2];
if (!prefix || !stateDir) {
  console.error('usage: ASSISTA_TEST_SERVERS=<npm prefix> node oauth2_mock.mjs STATE_DIR');
  process.exit(2);
}
const resolve = createRequire(join(prefix, 'package.json')).resolve;
const { OAuth2Server } = await import(pathToFileURL(resolve('oauth2-mock-server')).href);

const server = new OAuth2Server();
const keyPath = join(stateDir, 'key.json');
if (existsSync(keyPath)) {
  await server.issuer.keys.add(JSON.parse(readFileSync(keyPath, 'utf8')));
} else {
  const key = await server.issuer.keys.generate('ES256');
  writeFileSync(keyPath, JSON.stringify(server.issuer.keys.toJSON(true).find((k) => k.kid === key.kid)));
}
server.service.on('beforeResponse', (response, req) => {
  if (response.statusCode === 200) {
    appendFileSync(join(stateDir, 'grants.log'),
      `grant ${req.body.grant_type} ${req.body.client_id ?? ''}\n`);
  }
});
await server.start(Number(process.env.PORT || 0), '127.0.0.1');
// (it names itself "localhost", which may resolve to ::1 where it does not listen)
server.issuer.url = `http://127.0.0.1:${server.address().port}`;
console.log(server.issuer.url);
