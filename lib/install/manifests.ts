/**
 * Every object of an installation, in the order they are applied: the Namespace and CRDs
 * first, the webhook configuration last (so the cluster is never sent to a webhook that is
 * not there yet). `disable` removes them in the reverse order.
 *
 * @module
 */
import { policyCrds } from "../policy/mod.ts";
import type { KubeObject } from "../kube/mod.ts";
import { policyReportCrdManifests } from "../reports/mod.ts";
import { certificateManifest, issuerManifest } from "./cert_manager.ts";
import { type ClientCa, clientCaSecretManifest } from "./client_auth.ts";
import {
  deploymentManifest,
  namespaceManifest,
  podDisruptionBudgetManifest,
  serviceManifest,
} from "./deployment.ts";
import type { InstallOptions } from "./options.ts";
import { defaultPolicyManifests, releaseKeySecretManifest } from "./policies.ts";
import { registriesDConfigMapManifest } from "./registries_d_config_map.ts";
import {
  clusterRoleBindingManifest,
  clusterRoleManifest,
  leaseRoleBindingManifest,
  leaseRoleManifest,
  serviceAccountManifest,
} from "./rbac.ts";
import { tlsSecretManifest, type WebhookTls } from "./tls.ts";
import { webhookConfigurationManifest } from "./webhook_configuration.ts";

/** The CRDs of toolkit's policies. */
export function crdManifests(): KubeObject[] {
  return policyCrds() as unknown as KubeObject[];
}

/** What else an installation brings. */
export interface InstallExtras {
  /**
   * The wg-policy PolicyReport CRDs (Kyverno's), which the report controller writes; false when
   * the cluster has them from someone else already. @default true
   */
  readonly policyReportCrds?: boolean;
}

/**
 * All the objects of an installation. `tls` is the certificate toolkit made (ignored with
 * cert-manager); `caBundle` the base64 PEM the webhook configuration trusts; `clientCa` the
 * client CA the API server's certificate comes from (the webhook requires it with
 * `options.clientAuth`; without, it is kept ready for the control plane's configuration).
 */
export function installManifests(
  options: InstallOptions,
  tls: { tls: WebhookTls; caBundle: string } | undefined,
  clientCa?: ClientCa,
  extras: InstallExtras = {},
): KubeObject[] {
  const objects: KubeObject[] = [
    namespaceManifest(options),
    ...crdManifests(),
    ...(extras.policyReportCrds ?? true ? policyReportCrdManifests() : []),
  ];
  objects.push(
    serviceAccountManifest(options),
    clusterRoleManifest(),
    clusterRoleBindingManifest(options),
    leaseRoleManifest(options),
    leaseRoleBindingManifest(options),
  );
  if (options.tlsMode === "cert-manager") {
    objects.push(issuerManifest(options), certificateManifest(options));
  } else if (tls) {
    objects.push(tlsSecretManifest(options.namespace, tls.tls));
  }
  if (clientCa) {
    objects.push(clientCaSecretManifest(options.namespace, clientCa));
  }
  objects.push(
    releaseKeySecretManifest(options),
    registriesDConfigMapManifest(options),
    deploymentManifest(options),
    podDisruptionBudgetManifest(options),
    serviceManifest(options),
    ...defaultPolicyManifests(options),
    webhookConfigurationManifest(
      options,
      options.tlsMode === "cert-manager" && !options.webhookUrl ? undefined : tls?.caBundle,
    ),
  );
  return objects;
}
