/**
 * A new RSA key pair and a self-signed X.509 certificate for it, made with node:crypto alone (it parses
 * certificates but does not make them; this writes the few DER structures of RFC 5280 by hand), so tests
 * need no openssl.
 */
import { generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, content: Buffer) => Buffer.concat([Buffer.from([tag]), length(content.length), content]);
const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime (years 1950–2049), as RFC 5280 asks for those years. */
function time(d: Date): Buffer {
  const two = (n: number) => String(n).padStart(2, '0');
  const text = `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

const name = (commonName: string) => sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName)))));
const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));

export interface TestCertificate {
  privateKey: KeyObject;
  /** The certificate alone (what is registered on the application). */
  certificatePem: string;
  /** The private key (PKCS#8) and the certificate, as the client's --certificate file holds them. */
  pem: string;
}

export function selfSignedCertificate(
  o: { commonName?: string; notBefore?: Date; notAfter?: Date } = {},
): TestCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const notBefore = o.notBefore ?? new Date(Date.now() - 60_000);
  const notAfter = o.notAfter ?? new Date(Date.now() + 24 * 3600_000);
  const serial = randomBytes(8);
  // Positive and minimal in DER: the first byte neither 0x00 (padding) nor above 0x7f (negative).
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    SHA256_WITH_RSA,
    name(o.commonName ?? 'import client test'),
    sequence(time(notBefore), time(notAfter)),
    name(o.commonName ?? 'import client test'),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, SHA256_WITH_RSA, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const certificatePem = `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END CERTIFICATE-----\n`;
  // Parsed once here, so a malformed encoding fails where it is made.
  new X509Certificate(certificatePem);
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { privateKey, certificatePem, pem: `${keyPem}${certificatePem}` };
}
