/**
 * What every Pod create pays (issues #15 and #28), run by `deno task bench`: server-side dry-run
 * creates through the real kube-apiserver of the test environment (with kube-controller-manager),
 * with
 *
 * - no mutating webhook;
 * - reference webhooks that only answer the digest-pinning patch: Go's standard library `net/http`
 *   (built here with the Go toolchain; HTTP/2 through ALPN, `TCP_NODELAY` on every connection;
 *   and the same offering only `http/1.1`, the protocol toolkit serves),
 *   a bare `Deno.serve` (HTTP/2, no `TCP_NODELAY` on TLS connections), and the serving paths that
 *   were candidates for toolkit: `node:http2`'s `createSecureServer` and `node:https` offering
 *   only `http/1.1` (both on Deno's Node layer, which sets `TCP_NODELAY` on the sockets it
 *   accepts); with `--deno-http1`, also Deno's own server on a TLS listener that offers only
 *   `http/1.1`;
 * - toolkit's transport with a fixed decision (`_transport_webhook.ts`: its listener, routes, log
 *   and metrics), to show what deciding costs on top of serving;
 * - toolkit, installed by `image-security enable --webhook-url` and run on this machine, with a
 *   ClusterImagePolicy requiring the images' signatures (warm: the same signed images every time;
 *   cold: a new tag of the signed image every create, so each create resolves the tag and verifies
 *   the signature again).
 *
 * Three shapes (`_pod_shapes.ts`): a one-container Pod, a realistic Pod (a review of 5–10 KB:
 * labels, annotations, env, an init container and three containers, the API server's defaults and
 * managedFields) and a Deployment of ten containers; every image is signed and every webhook pins
 * every image. Every webhook is registered at once, each for its own namespace, so a create goes
 * through exactly one of them (or none), and the sequential creates of all variants are
 * interleaved one by one: the machine's drift touches every variant alike. Each of `--rounds`
 * rounds makes `--creates` sequential creates of each Pod shape and `--deployments` of the
 * Deployment per variant, then runs `--clients` concurrent clients for `--seconds` per variant
 * and Pod shape, in one-second slices taken by the variants in turn, with the webhook process's
 * CPU time per review (user + system, from `/proc`) in that phase; last, a client on Go's
 * `net/http` (as the API server's) sends the realistic Pod's and the Deployment's reviews, as the
 * API server sent them, straight to each webhook `--direct` times, one request at a time, the
 * webhooks in turn: the same tail without the API server's own time and noise. The tables give the median p50 and p99 of the
 * rounds, each round's p99, the p99.9 and the count of creates over 30 ms over all rounds, each
 * round's rate and the median rate's share of the rate without a webhook; "added p50" is a
 * variant's p50 minus the p50 without a webhook in the same round. Last come issue #28's targets,
 * checked for toolkit warm against Go's reference in this run.
 *
 * `--only go-h1,transport` keeps only the references named by their slugs (Go's HTTP/2 reference,
 * the targets' yardstick, always runs): fewer webhooks interleaved means each idles less between
 * its reviews, so compare figures of runs with the same set;
 * `--toolkit-v8-flags ""` runs toolkit's webhook without the shipped V8 flags, to weigh them;
 * `--toolkit-deno-flags="--cpu-prof --cpu-prof-dir=DIR"` profiles it (any `deno run` flags, split
 * on spaces).
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
import {
  deployment,
  deploymentImagePaths,
  pinPatch,
  REALISTIC_IMAGE_PATHS,
  type RealisticImages,
  realisticPod,
  smallPod,
} from "./_pod_shapes.ts";

// deno-lint-ignore no-console
const print = console.log;
const ROOT = new URL("../../", import.meta.url).pathname;
/** The V8 flags `deno task webhook`, the container image and the chart run the webhook with. */
const WEBHOOK_V8_FLAGS = "--max-semi-space-size=4";
const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    creates: { type: "string", default: "600" },
    deployments: { type: "string", default: "600" },
    seconds: { type: "string", default: "5" },
    clients: { type: "string", default: "16" },
    "toolkit-v8-flags": { type: "string", default: WEBHOOK_V8_FLAGS },
    "toolkit-deno-flags": { type: "string", default: "" },
    "deno-http1": { type: "boolean", default: false },
    direct: { type: "string", default: "2000" },
    only: { type: "string", default: "" },
  },
});
const ROUNDS = Number(values.rounds);
const CREATES = Number(values.creates);
const DEPLOYMENTS = Number(values.deployments);
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
const CONTAINERS = 10;
const DIRECT = Number(values.direct);

