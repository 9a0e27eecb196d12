/**
 * Certificates for the test environment, made with the real `openssl`: a CA per component,
 * serving certificates for 127.0.0.1/localhost, and client certificates.
 *
 * @module
 */
import { runOk } from "./process.ts";

/** A certificate with its key, as files and PEM text. */
export interface CertFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** Makes a self-signed CA in `dir` named `name`. */
export async function makeCA(dir: string, name: string): Promise<CertFiles> {
  const keyFile = `${dir}/${name}.key`;
  const certFile = `${dir}/${name}.crt`;
  await runOk("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "3",
    "-subj",
    `/CN=${name}`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  return await readCert(certFile, keyFile);
}

/** Issues a certificate signed by `ca`: a server certificate when `sans` are given. */
export async function issueCert(
  dir: string,
  ca: CertFiles,
  options: { name: string; cn: string; org?: string; sans?: string[]; client?: boolean },
): Promise<CertFiles> {
  const base = `${dir}/${options.name}`;
  const subject = `${options.org ? `/O=${options.org}` : ""}/CN=${options.cn}`;
  await runOk("openssl", [
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    `${base}.key`,
    "-out",
    `${base}.csr`,
    "-subj",
    subject,
  ]);
  const ext = [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature,keyEncipherment",
    `extendedKeyUsage=${options.client ? "clientAuth" : "serverAuth,clientAuth"}`,
  ];
  if (options.sans?.length) ext.push(`subjectAltName=${options.sans.join(",")}`);
  await Deno.writeTextFile(`${base}.ext`, ext.join("\n") + "\n");
  await runOk("openssl", [
    "x509",
    "-req",
    "-in",
    `${base}.csr`,
    "-CA",
    ca.certFile,
    "-CAkey",
    ca.keyFile,
    "-CAcreateserial",
    "-out",
    `${base}.crt`,
    "-days",
    "2",
    "-extfile",
    `${base}.ext`,
  ]);
  return await readCert(`${base}.crt`, `${base}.key`);
}

/** The SANs of a certificate for a server on this machine. */
export const LOOPBACK_SANS = ["IP:127.0.0.1", "DNS:localhost"];

async function readCert(certFile: string, keyFile: string): Promise<CertFiles> {
  return {
    certFile,
    keyFile,
    certPem: await Deno.readTextFile(certFile),
    keyPem: await Deno.readTextFile(keyFile),
  };
}
