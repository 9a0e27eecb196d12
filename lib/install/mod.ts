/**
 * Installing toolkit's admission webhook: the manifests of an installation as plain objects
 * (one function per concept), its TLS made in TypeScript, and applying, inspecting and removing
 * it with server-side apply.
 *
 * ```ts
 * import { defaultInstallOptions, generateWebhookTls, installManifests } from "./mod.ts";
 *
 * const options = defaultInstallOptions({ defaultAction: "deny" });
 * const tls = await generateWebhookTls({ dnsNames: ["toolkit-webhook.toolkit-system.svc"] });
 * const objects = installManifests(options, { tls, caBundle: encodeBase64(tls.caCertPem) });
 * ```
 *
 * @module
 */
export * from "./options.ts";
export * from "./rbac.ts";
export * from "./deployment.ts";
export * from "./webhook_configuration.ts";
export * from "./policies.ts";
export * from "./release_key.ts";
export * from "./cert_manager.ts";
export * from "./tls.ts";
export * from "./client_auth.ts";
export * from "./manifests.ts";
export * from "./install_error.ts";
export * from "./registries_d_config_map.ts";
export * from "./apply.ts";
export * from "./dry_run.ts";
export * from "./advice.ts";
export * from "./wait.ts";
export * from "./readiness.ts";
