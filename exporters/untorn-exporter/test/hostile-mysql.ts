// A hostile MySQL server for the credential tests: it speaks just enough of the client/server protocol
// (https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase.html) to get a client
// to hand over its password, by every route a real impostor would try: an auth switch to
// mysql_clear_password, caching_sha2_password "perform full authentication", sha256_password, each with
// its own RSA key offered on request. It records every byte received and decrypts whatever the client
// encrypts with that key, so a test can look for the password in all of it.
import { constants, generateKeyPairSync, privateDecrypt, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";

export type Scenario = "mysql_clear_password" | "caching_sha2_password" | "sha256_password";

export interface HostileServer {
  /** host:port or the socket path. */
  readonly address: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Whether `secret` appears in anything a client sent, in clear or under the server's RSA key. */
  saw(secret: string): boolean;
  /** How often a client asked for the server's public key. */
  keyRequests(): number;
  close(): Promise<void>;
}

const { publicKey, privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
});

function packet(seq: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq & 0xff;
  return Buffer.concat([head, payload]);
}

const cstr = (s: string) => Buffer.from(`${s}\0`, "latin1");

// CLIENT_LONG_PASSWORD | CONNECT_WITH_DB | PROTOCOL_41 | TRANSACTIONS | SECURE_CONNECTION | MULTI_RESULTS
// | PLUGIN_AUTH | PLUGIN_AUTH_LENENC_CLIENT_DATA; no CLIENT_SSL, so a client that needs TLS must give up.
const CAPS = 0x1 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000 | 0x200000;

function greeting(nonce: Buffer, plugin: string): Buffer {
  const caps = Buffer.alloc(4);
  caps.writeUInt32LE(CAPS);
  return Buffer.concat([
    Buffer.from([10]),
    cstr("8.0.99-hostile"),
    Buffer.from([7, 0, 0, 0]),
    nonce.subarray(0, 8),
    Buffer.from([0]),
    caps.subarray(0, 2),
    Buffer.from([0x21, 2, 0]),
    caps.subarray(2, 4),
    Buffer.from([21]),
    Buffer.alloc(10),
    nonce.subarray(8, 20),
    Buffer.from([0]),
    cstr(plugin),
  ]);
}

function xor(a: Buffer, b: Buffer): Buffer {
  return Buffer.from(a.map((x, i) => x ^ b[i % b.length]!));
}

/** Starts a hostile server on `listen` (a port number on 127.0.0.1, or a socket path). */
export function startHostileServer(listen: number | string, scenario: Scenario): Promise<HostileServer> {
  let connections = 0;
  let keyRequests = 0;
  const received: Buffer[] = [];
  const sockets = new Set<Socket>();

  const serve = (sock: Socket) => {
    connections++;
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => undefined);
    const nonce = randomBytes(20).map((b) => (b === 0 ? 1 : b)) as Buffer;
    let buf = Buffer.alloc(0);
    let step = 0;
    let seq = 0;
    const send = (payload: Buffer) => sock.write(packet(++seq, payload));
    const deny = () => {
      send(Buffer.concat([Buffer.from([0xff, 0x15, 0x04]), Buffer.from("#28000Access denied")]));
      sock.end();
    };
    const tryDecrypt = (data: Buffer) => {
      for (const padding of [constants.RSA_PKCS1_OAEP_PADDING, constants.RSA_PKCS1_PADDING]) {
        try {
          received.push(xor(privateDecrypt({ key: privateKey, padding, oaepHash: "sha1" }, data), nonce));
        } catch {
          // not encrypted with this key and padding
        }
      }
    };
    const onPacket = (payload: Buffer) => {
      received.push(payload);
      tryDecrypt(payload);
      step++;
      if (step === 1) {
        // The handshake response. Switch to the scenario's plugin (fresh nonce = the same one here).
        if (scenario === "caching_sha2_password" && payload.includes(Buffer.from(scenario))) {
          send(Buffer.from([1, 4])); // perform full authentication
          return;
        }
        send(Buffer.concat([Buffer.from([0xfe]), cstr(scenario), nonce, Buffer.from([0])]));
        return;
      }
      if (scenario === "caching_sha2_password" && step === 2 && payload.length === 32) {
        send(Buffer.from([1, 4])); // the scramble after the switch: ask for the password itself
        return;
      }
      if ((payload.length === 1 && payload[0] === 2) || (payload.length === 1 && payload[0] === 1)) {
        keyRequests++;
        send(Buffer.concat([Buffer.from([1]), Buffer.from(publicKey)]));
        return;
      }
      deny();
    };
    sock.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4) {
        const len = buf.readUIntLE(0, 3);
        if (buf.length < 4 + len) break;
        seq = buf[3]!;
        const payload = buf.subarray(4, 4 + len);
        buf = buf.subarray(4 + len);
        onPacket(payload);
      }
    });
    sock.write(
      packet(0, greeting(nonce, scenario === "caching_sha2_password" ? scenario : "mysql_native_password")),
    );
  };

  const server: Server = createServer(serve);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const onListen = () => {
      const a = server.address();
      const address =
        typeof listen === "string" ? listen : `127.0.0.1:${typeof a === "object" && a ? a.port : listen}`;
      resolve({
        address,
        connections: () => connections,
        keyRequests: () => keyRequests,
        saw: (secret) => received.some((b) => b.includes(Buffer.from(secret, "utf8"))),
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => {
              if (typeof listen === "string") rmSync(listen, { force: true });
              done();
            });
          }),
      });
    };
    if (typeof listen === "string") server.listen(listen, onListen);
    else server.listen(listen, "127.0.0.1", onListen);
  });
}
