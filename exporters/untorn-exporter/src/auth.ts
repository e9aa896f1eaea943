// MySQL authentication plugins that never hand the password to a server that has not proved it holds
// the key the exporter trusts: mysql2's own caching_sha2_password and sha256_password plugins ask an
// unencrypted TCP peer for its RSA public key and encrypt the password with whatever comes back, so any
// impostor on the path can decrypt it. These refuse instead, unless TLS is on (the server's certificate
// verified), the target is a unix socket on the allow-list, or a public key was configured.
// Protocol: https://dev.mysql.com/doc/dev/mysql-server/latest/page_caching_sha2_authentication_exchanges.html
import { constants, createHash, publicEncrypt } from "node:crypto";
import { TLSSocket } from "node:tls";

/** What the plugins need from mysql2's connection object. */
interface PluginConnection {
  config: { password?: string; socketPath?: string };
  stream?: unknown;
}

type PluginHandler = (data: Buffer) => Buffer | null;
type Plugin = (ctx: { connection: PluginConnection }) => PluginHandler;

export class InsecureAuthError extends Error {
  constructor(plugin: string, what: string) {
    super(
      `refused ${plugin} ${what} over an unencrypted TCP connection: the password would be readable by ` +
        "whoever answers at that address. Use TLS (tls.ca_file, or ssl-ca in my.cnf) or configure the " +
        "server's RSA public key (server_public_key_file, or server-public-key-path in my.cnf)",
    );
    this.name = "InsecureAuthError";
  }
}

const sha256 = (b: Buffer): Buffer => createHash("sha256").update(b).digest();

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i % b.length]!;
  return out;
}

/** The caching_sha2_password scramble: XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)), nonce)). */
export function sha2Scramble(password: string, nonce: Buffer): Buffer {
  if (!password) return Buffer.alloc(0);
  const stage1 = sha256(Buffer.from(password, "utf8"));
  return xor(stage1, sha256(Buffer.concat([sha256(stage1), nonce])));
}

function encryptWith(key: string, password: string, nonce: Buffer, oaep: boolean): Buffer {
  return publicEncrypt(
    oaep ? { key, oaepHash: "sha1", padding: constants.RSA_PKCS1_OAEP_PADDING } : { key, oaepHash: "sha1" },
    xor(Buffer.from(`${password}\0`, "utf8"), nonce),
  );
}

/** TLS with a verified peer, or a unix socket (only ever one on the allow-list or the configured one). */
function secureTransport(connection: PluginConnection): boolean {
  if (connection.config.socketPath) return true;
  const s = connection.stream;
  return s instanceof TLSSocket && s.encrypted === true;
}

const cachingSha2 =
  (serverPublicKey: string | undefined): Plugin =>
  ({ connection }) => {
    let nonce: Buffer = Buffer.alloc(0);
    let state: "initial" | "token-sent" | "done" = "initial";
    const password = connection.config.password ?? "";
    return (data) => {
      if (state === "initial") {
        nonce = data.subarray(0, 20);
        state = "token-sent";
        return sha2Scramble(password, nonce);
      }
      if (state === "token-sent" && data.length === 1 && data[0] === 3) {
        state = "done"; // fast authentication: the server had the scramble cached
        return null;
      }
      if (state === "token-sent" && data.length === 1 && data[0] === 4) {
        state = "done";
        if (secureTransport(connection)) return Buffer.from(`${password}\0`, "utf8");
        if (serverPublicKey) return encryptWith(serverPublicKey, password, nonce, true);
        throw new InsecureAuthError("caching_sha2_password", "full authentication");
      }
      throw new Error(`caching_sha2_password: unexpected packet from the server (${data.length} bytes)`);
    };
  };

const sha256Password =
  (serverPublicKey: string | undefined): Plugin =>
  ({ connection }) => {
    let done = false;
    const password = connection.config.password ?? "";
    return (data) => {
      if (done) throw new Error("sha256_password: unexpected packet from the server");
      done = true;
      if (secureTransport(connection)) return Buffer.from(`${password}\0`, "utf8");
      if (serverPublicKey) return encryptWith(serverPublicKey, password, data.subarray(0, 20), false);
      throw new InsecureAuthError("sha256_password", "authentication");
    };
  };

/** mysql_clear_password sends the password as is: only when allowed, and then only over TLS or a socket. */
const clearPassword =
  (allowed: boolean): Plugin =>
  ({ connection }) =>
  () => {
    if (!allowed)
      throw new Error(
        "refused mysql_clear_password: the server asked for the password in clear text (allow it with allow_cleartext_password in the auth module)",
      );
    if (!secureTransport(connection)) throw new InsecureAuthError("mysql_clear_password", "authentication");
    return Buffer.from(`${connection.config.password ?? ""}\0`, "utf8");
  };

/** mysql2 `authPlugins` for every plugin that can carry the password itself. */
export function safeAuthPlugins(opts: { serverPublicKey?: string; allowCleartext?: boolean }) {
  return {
    caching_sha2_password: cachingSha2(opts.serverPublicKey),
    sha256_password: sha256Password(opts.serverPublicKey),
    mysql_clear_password: clearPassword(opts.allowCleartext ?? false),
  };
}
