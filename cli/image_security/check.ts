/**
 * `toolkit image-security check IMAGE… -f FILE [-n NAMESPACE] [-o json]`: evaluates images
 * offline against policies and key Secrets from YAML files, with the same code the webhook
 * runs (policy choice, digest resolution, signature verification, modes). The images are
 * checked as the containers of one Pod in the namespace.
 *
 * Exit status: 0 when every image is allowed (warn-mode denials included), 1 when one is
 * denied, 2 on a usage error or a policy file that does not validate.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { clientTimeoutMs, networkAdvice, observedContextFetch } from "../network.ts";
import type { OptionsOf } from "../options.ts";
import type { CHECK } from "./check_command.ts";
import { printData } from "../output.ts";
import { resolvePath } from "./files.ts";
import { certDirCertificates } from "./registry_access.ts";
import { encodeBase64 } from "../../lib/mod.ts";
import { readPolicyFiles, readRegistriesD } from "./local_config.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { parseCreds, readAuthFile } from "../../lib/registry/mod.ts";
import { parseReference } from "../../lib/image/mod.ts";
import {
  type AdmissionDecision,
  type AdmissionRequest,
  createAdmissionEvaluator,
  createImageVerifier,
  filePolicySource,
  type NoMatchAction,
  type SecretData,
} from "../../lib/admission/mod.ts";

/** The name of the pull Secret made from `--creds` or `--authfile`. */
const CHECK_PULL_SECRET = "toolkit-check-credentials";

/** A pull Secret from `--creds` (for every image's registry) or `--authfile`. */
async function credentialSecret(
  options: Pick<OptionsOf<typeof CHECK>, "authfile" | "creds">,
  cwd: string,
  images: readonly string[],
): Promise<SecretData | undefined> {
  const auths: Record<string, { auth: string }> = {};
  if (options.authfile) {
    const path = resolvePath(cwd, options.authfile);
    for (const entry of await readAuthFile(path)) {
      auths[entry.key] = {
        auth: encodeBase64(`${entry.credential.username}:${entry.credential.password}`),
      };
    }
  }
  if (options.creds) {
    const creds = parseCreds(options.creds);
    for (const image of images) {
      try {
        auths[parseReference(image).domain] = {
          auth: encodeBase64(`${creds.username}:${creds.password ?? ""}`),
        };
      } catch {
        // An invalid image is reported by the evaluation.
      }
    }
  }
  if (Object.keys(auths).length === 0) return undefined;
  return {
    metadata: { name: CHECK_PULL_SECRET, resourceVersion: "cli" },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": encodeBase64(JSON.stringify({ auths })) },
  };
}

function podRequest(
  namespace: string,
  images: readonly string[],
  pullSecret: boolean,
): AdmissionRequest {
  return {
    uid: "toolkit-image-security-check",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    subResource: "",
    name: "image-security-check",
    namespace,
    operation: "CREATE",
    object: {
      metadata: { name: "image-security-check", namespace },
      spec: {
        containers: images.map((image, i) => ({ name: `image-${i + 1}`, image })),
        ...(pullSecret ? { imagePullSecrets: [{ name: CHECK_PULL_SECRET }] } : {}),
      },
    },
    oldObject: undefined,
    dryRun: true,
  };
}

/** One image's result, as printed with `-o json|yaml`. */
export interface ImageCheck {
  readonly image: string;
  readonly allowed: boolean;
  /** `allow`, `deny`, or `warn` (denied by a warn-mode policy, so allowed). */
  readonly decision: "allow" | "deny" | "warn";
  readonly policy?: string;
  readonly digest?: string;
  /** The pinned reference the webhook would set. */
  readonly pinned?: string;
  readonly reason?: string;
  /** What the admission tells besides (an index admitted by its platforms' signatures). */
  readonly notes?: readonly string[];
}

