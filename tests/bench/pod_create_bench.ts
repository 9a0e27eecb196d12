/**
 * What every Pod create pays (issue #15), run by `deno task bench`: server-side dry-run creates
 * through the real kube-apiserver of the test environment (with kube-controller-manager), with
 *
 * - no mutating webhook;
 * - a reference webhook on Go's standard library (built here with the Go toolchain) that only
 *   answers the digest-pinning patch;
 * - the same reference on a bare `Deno.serve`;
 * - toolkit, installed by `image-security enable --webhook-url` and run on this machine, with a
 *   ClusterImagePolicy requiring the images' signatures (warm: the same signed images every time;
 *   cold: a new tag of the signed image every create, so each create resolves the tag and verifies
 *   the signature again);
 * - and, to show where toolkit's time goes, two steps between the bare `Deno.serve` and toolkit:
 *   the bare reference run with the webhook's runtime flags and its one-write answers
 *   (`webhook/response_body.ts`, which only changes answers of 1 KiB or more), and toolkit's transport
 *   (`_transport_webhook.ts`: its listener, handler, log and metrics) with a fixed decision.
 *
 * Every webhook is registered at once, each for its own namespace, so a create goes through
 * exactly one of them (or none), and the sequential creates of all variants are interleaved one
 * by one: the machine's drift touches every variant alike. A one-container Pod and a Deployment of
 * ten containers (ten signed images) are measured. Each of `--rounds` rounds gives each variant's
 * sequential p50/p99 (`--creates` Pods, `--deployments` Deployments) and its creates per second
 * with `--clients` concurrent clients for `--seconds`, with the webhook process's CPU time per
 * review (user + system, from `/proc`) in that phase; the tables print medians of the rounds, and
 * "added p50" is a variant's p50 minus the p50 without a webhook.
 *
 * `--toolkit-v8-flags ""` runs toolkit's webhook without the shipped V8 flags, to weigh them.
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
/** The V8 flags `deno task webhook`, the container image and the chart run the webhook with. */
const WEBHOOK_V8_FLAGS = "--max-semi-space-size=4";
const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    creates: { type: "string", default: "200" },
    deployments: { type: "string", default: "60" },
    seconds: { type: "string", default: "5" },
    clients: { type: "string", default: "16" },
    "toolkit-v8-flags": { type: "string", default: WEBHOOK_V8_FLAGS },
  },
});
const ROUNDS = Number(values.rounds);
const CREATES = Number(values.creates);
const DEPLOYMENTS = Number(values.deployments);
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
const CONTAINERS = 10;

const GO_WEBHOOK = `package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

func main() {
	patches := map[string]string{
		"Pod":        base64.StdEncoding.EncodeToString([]byte(os.Getenv("PATCH_POD"))),
		"Deployment": base64.StdEncoding.EncodeToString([]byte(os.Getenv("PATCH_DEPLOYMENT"))),
	}
	var once sync.Once
	http.HandleFunc("/admit", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { fmt.Println("protocol", r.Proto) })
		body, _ := io.ReadAll(r.Body)
		var in struct {
			Request struct {
				UID  string \`json:"uid"\`
				Kind struct {
					Kind string \`json:"kind"\`
				} \`json:"kind"\`
			} \`json:"request"\`
		}
		json.Unmarshal(body, &in)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, \`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"\`+in.Request.UID+\`","allowed":true,"patchType":"JSONPatch","patch":"\`+patches[in.Request.Kind.Kind]+\`"}}\`)
	})
	http.ListenAndServeTLS("127.0.0.1:"+os.Getenv("PORT"), os.Getenv("CERT"), os.Getenv("KEY"), nil)
}
`;

