/**
 * The admission webhook under faults, end to end with real processes: kube-apiserver stopped
 * and started again (the watches resume, changes made meanwhile apply), a webhook restarted
 * while it is down (not ready, denies until it has listed), the registry stopped, slow, and
 * answering 500 and 429 (through a loopback proxy in front of the real registry), the
 * lookaside signature store stopped, the serving certificate rotated under a loop of reviews,
 * and a kubeconfig that asks to skip TLS verification.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, type TestCluster, waitFor } from "../env/mod.ts";
import { serve, type TestServer } from "../fakes/loopback_server.ts";
import { serveDirectory } from "../fakes/static_file_server.ts";
import {
  CONTROLLER_NAMESPACE,
  dryRunPod,
  eventually,
  kubectlOk,
  type TestWebhook,
  WEBHOOK_NAME,
} from "./_webhook.ts";
import { startWorld } from "./_world.ts";

/** The time budget of one review in these tests (the API server waits 10 s for the webhook). */
const BUDGET = "3s";

/** What the registry proxy does with each request. */
type ProxyMode =
  | { readonly kind: "pass" }
  | { readonly kind: "slow"; readonly delayMs: number }
  | { readonly kind: "status"; readonly status: number; readonly headers?: HeadersInit };

/** A loopback proxy in front of a real registry whose misbehaviour the test switches. */
interface RegistryProxy extends AsyncDisposable {
  readonly host: string;
  mode: ProxyMode;
}

