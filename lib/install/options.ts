/**
 * What an installation of toolkit's admission webhook is made of: its names, labels and the
 * choices `toolkit image-security enable` and the Helm chart expose.
 *
 * @module
 */
import { TOOLKIT_IMAGE_REPOSITORY } from "../images.ts";
import { VERSION } from "../version.ts";
import { DEFAULT_EXEMPT_LABEL, type ExemptLabel } from "../admission/mod.ts";
import { API_GROUP } from "../policy/mod.ts";

/** What happens to images no other default policy covers (`--default`). */
export type DefaultAction = "allow" | "warn" | "deny";

/** How the webhook's serving certificate is made. */
export type TlsMode = "self-signed" | "cert-manager";

/** A lookaside signature store for images under `scope` (a registry host or repository). */
export interface LookasideEntry {
  /** `registry.example.com` or `registry.example.com/team`. */
  readonly scope: string;
  /** The http(s) base URL of the store. */
  readonly url: string;
}

/** The choices of an installation. */
export interface InstallOptions {
  /** The controller's namespace (default `toolkit-system`). */
  readonly namespace: string;
  /** The webhook image. */
  readonly image: string;
  /** Webhook replicas (default 3). */
  readonly replicas: number;
  /** Images no other default policy covers (default `warn`). */
  readonly defaultAction: DefaultAction;
  /** Call the webhook at this URL instead of through its Service (out-of-cluster webhooks). */
  readonly webhookUrl?: string | undefined;
  /** Who makes the serving certificate. */
  readonly tlsMode: TlsMode;
  /** The namespace label that exempts a namespace (undefined: none). */
  readonly exemptLabel: ExemptLabel | undefined;
  /** Namespaces never sent to the webhook besides the controller's own. */
  readonly exemptNamespaces: readonly string[];
  /** The webhook's `timeoutSeconds` (1–30, default 10). */
  readonly timeoutSeconds: number;
  /** Lookaside signature stores the in-cluster webhook reads (besides toolkit's own). */
  readonly lookaside: readonly LookasideEntry[];
  /**
   * Whether the webhook requires the API server's client certificate (`--client-ca`), its
   * probes then on the probe port (`lib/install/client_auth.ts`).
   */
  readonly clientAuth: boolean;
  /**
   * The client CA certificate(s) the administrator gives (PEM), instead of a CA toolkit makes
   * (with `clientAuth` only).
   */
  readonly clientCaPem?: string | undefined;
}

export { TOOLKIT_IMAGE_REPOSITORY } from "../images.ts";

/** The name shared by the ServiceAccount, ClusterRole(Binding), Deployment, PDB and Service. */
export const WEBHOOK_NAME = "toolkit-webhook";

/** The names of the policy CRDs. */
export const POLICY_CRD_NAMES: readonly string[] = [
  `clusterimagepolicies.${API_GROUP}`,
  `imagepolicies.${API_GROUP}`,
];

/** The MutatingWebhookConfiguration's name. */
export const WEBHOOK_CONFIGURATION_NAME = "toolkit-image-security";

/** The Secret holding the serving certificate (`tls.crt`, `tls.key`, `ca.crt`). */
export const TLS_SECRET_NAME = "toolkit-webhook-tls";

/** The Secret holding toolkit's release public key (entry `key`). */
export const RELEASE_KEY_SECRET_NAME = "toolkit-release-key";

/**
 * The Secret the catch-all default policy verifies against (entry `key`). `enable` does not
 * create it: the administrator stores the organisation's signing keys in it with
 * `toolkit image-security key-secret image-signing-keys -n toolkit-system --key FILE`.
 */
export const SIGNING_KEYS_SECRET_NAME = "image-signing-keys";

/** The HTTPS port the webhook container listens on. */
export const WEBHOOK_PORT = 8443;

/** The label `enable` puts on everything it creates, used by `disable` and `status`. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

/** The labels of every installed object. */
export function commonLabels(): Record<string, string> {
  return {
    "app.kubernetes.io/part-of": "toolkit",
    [MANAGED_BY_LABEL]: "toolkit",
  };
}

/** The labels selecting the webhook's pods (Deployment, PDB, Service, anti-affinity). */
export function selectorLabels(): Record<string, string> {
  return {
    "app.kubernetes.io/name": WEBHOOK_NAME,
    "app.kubernetes.io/component": "admission-webhook",
  };
}

/** The default image: toolkit's webhook at this version. */
export const DEFAULT_IMAGE = `${TOOLKIT_IMAGE_REPOSITORY}:${VERSION}`;

/** The options `enable` uses when no flag is given. */
export function defaultInstallOptions(overrides: Partial<InstallOptions> = {}): InstallOptions {
  return {
    namespace: "toolkit-system",
    image: DEFAULT_IMAGE,
    replicas: 3,
    defaultAction: "warn",
    webhookUrl: undefined,
    tlsMode: "self-signed",
    exemptLabel: DEFAULT_EXEMPT_LABEL,
    exemptNamespaces: [],
    timeoutSeconds: 10,
    lookaside: [],
    clientAuth: false,
    ...overrides,
  };
}

/** The DNS name the API server calls the webhook Service by. */
export function serviceDnsName(options: Pick<InstallOptions, "namespace">): string {
  return `${WEBHOOK_NAME}.${options.namespace}.svc`;
}