const DENO_WEBHOOK = `
// With ONE_WRITE (the path of webhook/response_body.ts), answers leave as toolkit's do.
const oneWrite = Deno.env.get("ONE_WRITE")
  ? (await import(Deno.env.get("ONE_WRITE"))).oneWriteResponse
  : undefined;
const patches = {
  Pod: btoa(Deno.env.get("PATCH_POD")),
  Deployment: btoa(Deno.env.get("PATCH_DEPLOYMENT")),
};
Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT")),
  cert: Deno.readTextFileSync(Deno.env.get("CERT")),
  key: Deno.readTextFileSync(Deno.env.get("KEY")),
  onListen: () => {},
}, async (req) => {
  const review = await req.json();
  const answer = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: {
      uid: review.request.uid,
      allowed: true,
      patchType: "JSONPatch",
      patch: patches[review.request.kind.kind],
    },
  };
  return oneWrite
    ? oneWrite(JSON.stringify(answer), { contentType: "application/json" })
    : Response.json(answer);
});
`;

/** CPU seconds (user + system, every thread) a process has used, from `/proc`. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of proc(5), counted after the command name: utime, stime (clock ticks).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

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
  // Signed images: one for the Pods (and, tagged anew for every cold create, by a manifest PUT),
  // and one per container of the Deployment.
  const key = await gpg.generateKey({ type: "ed25519", name: "bench" });
  const image = `${registry.host}/bench/app:1`;
  const digest = await gpg.pushImage(image, { signBy: key.fingerprint, content: "bench\n" });
  const pinned = `${registry.host}/bench/app@${digest}`;
  const serviceImages: string[] = [];
  const servicePinned: string[] = [];
  for (let i = 0; i < CONTAINERS; i++) {
    const name = `${registry.host}/bench/service-${i}`;
    const d = await gpg.pushImage(`${name}:1`, {
      signBy: key.fingerprint,
      content: `service ${i}\n`,
    });
    serviceImages.push(`${name}:1`);
    servicePinned.push(`${name}@${d}`);
  }
  const manifestType = "application/vnd.oci.image.manifest.v1+json";
  const manifest = await (await fetch(`${registry.url}/v2/bench/app/manifests/1`, {
    headers: { accept: `${manifestType}, application/vnd.docker.distribution.manifest.v2+json` },
  })).arrayBuffer();
  const coldTag = async (n: number) => {
    const r = await fetch(`${registry.url}/v2/bench/app/manifests/cold-${n}`, {
      method: "PUT",
      body: manifest,
      headers: { "content-type": manifestType },
    });
    await r.body?.cancel();
    if (!r.ok) throw new Error(`tagging cold-${n}: ${r.status}`);
    return `${registry.host}/bench/app:cold-${n}`;
  };
  const coldTags: string[] = [];
  for (let i = 0; i < ROUNDS * CREATES + 20; i++) coldTags.push(await coldTag(i));

  const patchPod = JSON.stringify([{
    op: "replace",
    path: "/spec/containers/0/image",
    value: pinned,
  }]);
  const patchDeployment = JSON.stringify(servicePinned.map((value, i) => ({
    op: "replace",
    path: `/spec/template/spec/containers/${i}/image`,
    value,
  })));

  // The reference webhooks, with a serving certificate of the cluster's CA.
  const serving = await issueCert(work, cluster.ca, {
    name: "ref",
    cn: "ref",
    sans: LOOPBACK_SANS,
  });
  const caBundle = btoa(cluster.caCertPem);
  const refEnv = (port: number) => ({
    PATCH_POD: patchPod,
    PATCH_DEPLOYMENT: patchDeployment,
    PORT: String(port),
    CERT: serving.certFile,
    KEY: serving.keyFile,
  });
  await Deno.writeTextFile(`${work}/main.go`, GO_WEBHOOK);
  await Deno.writeTextFile(`${work}/go.mod`, "module refwebhook\n\ngo 1.22\n");
  const build = await new Deno.Command("go", {
    args: ["build", "-o", "ref-webhook", "."],
    cwd: work,
    env: { CGO_ENABLED: "0", GOTOOLCHAIN: "local" },
  }).output();
  if (!build.success) throw new Error(new TextDecoder().decode(build.stderr));
  await Deno.writeTextFile(`${work}/deno_webhook.ts`, DENO_WEBHOOK);
  const webhookFlags = (v8: string) => ["--unstable-net", ...(v8 ? [`--v8-flags=${v8}`] : [])];
  const references: {
    slug: string;
    command: string;
    args: string[];
    env?: Record<string, string>;
  }[] = [
    { slug: "go", command: `${work}/ref-webhook`, args: [] },
    { slug: "deno", command: Deno.execPath(), args: ["run", "-A", `${work}/deno_webhook.ts`] },
    {
      slug: "deno-flags",
      command: Deno.execPath(),
      args: ["run", "-A", ...webhookFlags(WEBHOOK_V8_FLAGS), `${work}/deno_webhook.ts`],
      env: { ONE_WRITE: `${ROOT}webhook/response_body.ts` },
    },
    {
      slug: "transport",
      command: Deno.execPath(),
      args: [
        "run",
        "-A",
        ...webhookFlags(WEBHOOK_V8_FLAGS),
        `${ROOT}tests/bench/_transport_webhook.ts`,
      ],
    },
  ];
  const pids: Record<string, number> = {};
  const ports: Record<string, number> = {};
  for (const ref of references) {
    ports[ref.slug] = freePort();
    const p = await startProcess(ref.command, ref.args, {
      env: { ...refEnv(ports[ref.slug]!), ...ref.env },
      logFile: `${work}/${ref.slug}.log`,
    });
    processes.push(p);
    pids[ref.slug] = p.pid;
  }

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
    // The webhook is started next, with the files written to tls/.
    "--no-verify-url",
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
  const toolkitProcess = await startProcess(Deno.execPath(), [
    "run",
    ...webhookFlags(values["toolkit-v8-flags"]),
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
  ], { env, logFile: `${work}/toolkit.log`, cwd: work });
  processes.push(toolkitProcess);
  pids.toolkit = toolkitProcess.pid;
  const toolkitCa = await Deno.readTextFile(`${work}/tls/ca.crt`);
  await waitFor("the toolkit webhook", () => webhookReady(toolkitPort, toolkitCa), {
    process: toolkitProcess,
  });

  // One namespace per variant; each webhook sees only its own.
  const namespaceOf = (slug: string) => `bench-${slug}`;
  const onlyNamespace = (slug: string) => ({
    key: "kubernetes.io/metadata.name",
    operator: "In",
    values: [namespaceOf(slug)],
  });
  // toolkit's configuration as enable made it, limited to its namespace.
  const toolkitHook = parse(
    await kubectl(["get", "mutatingwebhookconfiguration", "toolkit-image-security", "-o", "yaml"]),
  ) as {
    metadata: Record<string, unknown>;
    webhooks: { namespaceSelector: { matchExpressions: unknown[] } }[];
  };
  for (
    const field of ["resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"]
  ) {
    delete toolkitHook.metadata[field];
  }
  toolkitHook.webhooks[0]!.namespaceSelector.matchExpressions.push(onlyNamespace("toolkit"));
  await kubectl(["apply", "-f", "-"], JSON.stringify(toolkitHook));
  for (const ref of references) {
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: `bench-${ref.slug}` },
        webhooks: [{
          name: `${ref.slug}.bench.toolkit.dev`,
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          failurePolicy: "Fail",
          timeoutSeconds: 10,
          clientConfig: { url: `https://127.0.0.1:${ports[ref.slug]}/admit`, caBundle },
          rules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
            {
              apiGroups: ["apps"],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["deployments"],
            },
          ],
          namespaceSelector: { matchExpressions: [onlyNamespace(ref.slug)] },
        }],
      }),
    );
  }
  const slugs = ["none", ...references.map((r) => r.slug), "toolkit"];
  for (const slug of slugs) {
    await kubectl(["create", "namespace", namespaceOf(slug)]);
    await waitFor(
      `the service account of ${namespaceOf(slug)}`,
      async () =>
        (await cluster.kubectl(["get", "serviceaccount", "default", "-n", namespaceOf(slug)]))
          .code === 0,
    );
  }

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
  const post = async (path: string, object: unknown): Promise<{ ms: number; body: unknown }> => {
    const body = JSON.stringify(object);
    const start = performance.now();
    const r = await fetch(`${cluster.server}${path}?dryRun=All`, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/json" },
      client,
    });
    const text = await r.text();
    const ms = performance.now() - start;
    if (r.status !== 201) throw new Error(`create: ${r.status} ${text.slice(0, 300)}`);
    return { ms, body: JSON.parse(text) };
  };
  const createPod = (namespace: string, img: string) =>
    post(`/api/v1/namespaces/${namespace}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `p-${serial++}`, namespace },
      spec: { containers: [{ name: "app", image: img }] },
    });
  const createDeployment = (namespace: string) => {
    const name = `d-${serial++}`;
    return post(`/apis/apps/v1/namespaces/${namespace}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            containers: serviceImages.map((img, i) => ({ name: `c${i}`, image: img })),
          },
        },
      },
    });
  };
  // The API server picks configurations up asynchronously: wait until each namespace's creates
  // are patched by its webhook (and those of the namespace without one are not).
  for (const slug of slugs) {
    await waitFor(`the webhook of ${namespaceOf(slug)} to take effect`, async () => {
      const { body } = await createPod(namespaceOf(slug), image);
      const pod = body as { spec?: { containers?: { image: string }[] } };
      return (pod.spec?.containers?.[0]?.image === pinned) === (slug !== "none");
    }, { timeoutMs: 30_000 });
  }

  interface Variant {
    readonly name: string;
    readonly slug: string;
    readonly image: () => string;
  }
  let coldNext = 0;
  const podVariants: Variant[] = [
    { name: "no webhook", slug: "none", image: () => image },
    { name: "Go standard library, patch only", slug: "go", image: () => image },
    { name: "bare Deno.serve, patch only", slug: "deno", image: () => image },
    {
      name: `bare Deno.serve, with the webhook's runtime flags and one-write answers`,
      slug: "deno-flags",
      image: () => image,
    },
    { name: "toolkit's transport, fixed decision", slug: "transport", image: () => image },
    { name: "toolkit (warm verdict cache)", slug: "toolkit", image: () => image },
    {
      name: "toolkit (cold: a new tag each create)",
      slug: "toolkit",
      image: () => coldTags[coldNext++]!,
    },
  ];
  const percentiles = (times: number[]) => {
    const sorted = [...times].sort((a, b) => a - b);
    const n = sorted.length;
    return {
      p50: sorted[Math.floor(n * 0.5)]!,
      p99: sorted[Math.min(n - 1, Math.floor(n * 0.99))]!,
    };
  };
  /** `n` creates of every variant, interleaved one by one (the order turns every pass). */
  const interleaved = async <V extends { name: string }>(
    variants: readonly V[],
    n: number,
    create: (v: V) => Promise<number>,
  ) => {
    const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < variants.length; j++) {
        const v = variants[(i + j) % variants.length]!;
        times.get(v.name)!.push(await create(v));
      }
    }
    return new Map([...times].map(([name, t]) => [name, percentiles(t)]));
  };
  const throughput = async (slug: string, next: () => Promise<unknown>) => {
    const pid = pids[slug];
    const cpuBefore = pid === undefined ? 0 : await cpuSeconds(pid);
    const end = performance.now() + SECONDS * 1000;
    let done = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        await next();
        done++;
      }
    }));
    const cpu = pid === undefined ? undefined : (await cpuSeconds(pid)) - cpuBefore;
    return {
      rate: done / SECONDS,
      cpuMsPerReview: cpu === undefined ? undefined : cpu * 1000 / done,
    };
  };

  interface Figures {
    p50: number[];
    p99: number[];
    added: number[];
    rate: number[];
    cpu: number[];
  }
  const podFigures = new Map<string, Figures>();
  const deploymentFigures = new Map<string, Figures>();
  const figures = (table: Map<string, Figures>, name: string) => {
    let f = table.get(name);
    if (f === undefined) table.set(name, f = { p50: [], p99: [], added: [], rate: [], cpu: [] });
    return f;
  };
  const warmVariants = podVariants.filter((v) => !v.name.includes("cold"));
  // Warm-up: connections, caches and the JIT of every path.
  await interleaved(
    warmVariants,
    20,
    async (v) => (await createPod(namespaceOf(v.slug), image)).ms,
  );
  await interleaved(warmVariants, 5, async (v) => (await createDeployment(namespaceOf(v.slug))).ms);
  for (let round = 0; round < ROUNDS; round++) {
    const pods = await interleaved(
      podVariants,
      CREATES,
      async (v) => (await createPod(namespaceOf(v.slug), v.image())).ms,
    );
    const deployments = await interleaved(
      warmVariants,
      DEPLOYMENTS,
      async (v) => (await createDeployment(namespaceOf(v.slug))).ms,
    );
    for (
      const [table, results] of [[podFigures, pods], [deploymentFigures, deployments]] as const
    ) {
      const none = results.get("no webhook")!.p50;
      for (const [name, r] of results) {
        const f = figures(table, name);
        f.p50.push(r.p50);
        f.p99.push(r.p99);
        f.added.push(r.p50 - none);
      }
    }
    // Throughput, one variant after another (the order turns every round).
    for (let j = 0; j < warmVariants.length; j++) {
      const v = warmVariants[(round + j) % warmVariants.length]!;
      const t = await throughput(v.slug, () => createPod(namespaceOf(v.slug), v.image()));
      const f = figures(podFigures, v.name);
      f.rate.push(t.rate);
      if (t.cpuMsPerReview !== undefined) f.cpu.push(t.cpuMsPerReview);
    }
  }
  client.close();

  const ms = (values: number[]) => `${median(values).toFixed(2)} ms`;
  const none = median(podFigures.get("no webhook")!.rate);
  print(
    `\nPod creates through the kube-apiserver (server-side dry run), medians of ${ROUNDS} rounds; sequential creates interleaved one by one\n`,
  );
  print(
    `| webhook | p50 | p99 | added p50 (sequential) | creates/s at ${CLIENTS} clients | vs no webhook | webhook CPU per review |`,
  );
  print("|---|---|---|---|---|---|---|");
  for (const [name, f] of podFigures) {
    const rate = f.rate.length ? median(f.rate) : undefined;
    print(
      `| ${name} | ${ms(f.p50)} | ${ms(f.p99)} | ${
        name === "no webhook" ? "–" : `+${ms(f.added)}`
      } | ${rate === undefined ? "" : rate.toFixed(0)} | ${
        rate === undefined ? "" : `${Math.round((rate / none) * 100)} %`
      } | ${f.cpu.length ? ms(f.cpu) : ""} |`,
    );
  }
  print(`\nA Deployment of ${CONTAINERS} containers (ten signed images), sequential creates\n`);
  print("| webhook | p50 | p99 | added p50 |");
  print("|---|---|---|---|");
  for (const [name, f] of deploymentFigures) {
    print(
      `| ${name} | ${ms(f.p50)} | ${ms(f.p99)} | ${
        name === "no webhook" ? "–" : `+${ms(f.added)}`
      } |`,
    );
  }
  const protocol = (await Deno.readTextFile(`${work}/go.log`)).match(/protocol (\S+)/)?.[1];
  print(`\nThe API server called the Go reference over ${protocol ?? "(not seen)"}.`);
} finally {
  for (const p of processes.reverse()) await p.stop().catch(() => {});
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