const GO_WEBHOOK = `package main

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

func main() {
	patches := map[byte]string{}
	for _, shape := range []string{"P", "R", "D"} {
		patches[shape[0]+'a'-'A'] = base64.StdEncoding.EncodeToString([]byte(os.Getenv("PATCH_" + shape)))
	}
	var once sync.Once
	var seen sync.Map
	http.HandleFunc("/admit", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { fmt.Println("protocol", r.Proto) })
		body, _ := io.ReadAll(r.Body)
		var in struct {
			Request struct {
				UID  string \`json:"uid"\`
				Name string \`json:"name"\`
			} \`json:"request"\`
		}
		json.Unmarshal(body, &in)
		shape := in.Request.Name[0]
		if _, loaded := seen.LoadOrStore(shape, true); !loaded {
			fmt.Printf("review %c %d\\n", shape, len(body))
			os.WriteFile(os.Getenv("REVIEW_DUMP")+"/review-"+string(shape)+".json", body, 0o600)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, \`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"\`+in.Request.UID+\`","allowed":true,"patchType":"JSONPatch","patch":"\`+patches[shape]+\`"}}\`)
	})
	server := &http.Server{Addr: "127.0.0.1:" + os.Getenv("PORT")}
	if os.Getenv("HTTP1_ONLY") != "" {
		// A non-nil, empty TLSNextProto offers only http/1.1 through ALPN.
		server.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	server.ListenAndServeTLS(os.Getenv("CERT"), os.Getenv("KEY"))
}
`;

/**
 * A client on Go's `net/http`, as the API server's webhook client is (HTTP/2 when offered,
 * at most 25 idle connections a host), that sends one AdmissionReview body to every URL `-n`
 * times, one request at a time, the URLs taken in turn (the first one turning every pass), and
 * prints each URL's times in ms as JSON.
 */
const GO_CLIENT = `package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	cas := flag.String("ca", "", "CA files, comma-separated")
	bodyFile := flag.String("body", "", "the AdmissionReview to send")
	n := flag.Int("n", 1000, "requests per URL")
	flag.Parse()
	pool := x509.NewCertPool()
	for _, f := range strings.Split(*cas, ",") {
		pem, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		pool.AppendCertsFromPEM(pem)
	}
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 25,
	}}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		panic(err)
	}
	urls := flag.Args()
	post := func(url string) float64 {
		start := time.Now()
		r, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			panic(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if r.StatusCode != 200 {
			panic(url + ": " + r.Status)
		}
		return float64(time.Since(start).Microseconds()) / 1000
	}
	for i := 0; i < 20; i++ {
		for _, url := range urls {
			post(url)
		}
	}
	times := map[string][]float64{}
	for i := 0; i < *n; i++ {
		for j := range urls {
			url := urls[(i+j)%len(urls)]
			times[url] = append(times[url], post(url))
		}
	}
	json.NewEncoder(os.Stdout).Encode(times)
}
`;

/** The answer of the patch-only references, by the first letter of the object's name. */
const ANSWER_JS = `
const patches = {
  p: btoa(Deno.env.get("PATCH_P")),
  r: btoa(Deno.env.get("PATCH_R")),
  d: btoa(Deno.env.get("PATCH_D")),
};
const answer = (review) => JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  response: {
    uid: review.request.uid,
    allowed: true,
    patchType: "JSONPatch",
    patch: patches[review.request.name[0]],
  },
});
const hostname = "127.0.0.1";
const port = Number(Deno.env.get("PORT"));
const cert = Deno.readTextFileSync(Deno.env.get("CERT"));
const key = Deno.readTextFileSync(Deno.env.get("KEY"));
`;

