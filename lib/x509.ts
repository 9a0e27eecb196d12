/**
 * toolkit's one X.509 library: `@peculiar/x509` (PKI.js's authors; certificates, extensions,
 * names, generation and parsing over WebCrypto), for the webhook's serving certificate
 * (lib/install/tls.ts) and the certificates of sigstore test CAs alike. Import it from here: this
 * module loads the `Reflect` metadata API the library needs first (it resolves its algorithm
 * providers through tsyringe, which fails to load without it), so no caller forgets it.
 *
 * ```ts
 * import { x509 } from "./x509.ts";
 *
 * const certificate = new x509.X509Certificate(pem);
 * certificate.getExtension(x509.SubjectAlternativeNameExtension)?.names.items;
 * ```
 *
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

export { x509 };