/** Turns a decision into per-image results. */
export function imageChecks(images: readonly string[], decision: AdmissionDecision): ImageCheck[] {
  return images.map((image, i) => {
    const c = decision.sites[i];
    if (c === undefined) {
      // An image the decision says nothing about was not checked: it is not allowed.
      return {
        image,
        allowed: false,
        decision: "deny",
        reason: decision.reasons[0] ?? "policy denied the request: the image was not checked",
      };
    }
    return {
      image,
      allowed: c.outcome !== "deny",
      decision: c.outcome,
      ...(c.policy ? { policy: c.policy } : {}),
      ...(c.digest ? { digest: c.digest } : {}),
      ...(c.pinned ? { pinned: c.pinned } : {}),
      ...(c.detail ? { reason: c.detail } : {}),
      ...(c.notes ? { notes: c.notes } : {}),
    };
  });
}

function text(checks: readonly ImageCheck[]): string {
  const label = { allow: "ALLOWED", deny: "DENIED ", warn: "WARNING" } as const;
  return checks.map((c) => {
    const lines = [`${label[c.decision]}  ${c.image}`];
    if (c.policy) lines.push(`         policy: ${c.policy}`);
    if (c.pinned) lines.push(`         pinned: ${c.pinned}`);
    else if (c.digest) lines.push(`         digest: ${c.digest}`);
    if (c.reason) lines.push(`         ${c.reason}`);
    for (const note of c.notes ?? []) lines.push(`         note: ${note}`);
    return lines.join("\n");
  }).join("\n") + "\n";
}

/** Runs `check`. */
export async function run(options: OptionsOf<typeof CHECK>, ctx: CommandContext): Promise<number> {
  const format = options.output;
  const images = options.images.filter((s) => s !== "");
  if (images.length === 0) throw new UsageError("Name at least one image to check");
  const files = options.filename.filter((f) => f !== "").map((f) => resolvePath(ctx.io.cwd, f));
  if (files.length === 0) throw new UsageError("Name the policy files with -f FILE");
  const namespace = options.namespace || "default";
  const noMatch: NoMatchAction = options.noMatch;
  let documents = await readPolicyFiles(files, { defaultNamespace: namespace });
  const registriesD = await readRegistriesD(ctx.io.cwd, options["registries.d"]);
  const pull = await credentialSecret(options, ctx.io.cwd, images);
  if (pull) documents = { ...documents, secrets: [...documents.secrets, pull] };
  const insecure = options.insecureRegistry.filter((s) => s !== "");
  if (!options.tlsVerify) {
    for (const image of images) {
      try {
        insecure.push(parseReference(image).domain);
      } catch {
        // reported by the evaluation
      }
    }
  }
  const source = filePolicySource(documents);
  const budgetMs = 30_000;
  const registryErrors: unknown[] = [];
  const verifier = createImageVerifier({
    observer: { registryError: (error) => void registryErrors.push(error) },
    source,
    clusterKeyNamespace: options.controllerNamespace,
    insecureRegistries: insecure,
    caCerts: await certDirCertificates(options, ctx.io.cwd),
    registriesD,
    flightTimeoutMs: budgetMs,
    requestTimeoutMs: clientTimeoutMs(options),
    fetch: observedContextFetch(ctx, options),
    verdictCache: { ttlMs: 60_000, maxEntries: 100 },
    digestCache: { ttlMs: 60_000, maxEntries: 100 },
  });
  const evaluator = createAdmissionEvaluator({
    source,
    verifier,
    settings: { mode: "enforce", noMatch, controllerNamespace: "", budgetMs },
  });
  const decision = await evaluator.evaluate(podRequest(namespace, images, pull !== undefined));
  if (decision.outcome === "skip" || decision.outcome === "exempt") {
    throw new ToolkitError(`Cannot check the images: ${decision.note ?? decision.outcome}`);
  }
  const checks = imageChecks(images, decision);
  const allowed = decision.allowed && checks.every((c) => c.allowed);
  printData(ctx.io.stdout, format, { namespace, allowed, images: checks }, () => text(checks));
  if (!allowed) {
    // What to do about a registry that could not be reached (plain HTTP, no answer in time).
    const advice = registryErrors.map(networkAdvice).find((a) => a !== undefined);
    if (advice) ctx.io.stderr.write(`${advice}\n`);
  }
  return allowed ? 0 : 1;
}
