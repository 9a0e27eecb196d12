/**
 * `toolkit image-security enable|status|disable|rotate-certs` as `--help` and completion know it:
 * usage, help text and flags. Its implementation, `enforcement.ts`, is imported only when the command
 * runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { KUBE_FLAGS, NAMESPACE, OUTPUT, RESULT_OUTPUT } from "../flags.ts";

/**
 * The namespace of the enforcement controller. The commands that work in it (enable, status,
 * disable, rotate-certs) also take it as `-n/--namespace`; `check`, whose `-n` is the namespace
 * the images would run in, takes only the long name.
 */
const CONTROLLER_NAMESPACE = NAMESPACE.controller;

/** `image-security enable`. */
export const ENABLE_ENFORCEMENT = defineCommand({
  usage: "enable",
  describe: "Install image signature enforcement into the cluster",
  examples: [
    ["image-security enable --default deny", "Enforce signatures on every image"],
    ["image-security enable --dry-run -o yaml", "Print the manifests"],
    [
      "image-security enable --webhook-url https://10.0.0.5:8443/admit --tls-dir ./tls",
      "Call a webhook run outside the cluster with the certificate in ./tls",
    ],
    [
      "image-security enable --client-auth --api-server-config-dir ./apiserver",
      "Admit only the API server's calls; write its admission configuration and client certificate",
    ],
  ],
  flags: {
    "controller-namespace": CONTROLLER_NAMESPACE,
    image: { type: "string", describe: "The webhook image (default: this version's)" },
    replicas: { type: "number", default: 3, describe: "Webhook replicas" },
    default: {
      type: "string",
      choices: ["allow", "warn", "deny"],
      default: "warn",
      describe: "Images no other policy covers: allow, warn when unsigned, or deny unsigned",
    },
    "webhook-url": {
      type: "string",
      describe:
        "Call the webhook at this https URL instead of its Service; enforcement is switched on once the URL answers with the serving certificate",
    },
    "verify-url": {
      type: "boolean",
      default: true,
      describe:
        "With --webhook-url: wait (up to --wait-timeout; --no-wait: one try) until the URL answers with the certificate the API server will trust, before switching enforcement on",
    },
    "tls-dir": {
      type: "string",
      describe: "Also write the serving certificate to this directory (for --webhook-url)",
    },
    "cert-manager": {
      type: "boolean",
      describe: "Let cert-manager issue the serving certificate and inject the CA",
    },
    "client-auth": {
      type: "boolean",
      describe:
        "The webhook refuses, at the TLS handshake, every client without the API server's client certificate (from a client CA toolkit makes); kube-apiserver then needs the configuration of --api-server-config-dir",
    },
    "client-ca": {
      type: "string",
      describe:
        "With --client-auth: trust the API server's client certificates from this PEM CA instead of one toolkit makes (you issue the certificate)",
    },
    "api-server-config-dir": {
      type: "string",
      describe:
        "Write what kube-apiserver needs to call the webhook with a client certificate: the AdmissionConfiguration (--admission-control-config-file), its kubeconfig, client.crt and client.key (0600); without --client-auth the webhook does not require it yet",
    },
    "api-server-config-path": {
      type: "string",
      describe:
        "Where kube-apiserver reads those files, named inside them (default: --api-server-config-dir, else /etc/kubernetes/toolkit)",
    },
    "exempt-namespace": {
      type: "array",
      describe: "A namespace the webhook never checks; repeatable",
    },
    lookaside: {
      type: "array",
      describe:
        "SCOPE=URL: the webhook reads signatures of images under SCOPE from this http(s) lookaside store; repeatable",
    },
    "exempt-namespace-label": {
      type: "string",
      default: "toolkit.dev/image-security=exempt",
      describe: 'Namespaces with this label are not checked ("" for none)',
    },
    timeout: { type: "number", default: 10, describe: "The webhook's timeoutSeconds (1-30)" },
    "dry-run": {
      type: "boolean",
      describe: "Print every manifest instead of applying (private keys left empty)",
    },
    wait: {
      type: "boolean",
      default: true,
      describe: "Switch enforcement on only once a webhook replica is ready (--no-wait: at once)",
    },
    "wait-timeout": {
      type: "number",
      default: 180,
      describe:
        "Seconds to wait for a ready replica (with --webhook-url: for the URL to serve the certificate)",
    },
    output: {
      type: "string",
      alias: "o",
      choices: ["text", "json", "yaml"],
      describe: "Output format (default: text; with --dry-run, yaml: the manifests)",
    },
    ...KUBE_FLAGS,
  },
});

/** `image-security status`. */
export const STATUS = defineCommand({
  usage: "status",
  describe: "Show what is installed",
  flags: { "controller-namespace": CONTROLLER_NAMESPACE, ...OUTPUT, ...KUBE_FLAGS },
});

/** `image-security disable`. */
export const DISABLE = defineCommand({
  usage: "disable",
  describe: "Remove image signature enforcement",
  flags: {
    "controller-namespace": CONTROLLER_NAMESPACE,
    purge: {
      type: "boolean",
      describe:
        "Also remove the default policies, the CRDs (every policy), the namespace and toolkit's PolicyReports (their CRDs too when toolkit alone installed them and nothing else reports in them)",
    },
    ...RESULT_OUTPUT,
    ...KUBE_FLAGS,
  },
});

/** `image-security rotate-certs`. */
export const ROTATE_CERTS = defineCommand({
  usage: "rotate-certs",
  describe: "Renew the webhook's serving certificate",
  flags: {
    "controller-namespace": CONTROLLER_NAMESPACE,
    "tls-dir": {
      type: "string",
      describe: "Also write the serving certificate to this directory (for --webhook-url)",
    },
    ...OUTPUT,
    ...KUBE_FLAGS,
  },
});
