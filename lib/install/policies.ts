/**
 * The default ClusterImagePolicies `enable` installs:
 *
 * - toolkit's own image repositories (the webhook's and the CLI's, which the signing Task runs)
 *   must carry toolkit's release signature (key Secret `toolkit-release-key` in the controller's
 *   namespace);
 * - Kubernetes system images (`registry.k8s.io/*`) are admitted without checks;
 * - everything else (`*`) follows `--default`:
 *   - `allow`: admitted without checks (enforcement only where other policies say so);
 *   - `warn` (default): a signature by a key in the `image-signing-keys` Secret is checked,
 *     and an image without one is admitted with a warning (a dry run of enforcement);
 *   - `deny`: the same signature is required; unsigned images are denied.
 *
 * A namespace's ImagePolicy replaces all cluster policies in that namespace; more specific
 * ClusterImagePolicy patterns win over `*`.
 *
 * @module
 */
import { encodeBase64 } from "../base64.ts";
import { API_GROUP, API_VERSION } from "../policy/mod.ts";
import type { KubeObject } from "../kube/mod.ts";
import { KEY_SECRET_ENTRY } from "../admission/mod.ts";
import {
  commonLabels,
  type DefaultAction,
  type InstallOptions,
  RELEASE_KEY_SECRET_NAME,
  SIGNING_KEYS_SECRET_NAME,
} from "./options.ts";
import { TOOLKIT_IMAGE_REPOSITORIES } from "../images.ts";
import { RELEASE_PUBLIC_KEY } from "./release_key.ts";

/** The system image repositories admitted without checks. */
export const SYSTEM_IMAGE_PATTERNS: readonly string[] = ["registry.k8s.io/*"];

/** The names of the default policies. */
export const DEFAULT_POLICY_NAMES = {
  toolkit: "toolkit-release",
  system: "kubernetes-system-images",
  catchAll: "default",
} as const;

/** The Secret holding toolkit's release public key, for the `toolkit-release` policy. */
export function releaseKeySecretManifest(
  options: InstallOptions,
  publicKey: string = RELEASE_PUBLIC_KEY,
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: RELEASE_KEY_SECRET_NAME,
      namespace: options.namespace,
      labels: commonLabels(),
    },
    type: "Opaque",
    data: { [KEY_SECRET_ENTRY]: encodeBase64(publicKey) },
  };
}

function clusterPolicy(name: string, repositories: unknown[]): KubeObject {
  return {
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: "ClusterImagePolicy",
    metadata: { name, labels: commonLabels() },
    spec: { repositories },
  };
}

/** The `policy` of `*` for a `--default` choice. */
export function catchAllPolicy(action: DefaultAction): Record<string, unknown> {
  if (action === "allow") return {};
  return {
    mode: action === "warn" ? "warn" : "enforce",
    simple: { requirements: [{ type: "signedBy", keySecret: SIGNING_KEYS_SECRET_NAME }] },
  };
}

/** The default ClusterImagePolicies. */
export function defaultPolicyManifests(options: InstallOptions): KubeObject[] {
  return [
    clusterPolicy(
      DEFAULT_POLICY_NAMES.toolkit,
      TOOLKIT_IMAGE_REPOSITORIES.map((name) => ({
        name,
        policy: {
          simple: {
            requirements: [{
              type: "signedBy",
              keySecret: RELEASE_KEY_SECRET_NAME,
              keySecretNamespace: options.namespace,
              signedIdentity: { type: "matchRepository" },
            }],
          },
        },
      })),
    ),
    clusterPolicy(
      DEFAULT_POLICY_NAMES.system,
      SYSTEM_IMAGE_PATTERNS.map((name) => ({ name, policy: {} })),
    ),
    clusterPolicy(DEFAULT_POLICY_NAMES.catchAll, [{
      name: "*",
      policy: catchAllPolicy(options.defaultAction),
    }]),
  ];
}
