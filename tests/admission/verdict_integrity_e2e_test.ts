/**
 * What a verdict depends on, end to end through the real kube-apiserver, registry and gpg: the
 * state of the key (a revoked copy in a key Secret denies at once, and an unrevoked copy in
 * another namespace does not re-warm the verdict), both the tag and the digest of a reference
 * whose policy was chosen for its tag, and a denial that says when no signature store is
 * configured for a registry.
 */
import assert from "node:assert/strict";
import { e2eSkipReason } from "../env/mod.ts";
import { startWorld } from "./_world.ts";
import {
  CONTROLLER_NAMESPACE,
  dryRunPod,
  eventually,
  keySecretManifest,
  kubectlOk,
  podManifest,
} from "./_webhook.ts";

const signedBy = (keySecret: string) => ({
  simple: { requirements: [{ type: "signedBy", keySecret }] },
});

function policyManifest(
  kind: "ClusterImagePolicy" | "ImagePolicy",
  name: string,
  namespace: string | undefined,
  repositories: unknown[],
): string {
  return JSON.stringify({
    apiVersion: "toolkit.dev/v1",
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { repositories },
  });
}

Deno.test({
  name:
    "the webhook's verdicts follow key revocation at once, resolve a policy's tag and say when there is no signature store",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld({ registries: { unconfigured: {} } });
    const { cluster, registry, gpg } = world;
    const unconfigured = world.registries.unconfigured!;
    const rotating = await world.signer();
    const team = await world.signer();
    const reg = registry.host;

    const app = `${reg}/verdict/app:1`;
    await gpg.pushImage(app, { signBy: rotating.fingerprint, content: "app" });
    const unsigned = `${reg}/verdict/unsigned:1`;
    await gpg.pushImage(unsigned, { content: "unsigned" });
    const teamApp = `${reg}/teams/app:1`;
    await gpg.pushImage(teamApp, { signBy: team.fingerprint, content: "team" });
    const one = await gpg.pushImage(`${reg}/multi/app:1`, { content: "multi 1" });
    const two = await gpg.pushImage(`${reg}/multi/app:2`, { content: "multi 2" });
    // Signed into the lookaside, but the webhook is not told where that is for this registry.
    const elsewhere = `${unconfigured.host}/nostore/app:1`;
    await gpg.pushImage(elsewhere, { signBy: rotating.fingerprint, content: "elsewhere" });
    const teamRevoked = await gpg.revokeKey(team.fingerprint);

    await world.namespaces("dev", "team-a", "team-b");
    const apply = world.apply;
    await world.keySecret("rotating", rotating.publicKeyArmored);
    // The same key in two namespaces: revoked in team-a, not (yet) in team-b.
    await world.keySecret("team-key", teamRevoked, "team-a");
    await world.keySecret("team-key", team.publicKeyArmored, "team-b");
    await apply(policyManifest("ClusterImagePolicy", "default", undefined, [
      { name: `${reg}/verdict/*`, policy: signedBy("rotating") },
      { name: `${unconfigured.host}/*`, policy: signedBy("rotating") },
      // Only tag 1 of multi/app may run, without a signature.
      {
        name: `${reg}/multi/app:1`,
        policy: { simple: { requirements: [{ type: "insecureAcceptAnything" }] } },
      },
      { name: `${reg}/multi/app`, policy: { simple: { requirements: [{ type: "reject" }] } } },
    ]));
    for (const namespace of ["team-a", "team-b"]) {
      await apply(policyManifest("ImagePolicy", "teams", namespace, [
        { name: `${reg}/teams/*`, policy: signedBy("team-key") },
      ]));
    }

    // A registries.d that knows only the first registry.
    const registriesD = await Deno.makeTempDir({ prefix: "toolkit-verdict-registries-d-" });
    await Deno.writeTextFile(
      `${registriesD}/only-one.yaml`,
      `docker:\n  ${reg}:\n    lookaside: file://${gpg.sigstore}\n`,
    );
    world.use({ [Symbol.asyncDispose]: () => Deno.remove(registriesD, { recursive: true }) });
    await world.startWebhook({
      registriesD,
      // Far longer than any wait here: only the key's state can end a cached verdict.
      args: ["--cache-ttl", "1h"],
      probe: { namespace: "dev", image: unsigned },
    });

    const admitted = async (namespace: string, image: string) => {
      const r = await dryRunPod(cluster, "p", namespace, image);
      assert.equal(r.code, 0, r.stderr);
    };
    const denial = async (namespace: string, image: string) => {
      const r = await dryRunPod(cluster, "p", namespace, image);
      assert.notEqual(r.code, 0, `${image} must be denied in ${namespace}`);
      return r.stderr;
    };

    await t.step(
      "no signature store for a registry is said, not taken for no signature",
      async () => {
        assert.match(
          await denial("dev", elsewhere),
          new RegExp(
            `policy denied the request: A signature was required, but no signature store is configured for "${unconfigured.host}" \\(set storeURL or a registries\\.d lookaside\\) \\(container "app"`,
          ),
        );
        // A store that was consulted and had nothing: containers/image's message, as before.
        assert.match(
          await denial("dev", unsigned),
          /policy denied the request: A signature was required, but no signature exists \(container "app"/,
        );
      },
    );

    await t.step(
      "a tag and a digest must agree when the policy was chosen for the tag",
      async () => {
        const message = await denial("dev", `${reg}/multi/app:1@${two}`);
        assert.ok(
          message.includes(
            `The tag "1" of "${reg}/multi/app" resolves to ${one}, not to the digest ${two} of the reference (pattern "${reg}/multi/app:1" applies to the tag)`,
          ),
          message,
        );
        const pinned = await kubectlOk(
          cluster,
          ["create", "--dry-run=server", "-f", "-", "-o", "jsonpath={.spec.containers[0].image}"],
          podManifest("p", "dev", { containers: [`${reg}/multi/app:1@${one}`] }),
        );
        assert.equal(pinned, `${reg}/multi/app@${one}`);
        // The tag alone is resolved and pinned as before; the other tag is rejected.
        await admitted("dev", `${reg}/multi/app:1`);
        await denial("dev", `${reg}/multi/app:2`);
      },
    );

    await t.step(
      "an unrevoked copy of a key does not re-warm a revoked one's verdict",
      async () => {
        await admitted("team-b", teamApp);
        await admitted("team-b", teamApp); // now cached
        assert.match(
          await denial("team-a", teamApp),
          new RegExp(`signing key ${team.fingerprint} is revoked`),
        );
        await admitted("team-b", teamApp);
      },
    );

    await t.step(
      "revoking a key in its Secret denies the next review, not after the TTL",
      async () => {
        await admitted("dev", app);
        await admitted("dev", app); // now cached, for an hour
        await apply(
          keySecretManifest(
            "rotating",
            CONTROLLER_NAMESPACE,
            await gpg.revokeKey(rotating.fingerprint),
          ),
        );
        // Only the watch's delivery of the new Secret is waited for.
        await eventually("the revoked key to deny", async () => {
          const r = await dryRunPod(cluster, "p", "dev", app);
          return r.code !== 0 &&
            r.stderr.includes(`signing key ${rotating.fingerprint} is revoked`);
        });
        assert.match(await denial("dev", app), /is revoked/);
      },
    );
  },
});
