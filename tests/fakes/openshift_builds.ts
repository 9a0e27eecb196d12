/**
 * STAND-INS for OpenShift's build and template APIs, for tests: OpenShift cannot run here, and
 * `github.com/openshift/api` publishes no CRDs for `build.openshift.io` and
 * `template.openshift.io` (they are served by OpenShift's own API server, not as CRDs). So:
 *
 * - `BUILD_CRDS`: stand-in CRDs of BuildConfig, Build (`build.openshift.io/v1`) and Template
 *   (`template.openshift.io/v1`) with their real group, version, names and scope, and an open schema;
 * - `startBuildApiProxy`: an HTTPS proxy in front of the test API server (its certificate issued by
 *   the cluster's CA for 127.0.0.1) that forwards every request with the admin's client certificate,
 *   and answers `POST …/buildconfigs/<name>/instantiate` as OpenShift does: 404 without the
 *   BuildConfig, else a new Build `<name>-<n>` (created as an object, so the test can read it) in the
 *   201 answer. A kubeconfig pointing at the proxy is written for the command under test.
 *
 * @module
 */
import { parse } from "yaml";
import { issueCert, LOOPBACK_SANS } from "../env/pki.ts";
import type { TestCluster } from "../env/cluster.ts";

function crd(group: string, kind: string, plural: string) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      }],
    },
  };
}

/** Stand-in CRDs of BuildConfig, Build and Template. */
export const BUILD_CRDS = [
  crd("build.openshift.io", "BuildConfig", "buildconfigs"),
  crd("build.openshift.io", "Build", "builds"),
  crd("template.openshift.io", "Template", "templates"),
];

/** A running proxy. */
export interface BuildApiProxy extends AsyncDisposable {
  /** `https://127.0.0.1:PORT`: the API server URL the command under test uses. */
  readonly server: string;
  /** A kubeconfig for the proxy (the admin's credentials). */
  readonly kubeconfigPath: string;
  /** The builds started through `instantiate`. */
  readonly instantiated: { namespace: string; buildConfig: string; build: string }[];
}

/** Starts the proxy in front of `cluster`. */
export async function startBuildApiProxy(cluster: TestCluster): Promise<BuildApiProxy> {
  const config = parse(await Deno.readTextFile(cluster.kubeconfigPath)) as {
    users: { user: Record<string, string> }[];
    clusters: { cluster: Record<string, string> }[];
  };
  const user = config.users[0]!.user;
  const cert = atob(user["client-certificate-data"]!);
  const key = atob(user["client-key-data"]!);
  const upstream = Deno.createHttpClient({ caCerts: [cluster.caCertPem], cert, key });
  const serving = await issueCert(cluster.dir, cluster.ca, {
    name: "build-proxy",
    cn: "build-proxy",
    sans: LOOPBACK_SANS,
  });
  const instantiated: BuildApiProxy["instantiated"] = [];
  const forward = (path: string, init: RequestInit) =>
    fetch(`${cluster.server}${path}`, { ...init, client: upstream } as RequestInit);

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: serving.certPem,
    key: serving.keyPem,
    onListen: () => {},
  }, async (req) => {
    const url = new URL(req.url);
    const m =
      /^\/apis\/build\.openshift\.io\/v1\/namespaces\/([^/]+)\/buildconfigs\/([^/]+)\/instantiate$/
        .exec(url.pathname);
    if (m && req.method === "POST") {
      const [, namespace, name] = m as unknown as [string, string, string];
      const bc = await forward(url.pathname.replace(/\/instantiate$/, ""), { method: "GET" });
      if (bc.status !== 200) return new Response(await bc.text(), { status: bc.status });
      await bc.body?.cancel();
      const build = `${name}-${instantiated.filter((b) => b.buildConfig === name).length + 1}`;
      const created = await forward(`/apis/build.openshift.io/v1/namespaces/${namespace}/builds`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          apiVersion: "build.openshift.io/v1",
          kind: "Build",
          metadata: { name: build, namespace, labels: { buildconfig: name } },
          spec: { strategy: { type: "JenkinsPipeline" } },
        }),
      });
      instantiated.push({ namespace, buildConfig: name, build });
      return new Response(await created.text(), {
        status: created.status,
        headers: { "Content-Type": "application/json" },
      });
    }
    const headers = new Headers(req.headers);
    headers.delete("authorization");
    headers.delete("host");
    const answer = await forward(`${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      ...(req.body ? { body: await req.arrayBuffer() } : {}),
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  const proxyUrl = `https://127.0.0.1:${server.addr.port}`;
  const kubeconfigPath = `${cluster.dir}/kubeconfig-build-proxy`;
  const text = await Deno.readTextFile(cluster.kubeconfigPath);
  await Deno.writeTextFile(kubeconfigPath, text.replaceAll(cluster.server, proxyUrl));
  return {
    server: proxyUrl,
    kubeconfigPath,
    instantiated,
    [Symbol.asyncDispose]: async () => {
      await server.shutdown();
      upstream.close();
    },
  };
}