function startRegistryProxy(upstream: string): RegistryProxy {
  const state: { mode: ProxyMode } = { mode: { kind: "pass" } };
  const server: TestServer = serve(async (request) => {
    const mode = state.mode;
    if (mode.kind === "status") {
      await request.body?.cancel();
      return new Response(`{"errors":[{"code":"UNAVAILABLE","message":"injected"}]}`, {
        status: mode.status,
        headers: { "content-type": "application/json", ...mode.headers },
      });
    }
    if (mode.kind === "slow") {
      // Answers after the delay, or gives up when the client goes away.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, mode.delayMs);
        request.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
      if (request.signal.aborted) return new Response(null, { status: 499 });
    }
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    const answer = await fetch(`http://${upstream}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
      signal: request.signal,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return {
    host: server.host,
    get mode() {
      return state.mode;
    },
    set mode(mode: ProxyMode) {
      state.mode = mode;
    },
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

function clusterPolicy(name: string, repositories: unknown[]): string {
  return JSON.stringify({
    apiVersion: "toolkit.dev/v1",
    kind: "ClusterImagePolicy",
    metadata: { name },
    spec: { repositories },
  });
}

const signedBy = (keySecret: string) => ({
  simple: { requirements: [{ type: "signedBy", keySecret }] },
});

/** The kubeconfig of `cluster` with its CA replaced by `insecure-skip-tls-verify: true`. */
async function insecureKubeconfig(cluster: TestCluster): Promise<string> {
  const text = await Deno.readTextFile(cluster.kubeconfigPath);
  const insecure = text.replace(
    /^(\s*)certificate-authority-data: .*$/m,
    "$1insecure-skip-tls-verify: true",
  );
  assert.notEqual(insecure, text);
  const path = `${cluster.dir}/insecure.kubeconfig`;
  await Deno.writeTextFile(path, insecure, { mode: 0o600 });
  return path;
}

/** Waits until the webhook process has started serving (ready or not). */
async function listening(webhook: TestWebhook): Promise<void> {
  await waitFor(
    "the webhook to listen",
    async () => (await webhook.logLines()).some((l) => l.msg === "started"),
    { process: webhook.process, timeoutMs: 60_000 },
  );
}

Deno.test({
  name: "the webhook fails closed and recovers under faults of its dependencies",
  ignore: e2eSkipReason() !== undefined,
  fn: async (t) => {
    await using world = await startWorld({ registries: { doomed: {} } });
    const { cluster, registry, gpg } = world;
    const doomed = world.registries.doomed!;
    const proxy = world.use(startRegistryProxy(registry.host));
    const store = world.use(serveDirectory(gpg.sigstore));
    const signer = await world.signer();

    // The webhook reads signatures over HTTP from the lookaside directory skopeo writes into.
    const registriesD = `${cluster.dir}/webhook-registries.d`;
    await Deno.mkdir(registriesD);
    await Deno.writeTextFile(
      `${registriesD}/default.yaml`,
      `default-docker:\n  lookaside: ${store.url}\n`,
    );

    const reg = registry.host;
    const viaProxy = (name: string) => `${proxy.host}/e2e/${name}:1`;
    const images = {
      app: viaProxy("app"),
      slow: viaProxy("slow"),
      failing: viaProxy("failing"),
      limited: viaProxy("limited"),
      unsigned: viaProxy("unsigned"),
      noStore: viaProxy("nostore"),
      legacy: `${reg}/legacy/tool:1`,
      keyed: `${reg}/keyed/app:1`,
      gone: `${doomed.host}/e2e/gone:1`,
    };
    for (const [name, image] of Object.entries(images)) {
      await gpg.pushImage(image, {
        content: name,
        ...(name === "unsigned" || name === "legacy" ? {} : { signBy: signer.fingerprint }),
      });
    }

    // "unvisited" is never reviewed before the API server stops: its ServiceAccount is not cached.
    await world.namespaces("dev", "unvisited");
    for (const secret of ["signer", "rotating"]) {
      await world.keySecret(secret, signer.publicKeyArmored);
    }
    await kubectlOk(
      cluster,
      ["apply", "-f", "-"],
      clusterPolicy("default", [
        { name: `${proxy.host}/e2e/*`, policy: signedBy("signer") },
        { name: `${doomed.host}/e2e/*`, policy: signedBy("signer") },
        { name: `${reg}/keyed/*`, policy: signedBy("rotating") },
      ]),
    );
    await kubectlOk(
      cluster,
      ["apply", "-f", "-"],
      clusterPolicy("legacy", [{ name: `${reg}/legacy/*`, policy: {} }]),
    );

    // The same options start it again while kube-apiserver is down.
    const webhookOptions = {
      insecureRegistries: [reg, proxy.host, doomed.host],
      registriesD,
      args: ["--budget", BUDGET, "--no-events"],
    };
    const webhook = await world.startWebhook({
      ...webhookOptions,
      probe: { namespace: "dev", image: images.unsigned },
    });
    /** The webhook's denial as the API server reports it (not a timeout of the call). */
    const denial = async (name: string, image: string): Promise<string> => {
      const r = await dryRunPod(cluster, name, "dev", image);
      assert.notEqual(r.code, 0, `${image} was admitted`);
      assert.match(r.stderr, new RegExp(`admission webhook "${WEBHOOK_NAME}" denied the request`));
      return r.stderr;
    };

    await t.step("with every dependency up, signed images are admitted", async () => {
      for (const image of [images.app, images.legacy, images.keyed]) {
        const r = await dryRunPod(cluster, "healthy", "dev", image);
        assert.equal(r.code, 0, r.stderr);
      }
    });

    await t.step(
      "kube-apiserver stopped: reviews are answered from the last listed state; a policy deleted and a key Secret revoked meanwhile apply once it is back",
      async () => {
        await cluster.stopApiServer();
        try {
          // The API server cannot call anyone now: ask the webhook directly.
          assert.equal(await webhook.isReady(), true);
          assert.equal((await webhook.reviewPod("outage", "dev", images.legacy)).allowed, true);
          assert.equal((await webhook.reviewPod("outage", "dev", images.keyed)).allowed, true);
          // What is read per review (pull credentials, through the ServiceAccount) cannot be.
          const unread = await webhook.reviewPod("outage", "unvisited", images.keyed);
          assert.equal(unread.allowed, false);
          assert.match(unread.message, /Cannot read ServiceAccount "unvisited\/default"/);
          // What another API server replica would do during the outage.
          assert.equal(
            await cluster.deleteStored("/registry/toolkit.dev/clusterimagepolicies/legacy"),
            1,
          );
          assert.equal(
            await cluster.deleteStored(`/registry/secrets/${CONTROLLER_NAMESPACE}/rotating`),
            1,
          );
          assert.equal((await webhook.reviewPod("outage", "dev", images.legacy)).allowed, true);
        } finally {
          await cluster.startApiServer();
        }
        await eventually("the webhook to see the deletions", async () => {
          const [legacy, keyed] = await Promise.all([
            webhook.reviewPod("after", "dev", images.legacy),
            webhook.reviewPod("after", "dev", images.keyed),
          ]);
          return !legacy.allowed && !keyed.allowed;
        }, 90_000);
        assert.match(await denial("legacy", images.legacy), /no ClusterImagePolicy matches/);
        assert.match(
          await denial("keyed", images.keyed),
          new RegExp(`Secret "${CONTROLLER_NAMESPACE}/rotating"`),
        );
        // The watches resumed: a change through the API server reaches the webhook again.
        await kubectlOk(
          cluster,
          ["apply", "-f", "-"],
          clusterPolicy("legacy", [{ name: `${reg}/legacy/*`, policy: {} }]),
        );
        await eventually(
          "the recreated policy to apply",
          async () => (await dryRunPod(cluster, "again", "dev", images.legacy)).code === 0,
        );
        const warnings = (await webhook.logLines()).filter((l) => l.level === "warn");
        assert.ok(warnings.length > 0, "the failed watches are logged");
      },
    );

    await t.step(
      "a webhook started while kube-apiserver is down is not ready and denies every review until it has listed the policies",
      async () => {
        await cluster.stopApiServer();
        await using restarted = await world.startWebhook({
          ...webhookOptions,
          waitUntilReady: false,
        });
        try {
          await listening(restarted);
          assert.equal(await restarted.isReady(), false);
          for (const image of [images.app, images.legacy]) {
            const answer = await restarted.reviewPod("early", "dev", image);
            assert.equal(answer.allowed, false);
            assert.match(answer.message, /the policies have not been loaded yet/);
          }
        } finally {
          await cluster.startApiServer();
        }
        await eventually("the restarted webhook to be ready", () => restarted.isReady(), 90_000);
        assert.equal((await restarted.reviewPod("late", "dev", images.app)).allowed, true);
      },
    );

    await t.step("the registry stopped: denied with the reason", async () => {
      await doomed.process.stop();
      const message = await denial("gone", images.gone);
      assert.match(
        message,
        new RegExp(`Cannot read manifest of "${images.gone}": .*Connection refused`),
      );
    });

    await t.step(
      "the registry answering after the budget: denied when the budget runs out",
      async () => {
        proxy.mode = { kind: "slow", delayMs: 20_000 };
        try {
          const message = await denial("slow", images.slow);
          // The review's deadline or the request's own timeout (the budget too) ends the wait.
          assert.match(
            message,
            /Cannot finish verification within the time budget of 3s|no answer within 3000 ms/,
          );
        } finally {
          proxy.mode = { kind: "pass" };
        }
      },
    );

    await t.step("the registry answering 500: denied with the status", async () => {
      proxy.mode = { kind: "status", status: 500 };
      try {
        const message = await denial("failing", images.failing);
        assert.match(message, /Cannot read manifest of .*: HTTP 500 Internal Server Error/);
        assert.doesNotMatch(message, /time budget/);
      } finally {
        proxy.mode = { kind: "pass" };
      }
    });

    await t.step(
      "the registry answering 429 with a Retry-After beyond the budget: denied at once with the status",
      async () => {
        proxy.mode = { kind: "status", status: 429, headers: { "retry-after": "3600" } };
        try {
          const message = await denial("limited", images.limited);
          assert.match(message, /Cannot read manifest of .*: HTTP 429 Too Many Requests/);
          assert.doesNotMatch(message, /time budget/);
        } finally {
          proxy.mode = { kind: "pass" };
        }
      },
    );

    await t.step("the signature store stopped: denied with the reason", async () => {
      await store.stop();
      const message = await denial("nostore", images.noStore);
      assert.ok(
        message.includes(`Cannot read signature "${store.url}/e2e/nostore@sha256=`),
        message,
      );
      assert.match(message, /fetch failed/);
    });

    await t.step(
      "the serving certificate renewed under a loop of reviews through the API server: none fails",
      async () => {
        const reloads = async () =>
          (await webhook.logLines()).filter((l) => l.msg === "certificate reloaded").length;
        const before = await reloads();
        let renewed = false;
        let answered = 0;
        const failures: string[] = [];
        const worker = async (id: number) => {
          // The loop goes on for 10 reviews per worker after the new certificate is served.
          let after = 0;
          while (!renewed || after++ < 10) {
            const r = await dryRunPod(cluster, `loop-${id}`, "dev", images.app);
            if (r.code === 0) answered++;
            else failures.push(r.stderr.trim());
          }
        };
        const loop = Promise.all([0, 1, 2].map(worker));
        try {
          await webhook.rotateCertificate({ keepCa: true });
          await eventually("the webhook to serve the new certificate", async () => {
            return (await reloads()) > before;
          });
        } finally {
          renewed = true;
          await loop;
        }
        assert.deepEqual(failures, []);
        assert.ok(answered >= 30, `${answered} reviews answered`);
      },
    );

    await t.step(
      "insecure-skip-tls-verify in the webhook's kubeconfig is refused at startup with the field and the fix",
      async () => {
        const kubeconfig = await insecureKubeconfig(cluster);
        await using refused = await world.startWebhook({
          ...webhookOptions,
          kubeconfig,
          waitUntilReady: false,
        });
        let exited = false;
        void refused.process.status.then(() => (exited = true));
        await waitFor("the webhook to exit", () => Promise.resolve(exited), { timeoutMs: 60_000 });
        assert.equal((await refused.process.status).code, 1);
        const errors = (await refused.logLines()).filter((l) => l.level === "error");
        assert.equal(errors.length, 1);
        assert.match(String(errors[0]!.msg), /sets insecure-skip-tls-verify/);
        assert.match(String(errors[0]!.msg), /certificate-authority-data/);
      },
    );
  },
});
