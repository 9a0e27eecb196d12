/**
 * `deno task demo`: brings up toolkit's local environment of real components — etcd and
 * kube-apiserver with the Tekton, OpenShift and toolkit CRDs, the distribution registry, gpg
 * and skopeo — pushes a signed image, prints what to try, stays up until Ctrl-C and tears
 * everything down.
 *
 * `--no-wait` tears down right after the tour (used by the tests).
 *
 * @module
 */
import { startCluster, startGpg, startRegistry } from "../env/mod.ts";

const wait = !Deno.args.includes("--no-wait");
const color = Deno.stdout.isTerminal() && !Deno.env.get("NO_COLOR");
const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string) => (color ? `\x1b[2m${s}\x1b[0m` : s);
let stepNumber = 0;

function say(text = ""): void {
  // deno-lint-ignore no-console
  console.log(text);
}

async function step<T>(title: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  say(`${bold(`[${++stepNumber}]`)} ${title}…`);
  const result = await work();
  say(dim(`    done in ${((performance.now() - started) / 1000).toFixed(1)} s`));
  return result;
}

const cluster = await step(
  "Starting etcd and kube-apiserver with the Tekton, OpenShift and toolkit CRDs",
  () => startCluster({ crds: ["tekton", "openshift", "toolkit"] }),
);
try {
  const registry = await step("Starting the OCI registry (distribution)", () => startRegistry());
  try {
    const gpg = await step("Preparing gpg and skopeo with a throwaway keyring", () => startGpg());
    try {
      const key = await step(
        "Making an RSA-3072 signing key with gpg",
        () => gpg.generateKey({ type: "rsa", name: "Demo Signer", email: "signer@example.com" }),
      );
      const image = `${registry.host}/demo/app:1`;
      const digest = await step(
        `Pushing ${image} with skopeo copy --sign-by (simple signing, lookaside store)`,
        () => gpg.pushImage(image, { signBy: key.fingerprint }),
      );
      say();
      say(bold("The environment is up:"));
      say(`  kubeconfig   ${cluster.kubeconfigPath}`);
      say(`  API server   ${cluster.server}`);
      say(`  registry     ${registry.url}`);
      say(`  image        ${image}@${digest}`);
      say(`  signing key  ${key.fingerprint}`);
      say(`  signatures   ${gpg.sigstore}`);
      say();
      say(bold("Try:"));
      say(`  export KUBECONFIG=${cluster.kubeconfigPath}`);
      say("  deno task toolkit --help");
      say("  kubectl get crds");
      say(
        `  GNUPGHOME=${gpg.home} skopeo --registries.d ${gpg.registriesD} inspect --tls-verify=false docker://${image}`,
      );
      if (wait) {
        say();
        say(dim("Press Ctrl-C to stop and clean up."));
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          Deno.addSignalListener("SIGINT", stop);
          Deno.addSignalListener("SIGTERM", stop);
        });
        say();
      }
    } finally {
      await gpg.stop();
    }
  } finally {
    await registry.stop();
  }
} finally {
  await step("Stopping everything", () => cluster.stop());
}