/**
 * The reference on a bare \`Deno.serve\`; with \`HTTP1_ONLY\`, on Deno's own server for a TLS
 * listener that offers only \`http/1.1\` through ALPN (\`Deno.serve\` always offers \`h2\`, so this
 * takes Deno's internal \`serveHttpOnListener\`, which \`Deno.serve\` itself calls).
 */
const DENO_WEBHOOK = `${ANSWER_JS}
const handler = async (req) =>
  new Response(answer(await req.json()), { headers: { "content-type": "application/json" } });
if (Deno.env.get("HTTP1_ONLY")) {
  const listener = Deno.listenTls({ hostname, port, cert, key, alpnProtocols: ["http/1.1"] });
  Deno[Deno.internal].serveHttpOnListener(listener, undefined, handler, (error) => {
    console.error(error);
    return new Response("error", { status: 500 });
  }, () => {});
} else {
  Deno.serve({ hostname, port, cert, key, onListen: () => {} }, handler);
}
`;

/** The reference on Deno's Node layer: \`node:http2\` (PROTOCOL=h2) or \`node:https\`. */
const NODE_WEBHOOK = `${ANSWER_JS}
import http2 from "node:http2";
import https from "node:https";
const listener = (req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const body = answer(JSON.parse(Buffer.concat(chunks).toString()));
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  });
};
const server = Deno.env.get("PROTOCOL") === "h2"
  ? http2.createSecureServer({ cert, key }, listener)
  : https.createServer({ cert, key, ALPNProtocols: ["http/1.1"], noDelay: true }, listener);
server.listen(port, hostname);
`;

/** A variant's figures in one shape: sequential times by round, rates and CPU by round. */
interface Figures {
  readonly rounds: number[][];
  readonly rate: number[];
  readonly cpu: number[];
}

/** The `q` quantile of `times` (nearest rank). */
function quantile(times: readonly number[], q: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}

const SLOW_MS = 30;
const ms = (value: number) => `${value.toFixed(2)} ms`;

interface Summary {
  readonly p50: number;
  readonly addedP50: number;
  readonly p99: number;
  readonly p99ByRound: number[];
  readonly p999: number;
  readonly slow: number;
  readonly creates: number;
  readonly rate?: number;
  readonly share?: number;
}

function summarise(f: Figures, none: Figures): Summary {
  const all = f.rounds.flat();
  const noneRate = none.rate.length ? median(none.rate) : undefined;
  const rate = f.rate.length ? median(f.rate) : undefined;
  return {
    p50: median(f.rounds.map((t) => quantile(t, 0.5))),
    addedP50: median(f.rounds.map((t, i) => quantile(t, 0.5) - quantile(none.rounds[i]!, 0.5))),
    p99: median(f.rounds.map((t) => quantile(t, 0.99))),
    p99ByRound: f.rounds.map((t) => quantile(t, 0.99)),
    p999: quantile(all, 0.999),
    slow: all.filter((t) => t > SLOW_MS).length,
    creates: all.length,
    ...(rate === undefined ? {} : { rate }),
    ...(rate === undefined || noneRate === undefined ? {} : { share: rate / noneRate * 100 }),
  };
}

