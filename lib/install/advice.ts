/**
 * What an administrator should know right after `enable`: the default policy names the Secret
 * `image-signing-keys`, which `enable` does not create. Without it, `--default warn` admits every
 * image the other policies do not cover with a warning, and `--default deny` denies them all
 * (the webhook fails closed on a missing key Secret).
 *
 * @module
 */
import type { KubeClient } from "../kube/mod.ts";
import { installedType } from "./apply.ts";
import { type InstallOptions, SIGNING_KEYS_SECRET_NAME } from "./options.ts";

/** How to create the signing keys Secret. */
export function signingKeysCommand(namespace: string): string {
  return `toolkit image-security key-secret ${SIGNING_KEYS_SECRET_NAME} -n ${namespace} --key FILE`;
}

/**
 * A warning when the default policy checks signatures against a key Secret that does not
 * exist, or undefined when there is nothing to say (`--default allow`, or the Secret exists).
 */
export async function signingKeysAdvice(
  client: KubeClient,
  options: Pick<InstallOptions, "namespace" | "defaultAction">,
): Promise<string | undefined> {
  if (options.defaultAction === "allow") return undefined;
  const secret = await client.read(
    installedType("Secret"),
    options.namespace,
    SIGNING_KEYS_SECRET_NAME,
  );
  if (secret) return undefined;
  const where = `${options.namespace}/${SIGNING_KEYS_SECRET_NAME}`;
  const effect = options.defaultAction === "deny"
    ? "every image no other policy covers is DENIED until it exists"
    : "every image no other policy covers is admitted with a warning until it exists";
  return `The default policy checks signatures against the keys in Secret "${where}", which does not exist: ${effect}. Create it with: ${
    signingKeysCommand(options.namespace)
  }`;
}
