/**
 * The Helm chart `deploy/chart/toolkit` installs what `toolkit image-security enable` installs:
 * `helm lint --strict` passes and bad values are refused; for several value sets, `helm
 * template` and `enable --dry-run -o yaml` with the matching flags print the same objects (only
 * random TLS material, Helm's own labels and the Namespace may differ); both pass a server-side
 * dry run; and a real `helm install` is read by `toolkit image-security status`, keeps its
 * serving certificate across `helm upgrade` (also one renewed by `rotate-certs`) and loses its
 * webhook configuration on `helm uninstall`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { parse, parseAllDocuments } from "yaml";
import {
  e2eSkipReason,
  kubectlOk,
  requireTool,
  startCluster,
  type TestCluster,
} from "../env/mod.ts";
import { context, runEnable, runRotateCerts, runStatus } from "./_context.ts";
import { DEFAULT_IMAGE, selectorLabels, TOOLKIT_IMAGE_REPOSITORY } from "../../lib/install/mod.ts";
import { VERSION } from "../../lib/version.ts";
import { webhookMemoryLimitQuantity } from "../../lib/admission/mod.ts";
import { startTlsServer } from "../../webhook/server.ts";

const CHART = new URL("../../deploy/chart/toolkit/", import.meta.url).pathname;
const NAMESPACE = "toolkit-system";
const RELEASE = "toolkit";
const SERVICE_DNS_NAME = `toolkit-webhook.${NAMESPACE}.svc`;

/** The labels Helm adds that `enable` does not (managed-by is "Helm" there, "toolkit" here). */
const HELM_LABELS = [
  "helm.sh/chart",
  "app.kubernetes.io/instance",
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/version",
];

/** Values that take objects of their own (documented as one value in the README). */
const FREE_FORM_VALUES = new Set(["resources", "nodeSelector", "tolerations", "affinity"]);

type Json = Record<string, unknown>;
type Obj = Json & { kind: string; metadata: { name: string; namespace?: string } & Json };