/** Prints the tables and the targets of issue #28 (toolkit warm against Go's reference). */
function printReport(report: {
  shapes: { name: string; title: string; figures: Map<string, Figures> }[];
  protocol: string | undefined;
  memory: { toolkit: number; transport: number | undefined };
  direct: { name: string; title: string; times: Map<string, number[][]> }[];
}): void {
  print(
    `\nCreates through the kube-apiserver (server-side dry run): ${ROUNDS} rounds, each of ${CREATES} sequential creates of each Pod shape and ${DEPLOYMENTS} of the Deployment per webhook, interleaved one by one, then ${SECONDS} s of ${CLIENTS} concurrent clients per webhook and Pod shape. p50 and p99 are medians of the rounds; p99.9 and "over ${SLOW_MS} ms" count every create of every round.`,
  );
  const verdicts: string[] = [];
  for (const shape of report.shapes) {
    const none = shape.figures.get("no webhook")!;
    const concurrent = none.rate.length > 0;
    print(`\n${shape.title}\n`);
    print(
      `| webhook | added p50 | p50 | p99 by round | p99.9 | over ${SLOW_MS} ms |${
        concurrent
          ? ` creates/s at ${CLIENTS} clients by round | share of no webhook | CPU per review |`
          : ""
      }`,
    );
    print(`|---|---|---|---|---|---|${concurrent ? "---|---|---|" : ""}`);
    const summaries = new Map<string, Summary>();
    for (const [name, f] of shape.figures) {
      const s = summarise(f, none);
      summaries.set(name, s);
      print(
        `| ${name} | ${name === "no webhook" ? "–" : `+${ms(s.addedP50)}`} | ${ms(s.p50)} | ${
          s.p99ByRound.map((v) => v.toFixed(1)).join(", ")
        } ms | ${ms(s.p999)} | ${s.slow} / ${s.creates} |${
          concurrent
            ? ` ${f.rate.map((r) => r.toFixed(0)).join(", ")} | ${
              s.share === undefined ? "" : `${s.share.toFixed(0)} %`
            } | ${f.cpu.length ? ms(median(f.cpu)) : ""} |`
            : ""
        }`,
      );
    }
    const go = summaries.get("Go net/http (HTTP/2)")!;
    const deno = summaries.get("bare Deno.serve (HTTP/2)");
    const toolkit = summaries.get("toolkit (warm verdict cache)")!;
    const check = (met: boolean, text: string) =>
      verdicts.push(`- ${shape.name}: ${met ? "met" : "MISSED"}: ${text}`);
    check(
      toolkit.slow <= go.slow,
      `creates over ${SLOW_MS} ms ${toolkit.slow} / ${toolkit.creates}, Go ${go.slow}`,
    );
    check(
      toolkit.p99 - go.p99 <= 1,
      `p99 ${ms(toolkit.p99)}, Go ${ms(go.p99)} (within 1 ms)`,
    );
    const cheaper = Math.min(go.addedP50, deno?.addedP50 ?? Infinity);
    check(
      toolkit.addedP50 - cheaper <= 0.3,
      `added p50 +${ms(toolkit.addedP50)}, cheaper reference +${ms(cheaper)} (within 0.3 ms)`,
    );
    if (toolkit.share !== undefined && go.share !== undefined) {
      check(
        toolkit.share >= go.share - 5,
        `rate at ${CLIENTS} clients ${toolkit.share.toFixed(0)} % of no webhook, Go ${
          go.share.toFixed(0)
        } % (within 5 points)`,
      );
    }
  }
  for (const direct of report.direct) {
    print(`\n${direct.title}\n`);
    print(`| webhook | p50 | p99 by round | p99.9 | over ${SLOW_MS} ms |`);
    print("|---|---|---|---|---|");
    const slow = new Map<string, number>();
    for (const [name, rounds] of direct.times) {
      const all = rounds.flat();
      slow.set(name, all.filter((t) => t > SLOW_MS).length);
      print(
        `| ${name} | ${ms(median(rounds.map((t) => quantile(t, 0.5))))} | ${
          rounds.map((t) => quantile(t, 0.99).toFixed(2)).join(", ")
        } ms | ${ms(quantile(all, 0.999))} | ${slow.get(name)} / ${all.length} |`,
      );
    }
    const toolkit = slow.get("toolkit (warm verdict cache)")!;
    const go = slow.get("Go net/http (HTTP/2)")!;
    verdicts.push(
      `- ${direct.name}, straight to the webhook: ${
        toolkit <= go ? "met" : "MISSED"
      }: requests over ${SLOW_MS} ms ${toolkit}, Go ${go}`,
    );
  }
  print(`\nThe API server called the Go reference over ${report.protocol ?? "(not seen)"}.`);
  print(
    `Peak resident memory: toolkit ${(report.memory.toolkit / 1024).toFixed(0)} MB${
      report.memory.transport === undefined
        ? ""
        : `, its transport alone ${(report.memory.transport / 1024).toFixed(0)} MB`
    } (the chart's limit: 256 MiB).`,
  );
  print("\nTargets of issue #28, toolkit warm against Go's net/http in this run:\n");
  for (const line of verdicts) print(line);
}

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

  const patches = {
    P: JSON.stringify(pinPatch(["/spec/containers/0/image"], [pinned])),
    R: JSON.stringify(pinPatch(REALISTIC_IMAGE_PATHS, servicePinned.slice(0, 4))),
    D: JSON.stringify(pinPatch(deploymentImagePaths(CONTAINERS), servicePinned)),
  };
  const realisticImages: RealisticImages = {
    init: serviceImages[0]!,
    containers: [serviceImages[1]!, serviceImages[2]!, serviceImages[3]!],
  };

  // The reference webhooks, with a serving certificate of the cluster's CA.
  const serving = await issueCert(work, cluster.ca, {
    name: "ref",
    cn: "ref",
    sans: LOOPBACK_SANS,
  });
  const caBundle = btoa(cluster.caCertPem);
  await Deno.writeTextFile(`${work}/main.go`, GO_WEBHOOK);
  await Deno.writeTextFile(`${work}/go.mod`, "module refwebhook\n\ngo 1.22\n");
  await Deno.mkdir(`${work}/client`);
  await Deno.writeTextFile(`${work}/client/main.go`, GO_CLIENT);
  await Deno.writeTextFile(`${work}/client/go.mod`, "module directclient\n\ngo 1.22\n");
  for (const [dir, output] of [[work, "ref-webhook"], [`${work}/client`, "../direct-client"]]) {
    const build = await new Deno.Command("go", {
      args: ["build", "-o", output!, "."],
      cwd: dir,
      env: { CGO_ENABLED: "0", GOTOOLCHAIN: "local" },
    }).output();
    if (!build.success) throw new Error(new TextDecoder().decode(build.stderr));
  }
  await Deno.writeTextFile(`${work}/deno_webhook.js`, DENO_WEBHOOK);
  await Deno.writeTextFile(`${work}/node_webhook.js`, NODE_WEBHOOK);
  const webhookFlags = (v8: string) => v8 ? [`--v8-flags=${v8}`] : [];
  const denoRun = (script: string) => [
    "run",
    "-A",
    ...webhookFlags(WEBHOOK_V8_FLAGS),
    script,
  ];
  interface Reference {
    readonly slug: string;
    readonly name: string;
    readonly command: string;
    readonly args: string[];
    readonly env?: Record<string, string>;
  }
  const allReferences: Reference[] = [
    { slug: "go", name: "Go net/http (HTTP/2)", command: `${work}/ref-webhook`, args: [] },
    {
      slug: "go-h1",
      name: "Go net/http, http/1.1 only",
      command: `${work}/ref-webhook`,
      args: [],
      env: { HTTP1_ONLY: "1" },
    },
    {
      slug: "deno",
      name: "bare Deno.serve (HTTP/2)",
      command: Deno.execPath(),
      args: denoRun(`${work}/deno_webhook.js`),
    },
    ...(values["deno-http1"]
      ? [{
        slug: "deno-h1",
        name: "bare Deno.serve, http/1.1 only",
        command: Deno.execPath(),
        args: denoRun(`${work}/deno_webhook.js`),
        env: { HTTP1_ONLY: "1" },
      }]
      : []),
    {
      slug: "node-h2",
      name: "bare node:http2",
      command: Deno.execPath(),
      args: denoRun(`${work}/node_webhook.js`),
      env: { PROTOCOL: "h2" },
    },
    {
      slug: "node-h1",
      name: "bare node:https (HTTP/1.1)",
      command: Deno.execPath(),
      args: denoRun(`${work}/node_webhook.js`),
    },
    {
      slug: "transport",
      name: "toolkit's transport, fixed decision",
      command: Deno.execPath(),
      args: denoRun(`${ROOT}tests/bench/_transport_webhook.ts`),
    },
  ];
  // Go's reference is what the targets are checked against: always there.
  const only = values.only.split(",").filter((slug) => slug !== "");
  const references = only.length === 0
    ? allReferences
    : allReferences.filter((r) => r.slug === "go" || only.includes(r.slug));
  const pids: Record<string, number> = {};
  const ports: Record<string, number> = {};
  for (const ref of references) {
    ports[ref.slug] = freePort();
    const p = await startProcess(ref.command, ref.args, {
      env: {
        PATCH_P: patches.P,
        PATCH_R: patches.R,
        PATCH_D: patches.D,
        REVIEW_DUMP: work,
        PORT: String(ports[ref.slug]),
        CERT: serving.certFile,
        KEY: serving.keyFile,
        ...ref.env,
      },
      logFile: `${work}/${ref.slug}.log`,
      cwd: ROOT,
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
    ...values["toolkit-deno-flags"].split(" ").filter((flag) => flag !== ""),
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
  // HTTP/1.1: Deno's HTTP/2 client, like its server, does not set TCP_NODELAY and writes a
  // request body of 1 KiB or more apart from its headers, so a realistic Pod's create would wait
  // 40 ms for the API server's delayed ACK before any webhook is called.
  const client = Deno.createHttpClient({
    http2: false,
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
  const podsPath = (namespace: string) => `/api/v1/namespaces/${namespace}/pods`;
  const createSmall = (namespace: string, img: string) =>
    post(podsPath(namespace), smallPod(`p-${serial++}`, namespace, img));
  const createRealistic = (namespace: string) =>
    post(podsPath(namespace), realisticPod(`r-${serial++}`, namespace, realisticImages));
  const createDeployment = (namespace: string) =>
    post(
      `/apis/apps/v1/namespaces/${namespace}/deployments`,
      deployment(`d-${serial++}`, namespace, serviceImages),
    );
  // The API server picks configurations up asynchronously: wait until each namespace's creates
  // are patched by its webhook (and those of the namespace without one are not).
  for (const slug of slugs) {
    await waitFor(`the webhook of ${namespaceOf(slug)} to take effect`, async () => {
      const { body } = await createSmall(namespaceOf(slug), image);
      const pod = body as { spec?: { containers?: { image: string }[] } };
      return (pod.spec?.containers?.[0]?.image === pinned) === (slug !== "none");
    }, { timeoutMs: 30_000 });
  }
  // Every webhook pins every image of the realistic Pod and the Deployment.
  for (const slug of slugs.filter((s) => s !== "none")) {
    const pod = (await createRealistic(namespaceOf(slug))).body as {
      spec: { initContainers: { image: string }[]; containers: { image: string }[] };
    };
    const podImages = [...pod.spec.initContainers, ...pod.spec.containers].map((c) => c.image);
    const made = (await createDeployment(namespaceOf(slug))).body as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    const deploymentImages = made.spec.template.spec.containers.map((c) => c.image);
    if (
      JSON.stringify(podImages) !== JSON.stringify(servicePinned.slice(0, 4)) ||
      JSON.stringify(deploymentImages) !== JSON.stringify(servicePinned)
    ) {
      throw new Error(`the webhook of ${slug} did not pin every image`);
    }
  }

  interface Variant {
    readonly name: string;
    readonly slug: string;
    readonly image: () => string;
  }
  let coldNext = 0;
  const warm: Variant[] = [
    { name: "no webhook", slug: "none", image: () => image },
    ...references.map((r) => ({ name: r.name, slug: r.slug, image: () => image })),
    { name: "toolkit (warm verdict cache)", slug: "toolkit", image: () => image },
  ];
  const smallVariants: Variant[] = [
    ...warm,
    {
      name: "toolkit (cold: a new tag each create)",
      slug: "toolkit",
      image: () => coldTags[coldNext++]!,
    },
  ];

  /** `n` creates of every variant, interleaved one by one (the order turns every pass). */
  const interleaved = async (
    variants: readonly Variant[],
    n: number,
    create: (v: Variant) => Promise<number>,
  ) => {
    const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < variants.length; j++) {
        const v = variants[(i + j) % variants.length]!;
        times.get(v.name)!.push(await create(v));
      }
    }
    return times;
  };
  /** `CLIENTS` clients creating for `seconds`: how many creates, and the webhook's CPU time. */
  const burst = async (slug: string, seconds: number, next: () => Promise<unknown>) => {
    const pid = pids[slug];
    const cpuBefore = pid === undefined ? 0 : await cpuSeconds(pid);
    const start = performance.now();
    const end = start + seconds * 1000;
    let done = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        await next();
        done++;
      }
    }));
    return {
      done,
      seconds: (performance.now() - start) / 1000,
      cpu: pid === undefined ? 0 : (await cpuSeconds(pid)) - cpuBefore,
    };
  };
  /**
   * The rate at `CLIENTS` clients of every variant: `SECONDS` each, in slices of one second
   * taken in turn (the order turning every slice), so that the machine's drift touches every
   * variant alike.
   */
  const throughputs = async (
    variants: readonly Variant[],
    create: (v: Variant) => Promise<unknown>,
  ) => {
    const totals = new Map(variants.map((v) => [v.name, { done: 0, seconds: 0, cpu: 0 }]));
    const slices = Math.max(1, Math.round(SECONDS));
    for (let i = 0; i < slices; i++) {
      for (let j = 0; j < variants.length; j++) {
        const v = variants[(i + j) % variants.length]!;
        const b = await burst(v.slug, SECONDS / slices, () => create(v));
        const t = totals.get(v.name)!;
        t.done += b.done;
        t.seconds += b.seconds;
        t.cpu += b.cpu;
      }
    }
    return new Map(
      variants.map((v) => {
        const t = totals.get(v.name)!;
        return [v.name, {
          rate: t.done / t.seconds,
          cpuMsPerReview: pids[v.slug] === undefined ? undefined : t.cpu * 1000 / t.done,
        }];
      }),
    );
  };

  type ShapeName = "small" | "realistic" | "deployment";
  const shapes: {
    readonly name: ShapeName;
    readonly variants: readonly Variant[];
    readonly creates: number;
    readonly create: (v: Variant) => Promise<{ ms: number }>;
    readonly concurrent: boolean;
  }[] = [
    {
      name: "small",
      variants: smallVariants,
      creates: CREATES,
      create: (v) => createSmall(namespaceOf(v.slug), v.image()),
      concurrent: true,
    },
    {
      name: "realistic",
      variants: warm,
      creates: CREATES,
      create: (v) => createRealistic(namespaceOf(v.slug)),
      concurrent: true,
    },
    {
      name: "deployment",
      variants: warm,
      creates: DEPLOYMENTS,
      create: (v) => createDeployment(namespaceOf(v.slug)),
      concurrent: false,
    },
  ];
  // Straight to each webhook: the realistic Pod's and the Deployment's reviews as the API server
  // sent them to the Go reference, from Go's own HTTP client, without the API server's time and
  // noise.
  const directSlugs = [...references.map((r) => r.slug), "toolkit"];
  const directUrl = (slug: string) =>
    `https://127.0.0.1:${slug === "toolkit" ? toolkitPort : ports[slug]}/admit`;
  const directShapes = ["r", "d"] as const;
  const directTimes = new Map(
    directShapes.map((shape) => [
      shape,
      new Map<string, number[][]>(directSlugs.map((slug) => [slug, []])),
    ]),
  );
  const directRound = async (shape: "r" | "d"): Promise<Record<string, number[]>> => {
    const out = await new Deno.Command(`${work}/direct-client`, {
      args: [
        "-ca",
        `${cluster.ca.certFile},${work}/tls/ca.crt`,
        "-body",
        `${work}/review-${shape}.json`,
        "-n",
        String(DIRECT),
        ...directSlugs.map(directUrl),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`direct client: ${new TextDecoder().decode(out.stderr)}`);
    const byUrl = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, number[]>;
    return Object.fromEntries(directSlugs.map((slug) => [slug, byUrl[directUrl(slug)] ?? []]));
  };

  const results = new Map<ShapeName, Map<string, Figures>>(
    shapes.map((s) => [s.name, new Map()]),
  );
  const figures = (shape: ShapeName, name: string) => {
    const table = results.get(shape)!;
    let f = table.get(name);
    if (f === undefined) table.set(name, f = { rounds: [], rate: [], cpu: [] });
    return f;
  };
  // Warm-up: connections, caches and the JIT of every path (the cold variant has no warm-up).
  for (const shape of shapes) {
    await interleaved(warm, 20, async (v) => (await shape.create(v)).ms);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const shape of shapes) {
      const times = await interleaved(
        shape.variants,
        shape.creates,
        async (v) => (await shape.create(v)).ms,
      );
      for (const [name, t] of times) figures(shape.name, name).rounds.push(t);
    }
    for (const shape of shapes.filter((s) => s.concurrent)) {
      for (const [name, t] of await throughputs(warm, shape.create)) {
        const f = figures(shape.name, name);
        f.rate.push(t.rate);
        if (t.cpuMsPerReview !== undefined) f.cpu.push(t.cpuMsPerReview);
      }
    }
    // Straight to each webhook, without the API server.
    for (const shape of DIRECT > 0 ? directShapes : []) {
      const times = await directRound(shape);
      for (const [slug, t] of Object.entries(times)) directTimes.get(shape)!.get(slug)!.push(t);
    }
  }
  client.close();

  const log = await Deno.readTextFile(`${work}/go.log`);
  const protocol = log.match(/protocol (\S+)/)?.[1];
  const reviewBytes = (letter: string) => log.match(new RegExp(`review ${letter} (\\d+)`))?.[1];
  const peakKb = async (pid: number) =>
    Number((await Deno.readTextFile(`/proc/${pid}/status`)).match(/VmHWM:\s+(\d+)/)?.[1]);
  const memory = {
    toolkit: await peakKb(pids.toolkit!),
    transport: pids.transport === undefined ? undefined : await peakKb(pids.transport),
  };
  printReport({
    shapes: shapes.map((s) => ({
      name: s.name,
      title: s.name === "small"
        ? `A one-container Pod (a review of ${reviewBytes("p") ?? "?"} bytes)`
        : s.name === "realistic"
        ? `A realistic Pod: labels, annotations, env, an init container and three containers (a review of ${
          reviewBytes("r") ?? "?"
        } bytes)`
        : `A Deployment of ${CONTAINERS} containers, ten signed images (a review of ${
          reviewBytes("d") ?? "?"
        } bytes)`,
      figures: results.get(s.name)!,
    })),
    protocol,
    memory,
    direct: DIRECT > 0
      ? directShapes.map((shape) => ({
        name: shape === "r" ? "realistic" : "deployment",
        title: `Straight to each webhook, the ${
          shape === "r" ? "realistic Pod's" : "Deployment's"
        } review (${
          reviewBytes(shape) ?? "?"
        } bytes) from Go's net/http client, ${DIRECT} sequential requests per webhook a round, interleaved`,
        times: new Map(
          [...directTimes.get(shape)!].map(([slug, rounds]) => [
            slug === "toolkit"
              ? "toolkit (warm verdict cache)"
              : references.find((r) => r.slug === slug)!.name,
            rounds,
          ]),
        ),
      }))
      : [],
  });
} finally {
  for (const p of processes.reverse()) await p.stop().catch(() => {});
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
