/**
 * The fixture of the in-process tests of the commands that judge a cluster's workloads by its
 * policies (`image-security audit`, `rollout`): two images in the real distribution registry,
 * `team/app:1` signed by a gpg key (ed25519) and `team/plain:1` unsigned, and the in-memory API
 * server of {@linkcode fakeCli} holding the given namespaces, the key as the Secret
 * `toolkit-system/signer` and the ClusterImagePolicy `default` requiring that key's signature of
 * `team/*`. Every part is stopped when it is disposed.
 *
 * @module
 */
import { startGpg, startRegistry } from "../env/mod.ts";
import { type FakeCli, fakeCli } from "./cli.ts";
import { type FakeClock, fakeClock } from "./clock.ts";
import { clusterImagePolicies, imagePolicies, NAMESPACES, SECRETS } from "../../lib/kube/mod.ts";

/** The started fixture. */
export interface SignedCluster extends AsyncDisposable {
  /** The CLI on the fake cluster (`cli.kube`). */
  readonly cli: FakeCli;
  /** The signed image's reference, and the unsigned one's. */
  readonly signed: string;
  readonly unsigned: string;
  /** The registry's host (`127.0.0.1:PORT`). */
  readonly registryHost: string;
  /** The flags a command needs to read the registry and the signatures. */
  readonly flags: readonly string[];
  /** The clock to run with: signatures are checked at its time, now (not 2026-01-01). */
  readonly clock: FakeClock;
}

/** Starts it; `namespaces` are seeded first, in this order. */
export async function startSignedCluster(options: {
  readonly namespaces: readonly {
    readonly name: string;
    readonly labels?: Record<string, string>;
  }[];
  readonly contexts?: readonly { readonly name: string; readonly namespace?: string }[];
}): Promise<SignedCluster> {
  const stack: AsyncDisposable[] = [];
  const dispose = async () => {
    for (const part of stack.reverse()) await part[Symbol.asyncDispose]();
  };
  try {
    const registry = await startRegistry();
    stack.push(registry);
    const gpg = await startGpg();
    stack.push(gpg);
    const key = await gpg.generateKey({ type: "ed25519" });
    const signed = `${registry.host}/team/app:1`;
    await gpg.pushImage(signed, { signBy: key.fingerprint });
    const unsigned = `${registry.host}/team/plain:1`;
    await gpg.pushImage(unsigned, { content: "plain" });

    const cli = await fakeCli({
      types: [clusterImagePolicies("toolkit.dev"), imagePolicies("toolkit.dev")],
      ...(options.contexts ? { contexts: options.contexts } : {}),
    });
    stack.push(cli);
    const kube = cli.kube;
    for (const { name, labels } of options.namespaces) {
      kube.seed(NAMESPACES, { metadata: labels ? { name, labels } : { name } });
    }
    kube.seed(SECRETS, {
      metadata: { name: "signer", namespace: "toolkit-system" },
      stringData: { key: key.publicKeyArmored },
    });
    kube.seed(clusterImagePolicies("toolkit.dev"), {
      apiVersion: "toolkit.dev/v1",
      kind: "ClusterImagePolicy",
      metadata: { name: "default" },
      spec: {
        repositories: [{
          name: `${registry.host}/team/*`,
          policy: { simple: { requirements: [{ type: "signedBy", keySecret: "signer" }] } },
        }],
      },
    });
    return {
      cli,
      signed,
      unsigned,
      registryHost: registry.host,
      flags: ["--insecure-registry", registry.host, "--registries.d", gpg.registriesD],
      clock: fakeClock(Date.now() + 60_000),
      [Symbol.asyncDispose]: dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