/** A temporary directory removed when disposed; Helm's cache and config live there too. */
async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "toolkit-chart-test-" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** Runs helm with its cache, config and data under `home` (the user's are never touched). */
async function helm(
  home: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(requireTool("helm"), {
    args,
    env: {
      HELM_CACHE_HOME: `${home}/cache`,
      HELM_CONFIG_HOME: `${home}/config`,
      HELM_DATA_HOME: `${home}/data`,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

async function helmOk(home: string, args: string[]): Promise<string> {
  const result = await helm(home, args);
  assert.equal(result.code, 0, `helm ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** Writes values to a file for `helm -f` (JSON is YAML). */
async function valuesFile(dir: string, name: string, values: Json): Promise<string> {
  const path = `${dir}/${name}.values.yaml`;
  await Deno.writeTextFile(path, JSON.stringify(values, null, 2));
  return path;
}

/**
 * The objects of a YAML stream, empty documents left out. Read as YAML 1.1, as Kubernetes reads
 * it: an unquoted `off` or `yes` is a boolean there, and would differ from enable's string.
 */
function objectsOf(text: string): Obj[] {
  const objects: Obj[] = [];
  for (const document of parseAllDocuments(text, { version: "1.1" })) {
    assert.deepEqual(document.errors, [], `cannot parse:\n${text}`);
    const object = document.toJS();
    if (object !== null && object !== undefined) objects.push(object as Obj);
  }
  return objects;
}

/** `helm template` of the chart, CRDs included, as helm prints it. */
async function renderChartText(home: string, values: Json): Promise<string> {
  const file = await valuesFile(home, "render", values);
  return await helmOk(home, [
    "template",
    RELEASE,
    CHART,
    "--include-crds",
    "--namespace",
    NAMESPACE,
    "-f",
    file,
  ]);
}

/** The objects of `helm template`. */
async function renderChart(home: string, values: Json): Promise<Obj[]> {
  return objectsOf(await renderChartText(home, values));
}

/** `toolkit image-security enable --dry-run -o yaml` with `flags`, as it prints it. */
async function renderEnableText(flags: Readonly<Record<string, unknown>>): Promise<string> {
  const { io, ctx } = context();
  assert.equal(await runEnable({ ...flags, "dry-run": true, output: "yaml" }, ctx), 0, io.err());
  return io.out();
}

/** The objects of `enable --dry-run`. */
async function renderEnable(flags: Readonly<Record<string, unknown>>): Promise<Obj[]> {
  return objectsOf(await renderEnableText(flags));
}

function key(object: Obj): string {
  const ns = object.metadata.namespace;
  return `${object.kind} ${ns ? `${ns}/` : ""}${object.metadata.name}`;
}

function find(objects: readonly Obj[], kind: string, name: string): Obj {
  const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(object, `no ${kind} ${name} among ${objects.map(key).join(", ")}`);
  return object;
}

function b64decode(text: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
}

function b64encode(text: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * An object with what must differ between the two installs replaced by placeholders: random TLS
 * material (the TLS Secret's data, the webhook's caBundle) and Helm's labels.
 */
function normalised(object: Obj): Obj {
  const copy = structuredClone(object);
  const template = (copy.spec as Json | undefined)?.template as
    | { metadata?: { labels?: Json } }
    | undefined;
  for (const labels of [copy.metadata.labels as Json | undefined, template?.metadata?.labels]) {
    if (labels) { for (const label of HELM_LABELS) delete labels[label]; }
  }
  if (copy.kind === "Secret" && copy.metadata.name === "toolkit-webhook-tls") {
    const data = copy.data as Record<string, string>;
    for (const entry of Object.keys(data)) data[entry] = "<random>";
  }
  if (copy.kind === "MutatingWebhookConfiguration") {
    for (const webhook of copy.webhooks as { clientConfig: Json }[]) {
      if ("caBundle" in webhook.clientConfig) webhook.clientConfig.caBundle = "<random>";
    }
  }
  return copy;
}

/** The objects by kind, namespace and name, the Namespace left out (the chart has none). */
function byKey(objects: readonly Obj[]): Map<string, Obj> {
  return new Map(
    objects.filter((o) => o.kind !== "Namespace").map((o) => [key(o), normalised(o)]),
  );
}

/** Where two values differ, as `path: enable … / chart …` lines. */
function differences(enable: unknown, chart: unknown, path = ""): string[] {
  if (isDeepStrictEqual(enable, chart)) return [];
  const isMap = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isMap(enable) && isMap(chart)) {
    const keys = [...new Set([...Object.keys(enable), ...Object.keys(chart)])];
    return keys.flatMap((k) => differences(enable[k], chart[k], `${path}.${k}`));
  }
  if (Array.isArray(enable) && Array.isArray(chart) && enable.length === chart.length) {
    return enable.flatMap((v, i) => differences(v, chart[i], `${path}[${i}]`));
  }
  const show = (v: unknown) => v === undefined ? "(absent)" : JSON.stringify(v);
  return [`${path || "."}: enable ${show(enable)} / chart ${show(chart)}`];
}

/** Fails with a readable diff unless both sides hold the same objects. */
function assertSameObjects(enable: readonly Obj[], chart: readonly Obj[], what: string): void {
  const left = byKey(enable);
  const right = byKey(chart);
  const problems: string[] = [];
  for (const k of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(k);
    const r = right.get(k);
    if (!r) problems.push(`${k}: only enable installs it`);
    else if (!l) problems.push(`${k}: only the chart installs it`);
    else problems.push(...differences(l, r).map((d) => `${k} ${d}`));
  }
  if (problems.length > 0) {
    assert.fail(`The chart and enable disagree (${what}):\n  ${problems.join("\n  ")}`);
  }
}

/** Checks the Helm labels on every object the chart templates (the crds/ files are plain). */
function assertHelmLabels(chart: readonly Obj[]): void {
  for (const object of chart.filter((o) => o.kind !== "CustomResourceDefinition")) {
    const labels = object.metadata.labels as Record<string, string> | undefined;
    assert.equal(labels?.["app.kubernetes.io/managed-by"], "Helm", key(object));
    assert.equal(labels?.["app.kubernetes.io/instance"], RELEASE, key(object));
    assert.equal(labels?.["helm.sh/chart"], `toolkit-${chartYaml().version}`, key(object));
    assert.equal(labels?.["app.kubernetes.io/part-of"], "toolkit", key(object));
  }
}

/** The chart's serving certificate is for the Service, signed by the CA the webhook trusts. */
function assertChartTls(chart: readonly Obj[]): void {
  const data = find(chart, "Secret", "toolkit-webhook-tls").data as Record<string, string>;
  assert.deepEqual(Object.keys(data).sort(), ["ca.crt", "tls.crt", "tls.key"]);
  const cert = new X509Certificate(b64decode(data["tls.crt"]!));
  const ca = new X509Certificate(b64decode(data["ca.crt"]!));
  assert.ok(cert.verify(ca.publicKey), "tls.crt is not signed by ca.crt");
  assert.equal(cert.checkHost(SERVICE_DNS_NAME), SERVICE_DNS_NAME);
  assert.ok(cert.checkPrivateKey(createPrivateKey(b64decode(data["tls.key"]!))));
  const webhook = find(chart, "MutatingWebhookConfiguration", "toolkit-image-security");
  const clientConfig = (webhook.webhooks as { clientConfig: Json }[])[0]!.clientConfig;
  assert.equal(clientConfig.caBundle, data["ca.crt"]);
}

interface ChartCase {
  readonly name: string;
  readonly flags: Readonly<Record<string, unknown>>;
  readonly values: Json;
}

/** Value sets and the `enable` flags that mean the same. */
const CASES: readonly ChartCase[] = [
  { name: "defaults", flags: {}, values: {} },
  {
    name: "deny, 2 replicas, exempt namespaces, a mirrored image, timeout 15, lookaside stores",
    flags: {
      default: "deny",
      lookaside: ["quay.io/team=https://sigs.example.com/quay", "localhost:5000=http://10.0.0.9"],
      replicas: 2,
      "exempt-namespace": ["team-a", "kube-system", NAMESPACE, "off"],
      image: "registry.example.com:5000/mirror/toolkit-webhook:1.2.3",
      timeout: 15,
    },
    values: {
      replicas: 2,
      image: { repository: "registry.example.com:5000/mirror/toolkit-webhook", tag: "1.2.3" },
      webhook: {
        timeoutSeconds: 15,
        exemptNamespaces: ["team-a", "kube-system", NAMESPACE, "off"],
      },
      defaultPolicies: { defaultAction: "deny" },
      lookaside: [
        { scope: "quay.io/team", url: "https://sigs.example.com/quay" },
        { scope: "localhost:5000", url: "http://10.0.0.9" },
      ],
    },
  },
  {
    name: "allow, no exemption label, timeout 1",
    flags: { default: "allow", "exempt-namespace-label": "", timeout: 1 },
    values: {
      webhook: { timeoutSeconds: 1, exemptNamespaceLabel: "" },
      defaultPolicies: { defaultAction: "allow" },
    },
  },
  {
    name: "cert-manager and another exemption label",
    flags: { "cert-manager": true, "exempt-namespace-label": "example.com/image-checks=off" },
    values: {
      tls: { mode: "certManager" },
      webhook: { exemptNamespaceLabel: "example.com/image-checks=off" },
    },
  },
];

function chartYaml(): { version: string; appVersion: string } {
  return parse(Deno.readTextFileSync(`${CHART}Chart.yaml`));
}

/** The dotted paths of the chart's values, free-form values counted as one. */
function valuePaths(values: Json, prefix = ""): string[] {
  return Object.entries(values).flatMap(([k, v]) => {
    const path = `${prefix}${k}`;
    return typeof v === "object" && v !== null && !Array.isArray(v) && !FREE_FORM_VALUES.has(path)
      ? valuePaths(v as Json, `${path}.`)
      : [path];
  });
}

Deno.test("the chart's appVersion, default image and README follow toolkit", async () => {
  const chart = chartYaml();
  assert.equal(chart.appVersion, VERSION, "Chart.yaml appVersion is lib/version.ts's VERSION");
  const values = parse(await Deno.readTextFile(`${CHART}values.yaml`));
  assert.equal(values.image.repository, TOOLKIT_IMAGE_REPOSITORY);
  assert.equal(values.image.tag, "");
  assert.equal(`${values.image.repository}:${chart.appVersion}`, DEFAULT_IMAGE);
  const readme = await Deno.readTextFile(`${CHART}README.md`);
  const undocumented = valuePaths(values).filter((p) => !readme.includes(`\`${p}\``));
  assert.deepEqual(undocumented, [], "values missing from the chart's README.md");
});

Deno.test({
  name: "the chart lints, refuses bad values and renders what enable --dry-run prints",
  ignore: e2eSkipReason(["helm"]) !== undefined,
  fn: async (t) => {
    await using home = await tempDir();

    await t.step("helm lint --strict passes", async () => {
      await helmOk(home.path, ["lint", "--strict", CHART]);
      for (const c of CASES) {
        const file = await valuesFile(home.path, "lint", c.values);
        await helmOk(home.path, ["lint", "--strict", CHART, "-f", file]);
      }
    });

    await t.step("bad values are refused with a clear message", async () => {
      const bad: [string, RegExp][] = [
        ["defaultPolicies.defaultAction=bogus", /defaultAction.*one of 'allow', 'warn', 'deny'/],
        ["webhook.timeoutSeconds=31", /timeoutSeconds.*maximum: got 31, want 30/],
        ["webhook.timeoutSeconds=0", /timeoutSeconds.*minimum: got 0, want 1/],
        ["replicas=0", /replicas.*minimum: got 0, want 1/],
        ["webhook.failurePolicy=Maybe", /failurePolicy.*one of 'Fail', 'Ignore'/],
        ["tls.mode=vault", /tls\/mode.*one of 'selfSigned', 'provided', 'certManager'/],
        ["tls.mode=provided", /tls\.provided\.caBundle is required with tls\.mode=provided/],
        ["webhook.exemptNamespaceLabel=no-value", /exemptNamespaceLabel.*does not match/],
        ["webhook.exemptNamespaces={Team_A}", /exemptNamespaces\/0.*does not match/],
        ["replica=2", /additional properties 'replica' not allowed/],
        ["lookaside[0].scope=quay.io", /lookaside\/0.*missing property 'url'/],
        ["lookaside[0].url=file:///x,lookaside[0].scope=a", /lookaside\/0\/url.*does not match/],
      ];
      for (const [set, message] of bad) {
        const result = await helm(home.path, ["template", RELEASE, CHART, "--set", set]);
        assert.notEqual(result.code, 0, `--set ${set} was accepted`);
        assert.match(result.stderr, message, `--set ${set}`);
      }
      const lint = await helm(home.path, [
        "lint",
        "--strict",
        CHART,
        "--set",
        "defaultPolicies.defaultAction=bogus",
      ]);
      assert.notEqual(lint.code, 0);
      assert.match(lint.stdout + lint.stderr, /value must be one of 'allow', 'warn', 'deny'/);
    });

    for (const c of CASES) {
      await t.step(`helm template = enable --dry-run: ${c.name}`, async () => {
        const chart = await renderChart(home.path, c.values);
        const enable = await renderEnable(c.flags);
        assertSameObjects(enable, chart, c.name);
        assertHelmLabels(chart);
        const deployment = find(chart, "Deployment", "toolkit-webhook");
        assert.deepEqual(
          (deployment.spec as { selector: unknown }).selector,
          { matchLabels: selectorLabels() },
        );
        if ((c.values.tls as Json | undefined)?.mode === "certManager") {
          const webhook = find(chart, "MutatingWebhookConfiguration", "toolkit-image-security");
          assert.equal(
            (webhook.metadata.annotations as Json)["cert-manager.io/inject-ca-from"],
            `${NAMESPACE}/toolkit-webhook`,
          );
        } else {
          assertChartTls(chart);
        }
      });
    }

    await t.step("tls.mode=provided uses the given Secret and caBundle", async () => {
      const ca = b64decode(
        (find(await renderChart(home.path, {}), "Secret", "toolkit-webhook-tls").data as Json)[
          "ca.crt"
        ] as string,
      );
      const enable = await renderEnable({});
      const enableWithoutSecret = enable.filter((o) =>
        key(o) !== key(find(enable, "Secret", "toolkit-webhook-tls"))
      );
      for (const caBundle of [ca, b64encode(ca)]) {
        const chart = await renderChart(home.path, {
          tls: { mode: "provided", provided: { caBundle } },
        });
        assertSameObjects(enableWithoutSecret, chart, "provided TLS");
        const webhook = find(chart, "MutatingWebhookConfiguration", "toolkit-image-security");
        const clientConfig = (webhook.webhooks as { clientConfig: Json }[])[0]!.clientConfig;
        assert.equal(clientConfig.caBundle, b64encode(ca));
      }
      const other = await renderChart(home.path, {
        tls: { mode: "provided", provided: { secretName: "corp-webhook-tls", caBundle: ca } },
      });
      const volumes = ((find(other, "Deployment", "toolkit-webhook").spec as Json).template as {
        spec: { volumes: { name: string; secret?: { secretName: string } }[] };
      }).spec.volumes;
      assert.equal(volumes.find((v) => v.name === "tls")?.secret?.secretName, "corp-webhook-tls");
    });

    await t.step("clientAuth = enable --client-auth (its client CA Secret aside)", async () => {
      const chart = await renderChart(home.path, { clientAuth: { enabled: true } });
      const enable = await renderEnable({ "client-auth": true });
      const clientCaSecret = find(enable, "Secret", "toolkit-webhook-client-ca");
      assert.deepEqual(Object.keys(clientCaSecret.data as Json).sort(), ["ca.crt", "ca.key"]);
      assertSameObjects(
        enable.filter((o) => key(o) !== key(clientCaSecret)),
        chart,
        "client authentication",
      );
      assertChartTls(chart);
      const container = podSpecOf(chart).containers[0]!;
      assert.ok((container.args as string[]).includes("--client-ca=/etc/toolkit/client-ca/ca.crt"));
      assert.ok((container.args as string[]).includes("--probe-port=8444"));
      for (const probe of ["livenessProbe", "readinessProbe"]) {
        assert.equal(((container[probe] as Json).httpGet as Json).port, "probes", probe);
      }
      const service = find(chart, "Service", "toolkit-webhook").spec as { ports: Json[] };
      assert.deepEqual(service.ports.map((p) => [p.name, p.port]), [["https", 443], [
        "probes",
        8444,
      ]]);
      assert.deepEqual(chart.filter((o) => o.kind === "NetworkPolicy"), []);

      // The client CA from a ConfigMap, another entry and another probe port.
      const fromConfigMap = podSpecOf(
        await renderChart(home.path, {
          clientAuth: {
            enabled: true,
            ca: { kind: "ConfigMap", name: "corp-api-server-ca", key: "bundle.pem" },
            probePort: 9090,
          },
        }),
      );
      const volume = fromConfigMap.volumes.find((v) => v.name === "client-ca");
      assert.deepEqual(volume, {
        name: "client-ca",
        configMap: {
          name: "corp-api-server-ca",
          items: [{ key: "bundle.pem", path: "ca.crt" }],
        },
      });
      assert.ok((fromConfigMap.containers[0]!.args as string[]).includes("--probe-port=9090"));
    });

    await t.step("networkPolicy: the webhook port from the given peers only", async () => {
      const apiServer = [{ ipBlock: { cidr: "10.0.0.0/24" } }];
      const prometheus = [{ namespaceSelector: { matchLabels: { name: "monitoring" } } }];
      const policyOf = async (values: Json) =>
        find(await renderChart(home.path, values), "NetworkPolicy", "toolkit-webhook");
      const withProbes = await policyOf({
        clientAuth: { enabled: true },
        networkPolicy: { enabled: true, webhookFrom: apiServer, probesFrom: prometheus },
      });
      assert.deepEqual(withProbes.spec, {
        podSelector: { matchLabels: selectorLabels() },
        policyTypes: ["Ingress"],
        ingress: [
          { ports: [{ port: 8443, protocol: "TCP" }], from: apiServer },
          { ports: [{ port: 8444, protocol: "TCP" }], from: prometheus },
        ],
      });
      const anyoneProbes = await policyOf({
        clientAuth: { enabled: true },
        networkPolicy: { enabled: true, webhookFrom: apiServer },
      });
      assert.deepEqual((anyoneProbes.spec as { ingress: Json[] }).ingress[1], {
        ports: [{ port: 8444, protocol: "TCP" }],
      });
      const withoutClientAuth = await policyOf({
        networkPolicy: { enabled: true, webhookFrom: apiServer },
      });
      assert.equal((withoutClientAuth.spec as { ingress: Json[] }).ingress.length, 1);
      const missing = await helm(home.path, [
        "template",
        RELEASE,
        CHART,
        "--set",
        "networkPolicy.enabled=true",
      ]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /networkPolicy\.webhookFrom is required/);
      for (
        const [set, message] of [
          ["clientAuth.ca.kind=Vault", /clientAuth\/ca\/kind.*one of 'Secret', 'ConfigMap'/],
          ["clientAuth.probePort=8443", /probePort/],
          ["clientAuth.probePort=0", /probePort.*minimum/],
        ] as const
      ) {
        const result = await helm(home.path, ["template", RELEASE, CHART, "--set", set]);
        assert.notEqual(result.code, 0, `--set ${set} was accepted`);
        assert.match(result.stderr, message, `--set ${set}`);
      }
    });

    await t.step("values enable has no flag for", async () => {
      const digest = `sha256:${"ab".repeat(32)}`;
      const chart = await renderChart(home.path, {
        image: { digest, pullPolicy: "Always" },
        webhook: { failurePolicy: "Ignore" },
        defaultPolicies: { enabled: false },
        resources: { limits: null },
        nodeSelector: { "kubernetes.io/os": "linux" },
        tolerations: [{ key: "dedicated", operator: "Exists", effect: "NoSchedule" }],
        affinity: { podAntiAffinity: null },
        priorityClassName: "",
      });
      const pod = ((find(chart, "Deployment", "toolkit-webhook").spec as Json).template as {
        spec: Json & { containers: Json[] };
      }).spec;
      assert.equal(pod.containers[0]!.image, `${TOOLKIT_IMAGE_REPOSITORY}@${digest}`);
      assert.equal(pod.containers[0]!.imagePullPolicy, "Always");
      assert.deepEqual(pod.containers[0]!.resources, { requests: { cpu: "50m", memory: "64Mi" } });
      assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
      assert.deepEqual(pod.tolerations, [
        { key: "dedicated", operator: "Exists", effect: "NoSchedule" },
      ]);
      assert.equal(pod.affinity, undefined);
      assert.equal(pod.priorityClassName, undefined);
      const webhook = find(chart, "MutatingWebhookConfiguration", "toolkit-image-security");
      assert.equal((webhook.webhooks as Json[])[0]!.failurePolicy, "Ignore");
      assert.deepEqual(chart.filter((o) => o.kind === "ClusterImagePolicy"), []);
      find(chart, "Secret", "toolkit-release-key");
    });

    await t.step(
      "the memory limit is the memory budget's, with and without the reports",
      async () => {
        // lib/admission/memory_budget.ts: the reports' bounds need 352Mi, the admission path 288Mi.
        const memoryLimit = async (values: Json) =>
          ((podSpecOf(await renderChart(home.path, values)).containers[0]!.resources as Json)
            .limits as Json | undefined)?.memory;
        assert.equal(await memoryLimit({}), webhookMemoryLimitQuantity(true));
        assert.equal(await memoryLimit({}), "352Mi");
        assert.equal(await memoryLimit({ policyReports: { enabled: false } }), "288Mi");
        assert.equal(
          await memoryLimit({ policyReports: { enabled: false } }),
          webhookMemoryLimitQuantity(false),
        );
        // A limit given wins, either way; no limits stay none.
        assert.equal(await memoryLimit({ resources: { limits: { memory: "1Gi" } } }), "1Gi");
        assert.equal(
          await memoryLimit({
            policyReports: { enabled: false },
            resources: { limits: { cpu: "1", memory: "200Mi" } },
          }),
          "200Mi",
        );
        assert.equal(await memoryLimit({ resources: { limits: null } }), undefined);
        // A larger bound of the copies raises the limit by as much, and reaches the webhook.
        const larger = podSpecOf(
          await renderChart(home.path, { policyReports: { maxCopyMiB: 64 } }),
        )
          .containers[0]!;
        assert.equal(((larger.resources as Json).limits as Json).memory, "384Mi");
        assert.equal(webhookMemoryLimitQuantity(true, 64 * 2 ** 20), "384Mi");
        assert.ok((larger.args as string[]).includes(`--reports-max-copy-bytes=${64 * 2 ** 20}`));
        // enable runs the reports: its Deployment has the limit with them.
        const enable = await renderEnable({});
        assert.equal(
          ((podSpecOf(enable).containers[0]!.resources as Json).limits as Json).memory,
          "352Mi",
        );
      },
    );
  },
});

/** The pod spec of the chart's Deployment. */
function podSpecOf(chart: readonly Obj[]): {
  containers: Json[];
  volumes: (Json & { name: string })[];
} {
  return ((find(chart, "Deployment", "toolkit-webhook").spec as Json).template as {
    spec: { containers: Json[]; volumes: (Json & { name: string })[] };
  }).spec;
}

async function servingTls(cluster: TestCluster): Promise<Record<string, string>> {
  const secret = JSON.parse(
    await kubectlOk(cluster, [
      "get",
      "secret",
      "-n",
      NAMESPACE,
      "toolkit-webhook-tls",
      "-o",
      "json",
    ]),
  );
  return secret.data;
}

async function caBundleInCluster(cluster: TestCluster): Promise<string> {
  const hook = JSON.parse(
    await kubectlOk(cluster, [
      "get",
      "mutatingwebhookconfiguration",
      "toolkit-image-security",
      "-o",
      "json",
    ]),
  );
  return hook.webhooks[0].clientConfig.caBundle;
}

/**
 * The webhook's own TLS listener serves the certificate and key of `data`, and a client that
 * trusts only `caBundle` accepts it for the Service's name.
 */
async function assertServes(
  dir: string,
  data: Record<string, string>,
  caBundle: string,
): Promise<void> {
  await Deno.writeTextFile(`${dir}/tls.crt`, b64decode(data["tls.crt"]!));
  await Deno.writeTextFile(`${dir}/tls.key`, b64decode(data["tls.key"]!));
  await using server = await startTlsServer({
    hostname: "127.0.0.1",
    port: 0,
    certFile: `${dir}/tls.crt`,
    keyFile: `${dir}/tls.key`,
    reloadIntervalMs: 3_600_000,
    limits: { maxBodyBytes: 1024 },
  }, () => Promise.resolve({ status: 200, contentType: "text/plain", body: "ok" }));
  const tcp = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const tls = await Deno.startTls(tcp, {
    hostname: SERVICE_DNS_NAME,
    caCerts: [b64decode(caBundle)],
  });
  try {
    await tls.handshake();
  } finally {
    tls.close();
  }
}

Deno.test({
  name: "the chart passes a server-side dry run, installs, upgrades and uninstalls",
  ignore: e2eSkipReason(["helm", "kubectl", "kube-apiserver", "etcd", "openssl"]) !== undefined,
  fn: async (t) => {
    await using home = await tempDir();
    await using cluster = await startCluster({ crds: ["toolkit", "cert-manager"] });
    const kubeconfig = cluster.kubeconfigPath;

    await t.step("both renders pass a server-side dry run", async () => {
      // A server-side dry run does not create the namespace its objects are in.
      await kubectlOk(cluster, ["create", "namespace", NAMESPACE]);
      for (const c of CASES) {
        // cert-manager's real CRDs validate the Issuer and Certificate.
        const renders = [
          ["chart", await renderChartText(home.path, c.values)],
          ["enable", await renderEnableText(c.flags)],
        ] as const;
        for (const [who, text] of renders) {
          const result = await cluster.kubectl(["apply", "--dry-run=server", "-f", "-"], {
            stdin: text,
          });
          assert.equal(result.code, 0, `${who}, ${c.name}: ${result.stderr}`);
        }
      }
    });

    await t.step(
      "client authentication and the NetworkPolicy pass a server-side dry run",
      async () => {
        const renders = [
          [
            "chart",
            await renderChartText(home.path, {
              clientAuth: { enabled: true },
              networkPolicy: {
                enabled: true,
                webhookFrom: [{ ipBlock: { cidr: "10.0.0.0/24" } }],
                probesFrom: [{ namespaceSelector: {} }],
              },
            }),
          ],
          ["enable", await renderEnableText({ "client-auth": true })],
        ] as const;
        for (const [who, text] of renders) {
          const result = await cluster.kubectl(["apply", "--dry-run=server", "-f", "-"], {
            stdin: text,
          });
          assert.equal(result.code, 0, `${who}: ${result.stderr}`);
        }
      },
    );

    const helmArgs = ["--kubeconfig", kubeconfig, "--namespace", NAMESPACE];
    let installedTls: Record<string, string> = {};

    await t.step("helm install: status reports every object", async () => {
      const installed = await helmOk(home.path, [
        ...helmArgs,
        "install",
        RELEASE,
        CHART,
        "--create-namespace",
        "--wait=false",
      ]);
      // NOTES.txt looks the signing keys Secret up, like enable's advice.
      assert.match(installed, /image-signing-keys", which does not exist/);
      const { io, ctx } = context();
      assert.equal(await runStatus({ kubeconfig, output: "json" }, ctx), 0, io.err());
      const status = JSON.parse(io.out());
      assert.equal(status.enabled, true);
      assert.deepEqual(
        status.objects.filter((o: { present: boolean }) => !o.present),
        [],
        "objects status reports missing",
      );
      assert.equal(status.endpoint, `service ${NAMESPACE}/toolkit-webhook/admit`);
      assert.equal(status.image, DEFAULT_IMAGE);
      assert.equal(status.replicas.desired, 3);
      assert.deepEqual(status.certificate.names, [
        SERVICE_DNS_NAME,
        `${SERVICE_DNS_NAME}.cluster.local`,
      ]);
      assert.ok(status.certificate.daysLeft > 300);
      assert.deepEqual(status.policies[""].sort(), [
        "default",
        "kubernetes-system-images",
        "toolkit-release",
      ]);
      installedTls = await servingTls(cluster);
      assert.equal(await caBundleInCluster(cluster), installedTls["ca.crt"]);
      await assertServes(home.path, installedTls, await caBundleInCluster(cluster));
    });

    await t.step("helm upgrade keeps the serving certificate", async () => {
      await helmOk(home.path, [
        ...helmArgs,
        "upgrade",
        RELEASE,
        CHART,
        "--set",
        "replicas=2",
        "--wait=false",
      ]);
      const replicas = await kubectlOk(cluster, [
        "get",
        "deployment",
        "-n",
        NAMESPACE,
        "toolkit-webhook",
        "-o",
        "jsonpath={.spec.replicas}",
      ]);
      assert.equal(replicas, "2", "the upgrade was applied");
      assert.deepEqual(await servingTls(cluster), installedTls);
      assert.equal(await caBundleInCluster(cluster), installedTls["ca.crt"]);
    });

    await t.step("rotate-certs renews a Helm install's certificate; upgrades keep it", async () => {
      const { io, ctx } = context();
      assert.equal(await runRotateCerts({ kubeconfig }, ctx), 0, io.err());
      const rotated = await servingTls(cluster);
      assert.notEqual(rotated["tls.crt"], installedTls["tls.crt"]);
      await helmOk(home.path, [...helmArgs, "upgrade", RELEASE, CHART, "--wait=false"]);
      assert.deepEqual(await servingTls(cluster), rotated);
      // The upgrade trusts the new CA alone (rotate-certs had added it beside the old one).
      assert.equal(await caBundleInCluster(cluster), rotated["ca.crt"]);
      await assertServes(home.path, rotated, await caBundleInCluster(cluster));
    });

    await t.step("helm uninstall removes the webhook configuration", async () => {
      await helmOk(home.path, [...helmArgs, "uninstall", RELEASE]);
      const hooks = await kubectlOk(cluster, ["get", "mutatingwebhookconfiguration", "-o", "name"]);
      assert.equal(hooks.trim(), "");
      const { io, ctx } = context();
      // Nothing is installed in the namespace any more: status says so, and exits 1.
      assert.equal(await runStatus({ kubeconfig, output: "json" }, ctx), 1, io.err());
      assert.equal(JSON.parse(io.out()).enabled, false);
      assert.equal(JSON.parse(io.out()).installed, false);
      assert.match(io.err(), /not installed in namespace "toolkit-system"/);
      // Helm never deletes what crds/ installed: the policy CRDs (and others' policies) stay.
      const crds = await kubectlOk(cluster, ["get", "crd", "-o", "name"]);
      assert.match(crds, /clusterimagepolicies\.toolkit\.dev/);
    });
  },
});
