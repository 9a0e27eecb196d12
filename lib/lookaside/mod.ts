/**
 * Where simple-signing signatures live (the containers/image "lookaside" stores; "sigstore" in
 * toolkit means cosign's, which this is not): registries.d configuration (which lookaside URL serves
 * an image) and lookaside stores over `file://` and `http(s)://`, behind the
 * {@linkcode SignatureStore} interface that the registry signature extension also implements.
 *
 * ```ts
 * import { loadRegistriesD, lookasideStoreFor } from "./mod.ts";
 * import { parseReference } from "../image/mod.ts";
 *
 * const config = await loadRegistriesD("/etc/containers/registries.d");
 * const ref = parseReference("registry.example.com/team/app:1");
 * const store = lookasideStoreFor(config, ref);
 * const signatures = await store?.readSignatures(ref, "sha256:…");
 * ```
 *
 * @module
 */
export * from "./registries_d.ts";
export * from "./lookaside.ts";
