/**
 * What every Pod create pays (issue #15), run by `deno task bench`: server-side dry-run Pod creates
 * through the real kube-apiserver of the test environment (with kube-controller-manager), with
 *
 * - no mutating webhook;
 * - a reference webhook on Go's standard library (built here with the Go toolchain) that only
 *   answers the digest-pinning patch;
 * - the same reference on a bare `Deno.serve`;
 * - toolkit, installed by `image-security enable --webhook-url` and run on this machine, with a
 *   ClusterImagePolicy requiring the image's signature (warm: the same signed image every time;
 *   cold: a new tag of it every time, so each create resolves the tag and verifies again).
 *
 * The variants are measured in interleaved rounds (three by default, `--rounds`); each round gives
 * the sequential latency of `--creates` creates (p50, p99) and the creates per second of 16
 * concurrent clients for `--seconds`. The table prints medians of the rounds, and "added p50" is
 * the variant's p50 minus the p50 without a webhook of the same round. `--toolkit-v8-flags ""` runs
 * toolkit's webhook without the shipped `--max-semi-space-size=4`, to weigh that trade-off.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { parse } from "yaml";
import {
  freePort,
  issueCert,
  LOOPBACK_SANS,
  type ManagedProcess,
  startCluster,
  startGpg,
  startProcess,
  startRegistry,
  waitFor,
  webhookReady,
} from "../env/mod.ts";
import { median } from "./_stats.ts";

// deno-lint-ignore no-console
const print = console.log;
const ROOT = new URL("../../", import.meta.url).pathname;
const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    creates: { type: "string", default: "200" },
    seconds: { type: "string", default: "5" },
    clients: { type: "string", default: "16" },
    // The webhook's V8 flags (the shipped default keeps the young generation small).
    "toolkit-v8-flags": { type: "string", default: "--max-semi-space-size=4" },
  },
});
const ROUNDS = Number(values.rounds);
const CREATES = Number(values.creates);
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);

const GO_WEBHOOK = `package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
)

type review struct {
	APIVersion string          \`json:"apiVersion"\`
	Kind       string          \`json:"kind"\`
	Request    json.RawMessage \`json:"request"\`
}

func main() {
	patch := base64.StdEncoding.EncodeToString([]byte(os.Getenv("PATCH")))
	http.HandleFunc("/admit", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct {
			Request struct {
				UID string \`json:"uid"\`
			} \`json:"request"\`
		}
		json.Unmarshal(body, &in)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, \`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"\`+in.Request.UID+\`","allowed":true,"patchType":"JSONPatch","patch":"\`+patch+\`"}}\`)
	})
	http.ListenAndServeTLS("127.0.0.1:"+os.Getenv("PORT"), os.Getenv("CERT"), os.Getenv("KEY"), nil)
}
`;

const DENO_WEBHOOK = `
const patch = btoa(Deno.env.get("PATCH"));
Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT")),
  cert: Deno.readTextFileSync(Deno.env.get("CERT")),
  key: Deno.readTextFileSync(Deno.env.get("KEY")),
  onListen: () => {},
}, async (req) => {
  const review = await req.json();
  return Response.json({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid: review.request.uid, allowed: true, patchType: "JSONPatch", patch },
  });
});
`;

await using cluster = await startCluster();
await using registry = await startRegistry();
await using gpg = await startGpg();
const work = await Deno.makeTempDir({ prefix: "toolkit-pod-bench-" });
const kubectl = async (args: string[], stdin?: string) => {
  const r = await cluster.kubectl(args, stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
};
const processes: ManagedProcess[] = [];
try {
  // A signed image, and tags of it for the cold runs.
  const key = await gpg.generateKey({ type: "ed25519", name: "bench" });
  const image = `${registry.host}/bench/app:1`;
  const digest = await gpg.pushImage(image, { signBy: key.fingerprint, content: "bench\n" });
  const pinned = `${registry.host}/bench/app@${digest}`;
  const patch = JSON.stringify([{
    op: "replace",
    path: "/spec/containers/0/image",
    value: pinned,
  }]);
  const coldTags: string[] = [];
  for (let i = 0; i < Math.min(CREATES, 60); i++) {
    const tag = `${registry.host}/bench/app:cold-${i}`;
    await gpg.run("skopeo", [
      "copy",
      "--dest-tls-verify=false",
      "--src-tls-verify=false",
      `docker://${image}`,
      `docker://${tag}`,
    ]);
    coldTags.push(tag);
  }

  // Serving certificates of the cluster's CA for the references.
  const serving = await issueCert(work, cluster.ca, {
    name: "ref",
    cn: "ref",
    sans: LOOPBACK_SANS,
  });
  const caBundle = btoa(cluster.caCertPem);
  const goPort = freePort();
  const denoPort = freePort();
  await Deno.writeTextFile(`${work}/main.go`, GO_WEBHOOK);
  await Deno.writeTextFile(`${work}/go.mod`, "module refwebhook\n\ngo 1.22\n");
  const build = await new Deno.Command("go", {
    args: ["build", "-o", "ref-webhook", "."],
    cwd: work,
    env: { CGO_ENABLED: "0", GOTOOLCHAIN: "local" },
  }).output();
  if (!build.success) throw new Error(new TextDecoder().decode(build.stderr));
  const refEnv = (port: number) => ({
    PATCH: patch,
    PORT: String(port),
    CERT: serving.certFile,
    KEY: serving.keyFile,
  });
  processes.push(
    await startProcess(`${work}/ref-webhook`, [], {
      env: refEnv(goPort),
      logFile: `${work}/go.log`,
    }),
  );
  await Deno.writeTextFile(`${work}/deno_webhook.ts`, DENO_WEBHOOK);
  processes.push(
    await startProcess(Deno.execPath(), ["run", "-A", `${work}/deno_webhook.ts`], {
      env: refEnv(denoPort),
      logFile: `${work}/deno.log`,
    }),
  );

  // toolkit, installed by enable --webhook-url, running here.
  const toolkitPort = freePort();
  const env = { KUBECONFIG: cluster.kubeconfigPath, NO_COLOR: "1" };
  const toolkit = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}cli/main.ts`, ...args],
      env,
      cwd: work,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`toolkit ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    }
  };
  await toolkit(
    "image-security",
    "enable",
    "--webhook-url",
    `https://127.0.0.1:${toolkitPort}/admit`,
    "--tls-dir",
    "tls",
    "--replicas",
    "1",
    "--no-wait",
  );
  await Deno.writeTextFile(`${work}/bench.pub.asc`, key.publicKeyArmored);
  await toolkit(
    "image-security",
    "key-secret",
    "bench-key",
    "-n",
    "toolkit-system",
    "--key",
    "bench.pub.asc",
  );
  await kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "toolkit.dev/v1",
      kind: "ClusterImagePolicy",
      metadata: { name: "bench" },
      spec: {
        repositories: [{
          name: `${registry.host}/bench/*`,
          policy: {
            simple: {
              requirements: [{
                type: "signedBy",
                keySecret: "bench-key",
                signedIdentity: { type: "matchRepository" },
              }],
            },
          },
        }],
      },
    }),
  );
  processes.push(
    await startProcess(Deno.execPath(), [
      "run",
      "--unstable-net",
      ...(values["toolkit-v8-flags"] ? [`--v8-flags=${values["toolkit-v8-flags"]}`] : []),
      "--allow-net",
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      `${ROOT}webhook/main.ts`,
      "--host",
      "127.0.0.1",
      "--port",
      String(toolkitPort),
      "--tls-cert-file",
      `${work}/tls/tls.crt`,
      "--tls-key-file",
      `${work}/tls/tls.key`,
      "--insecure-registry",
      registry.host,
      "--registries.d",
      gpg.registriesD,
    ], { env, logFile: `${work}/toolkit.log`, cwd: work }),
  );
  const toolkitCa = await Deno.readTextFile(`${work}/tls/ca.crt`);
  await waitFor("the toolkit webhook", () => webhookReady(toolkitPort, toolkitCa), {
    process: processes.at(-1)!,
  });
  const toolkitHook = parse(
    await kubectl(["get", "mutatingwebhookconfiguration", "toolkit-image-security", "-o", "yaml"]),
  ) as Record<string, unknown>;
  for (
    const field of ["resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"]
  ) {
    delete (toolkitHook.metadata as Record<string, unknown>)[field];
  }
  await kubectl(["create", "namespace", "bench"]);
  await waitFor(
    "the bench namespace's service account",
    async () =>
      (await cluster.kubectl(["get", "serviceaccount", "default", "-n", "bench"])).code === 0,
  );

  const reference = (name: string, port: number) => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: `bench-${name}` },
    webhooks: [{
      name: `${name}.bench.toolkit.dev`,
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      failurePolicy: "Fail",
      timeoutSeconds: 10,
      clientConfig: { url: `https://127.0.0.1:${port}/admit`, caBundle },
      rules: [{
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["pods"],
      }],
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "bench" } },
    }],
  });
  const variants: { name: string; config?: unknown; image: () => string }[] = [
    { name: "no webhook", image: () => image },
    {
      name: "Go standard library, patch only",
      config: reference("go", goPort),
      image: () => image,
    },
    {
      name: "bare Deno.serve, patch only",
      config: reference("deno", denoPort),
      image: () => image,
    },
    { name: "toolkit (warm verdict cache)", config: toolkitHook, image: () => image },
  ];

  // Creates go to the API server directly, with the admin's client certificate.
  const user = (parse(await Deno.readTextFile(cluster.kubeconfigPath)) as {
    users: { user: Record<string, string> }[];
  }).users[0]!.user;
  const client = Deno.createHttpClient({
    caCerts: [cluster.caCertPem],
    cert: atob(user["client-certificate-data"]!),
    key: atob(user["client-key-data"]!),
  });
  let serial = 0;
  const create = async (img: string): Promise<number> => {
    const body = JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `p-${serial++}`, namespace: "bench" },
      spec: { containers: [{ name: "app", image: img }] },
    });
    const start = performance.now();
    const r = await fetch(`${cluster.server}/api/v1/namespaces/bench/pods?dryRun=All`, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/json" },
      client,
    });
    const text = await r.text();
    const ms = performance.now() - start;
    if (r.status !== 201) throw new Error(`create: ${r.status} ${text.slice(0, 300)}`);
    return ms;
  };
  const use = async (config: unknown | undefined) => {
    await cluster.kubectl(["delete", "mutatingwebhookconfiguration", "--all", "--wait=true"]);
    if (config) await kubectl(["apply", "-f", "-"], JSON.stringify(config));
    // The API server picks configurations up asynchronously: wait until a create is patched.
    await waitFor("the webhook configuration to take effect", async () => {
      const r = await fetch(`${cluster.server}/api/v1/namespaces/bench/pods?dryRun=All`, {
        method: "POST",
        client,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "probe", namespace: "bench" },
          spec: { containers: [{ name: "app", image }] },
        }),
      });
      const pod = await r.json() as { spec?: { containers?: { image: string }[] } };
      return (pod.spec?.containers?.[0]?.image === pinned) === Boolean(config);
    }, { timeoutMs: 30_000 });
  };
  const sequential = async (next: () => string, n: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push(await create(next()));
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(n * 0.5)]!, p99: times[Math.min(n - 1, Math.floor(n * 0.99))]! };
  };
  const throughput = async (next: () => string) => {
    const end = performance.now() + SECONDS * 1000;
    let done = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        await create(next());
        done++;
      }
    }));
    return done / SECONDS;
  };

  const results = new Map<
    string,
    { p50: number[]; p99: number[]; rate: number[]; added: number[] }
  >();
  const cold = { p50: [] as number[], added: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    let baseline = 0;
    for (const v of variants) {
      await use(v.config);
      await sequential(v.image, 20); // warm-up: connections and caches
      const s = await sequential(v.image, CREATES);
      const rate = await throughput(v.image);
      if (!v.config) baseline = s.p50;
      const r = results.get(v.name) ?? { p50: [], p99: [], rate: [], added: [] };
      r.p50.push(s.p50);
      r.p99.push(s.p99);
      r.rate.push(rate);
      r.added.push(s.p50 - baseline);
      results.set(v.name, r);
      if (v.name.startsWith("toolkit")) {
        let i = 0;
        const c = await sequential(
          () => coldTags[(round * 7 + i++) % coldTags.length]!,
          Math.min(coldTags.length, 30),
        );
        cold.p50.push(c.p50);
        cold.added.push(c.p50 - baseline);
      }
    }
  }
  client.close();
  const none = median(results.get("no webhook")!.rate);
  print(
    `\nPod creates through the kube-apiserver (server-side dry run), medians of ${ROUNDS} interleaved rounds\n`,
  );
  print(
    `| webhook | p50 | p99 | added p50 (sequential) | creates/s at ${CLIENTS} clients | vs no webhook |`,
  );
  print("|---|---|---|---|---|---|");
  for (const [name, r] of results) {
    const rate = median(r.rate);
    print(
      `| ${name} | ${median(r.p50).toFixed(2)} ms | ${median(r.p99).toFixed(2)} ms | ${
        name === "no webhook" ? "–" : `+${median(r.added).toFixed(2)} ms`
      } | ${rate.toFixed(0)} | ${Math.round((rate / none) * 100)} % |`,
    );
  }
  print(
    `| toolkit (cold: a new tag each create) | ${median(cold.p50).toFixed(2)} ms | | +${
      median(cold.added).toFixed(2)
    } ms | | |`,
  );
} finally {
  for (const p of processes.reverse()) await p.stop().catch(() => {});
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
