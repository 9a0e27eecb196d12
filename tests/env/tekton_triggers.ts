/**
 * Tekton Triggers' own code for tests, built by `tests/env/provision.sh` from
 * `github.com/tektoncd/triggers`:
 *
 * - `cel-eval` and `binding-eval`, Tekton's evaluators of a CEL filter and of a TriggerBinding
 *   against a raw HTTP request (what the `cel` interceptor and the sink do with a delivery);
 * - the core interceptors (`cel`, `github`, `gitlab`, `bitbucket`, `slack`) and an EventListener
 *   sink, run as processes against the test API server. No Triggers controller or admission
 *   webhook runs, so this module does their part: the `tekton-pipelines` namespace, the empty
 *   Secret the interceptors fill with their certificate, and the ClusterInterceptors (labelled
 *   `server/type: https` as in Tekton's release: the sink refuses to start without one) with their
 *   URL set in the spec and, through the status subresource, in `status.address.url`. Interceptor
 *   references must say `kind: ClusterInterceptor` (no webhook defaults it). The cluster needs the
 *   `tekton` CRDs (`startCluster({ crds: ["tekton"] })`); the Triggers CRDs as published in the
 *   module (v0.34.0) configure no conversion webhook, so they are installed as they are.
 *
 * The interceptors listen on port 8443 of every address: the port is a constant in Tekton's
 * `cmd/interceptors` with no flag or variable to change it. So one interceptors process runs at a
 * time on the machine: {@link startInterceptors} holds an exclusive lock on
 * `$TMPDIR/toolkit-tekton-interceptors-8443.lock` until it stops, and others wait for it.
 *
 * @module
 */
import type { TestCluster } from "./cluster.ts";
import { kubectlOk } from "./cluster.ts";
import { freePort, type ManagedProcess, run, startProcess, waitFor } from "./process.ts";
import { requireTool } from "./tools.ts";

/** The namespace Tekton Triggers runs in (its `SYSTEM_NAMESPACE`). */
export const TRIGGERS_SYSTEM_NAMESPACE = "tekton-pipelines";
/** The fixed port of Tekton's core interceptors. */
export const INTERCEPTORS_PORT = 8443;
/** The ClusterInterceptors the core interceptors serve and this module registers. */
export const CORE_INTERCEPTORS = ["cel", "github", "gitlab", "bitbucket", "slack"] as const;

const INTERCEPTORS_SECRET = "tekton-triggers-core-interceptors-certs";
// The interceptors make their certificate for this service name; the sink checks it.
const INTERCEPTORS_HOST = "localhost";
const TRIGGERS_ENV = {
  SYSTEM_NAMESPACE: TRIGGERS_SYSTEM_NAMESPACE,
  METRICS_DOMAIN: "tekton.dev/triggers",
};

/** An HTTP request as a webhook delivers it. */
export interface HttpRequest {
  /** Default `POST`. */
  readonly method?: string;
  /** Default `/`. */
  readonly path?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * The raw form of `request` that `cel-eval` and `binding-eval` read: request line, headers,
 * `Content-Length`, a blank line and the body. Lines end in LF: the evaluators split the head from
 * the body at the first blank line.
 */
export function rawHttpRequest(request: HttpRequest): string {
  // The length is the body's own; a recorded request keeps its Host.
  const entries = Object.entries(request.headers).filter(([name]) =>
    !["content-length", "transfer-encoding"].includes(name.toLowerCase())
  );
  const hasHost = entries.some(([name]) => name.toLowerCase() === "host");
  return [
    `${request.method ?? "POST"} ${request.path ?? "/"} HTTP/1.1`,
    ...(hasHost ? [] : ["Host: eventlistener.test"]),
    ...entries.map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${new TextEncoder().encode(request.body).length}`,
    "",
    request.body,
  ].join("\n");
}

async function withFiles<T>(
  files: Record<string, string>,
  use: (paths: Record<string, string>) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-triggers-eval-" });
  try {
    const paths: Record<string, string> = {};
    for (const [name, content] of Object.entries(files)) {
      paths[name] = `${dir}/${name}`;
      await Deno.writeTextFile(paths[name], content);
    }
    return await use(paths);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** What Tekton's `cel-eval` printed for `expression` on `request` (`true`, `false`, a value). */
export async function celEval(expression: string, request: HttpRequest): Promise<string> {
  const binary = requireTool("cel-eval");
  return await withFiles(
    { "filter.cel": expression, "request.http": rawHttpRequest(request) },
    async (p) => {
      const r = await run(binary, ["-e", p["filter.cel"]!, "-r", p["request.http"]!]);
      if (r.code !== 0) throw new Error(`cel-eval failed: ${(r.stderr || r.stdout).trim()}`);
      return r.stdout.trim();
    },
  );
}

/**
 * The params Tekton's `binding-eval` resolves from the TriggerBinding `bindingYaml` on `request`.
 * Give one binding: binding-eval decodes several documents into one object, so only the last
 * counts.
 */
export async function bindingEval(
  bindingYaml: string,
  request: HttpRequest,
): Promise<Record<string, unknown>> {
  const binary = requireTool("binding-eval");
  return await withFiles(
    { "binding.yaml": bindingYaml, "request.http": rawHttpRequest(request) },
    async (p) => {
      const r = await run(binary, ["-b", p["binding.yaml"]!, "-r", p["request.http"]!]);
      if (r.code !== 0) throw new Error(`binding-eval failed: ${(r.stderr || r.stdout).trim()}`);
      const params = JSON.parse(r.stdout) as { name: string; value: unknown }[];
      return Object.fromEntries(params.map((p) => [p.name, p.value]));
    },
  );
}

/** Tekton's core interceptors running against a test cluster. */
export interface TestInterceptors extends AsyncDisposable {
  /** The interceptors process. */
  readonly process: ManagedProcess;
  /** Stops the process and releases the port lock. */
  stop(): Promise<void>;
}

async function applyYaml(cluster: Pick<TestCluster, "kubectl">, yaml: string): Promise<void> {
  await kubectlOk(cluster, ["apply", "-f", "-"], yaml);
}

/**
 * Registers the core ClusterInterceptors and starts Tekton's `interceptors` against `cluster`;
 * resolves once they have filled every ClusterInterceptor's caBundle and answer on
 * https://localhost:8443/ready. Waits while another interceptors process of the machine runs.
 */
export async function startInterceptors(cluster: TestCluster): Promise<TestInterceptors> {
  const binary = requireTool("interceptors");
  await applyYaml(
    cluster,
    [
      "apiVersion: v1",
      "kind: Namespace",
      `metadata: {name: ${TRIGGERS_SYSTEM_NAMESPACE}}`,
      "---",
      "apiVersion: v1",
      "kind: Secret",
      `metadata: {name: ${INTERCEPTORS_SECRET}, namespace: ${TRIGGERS_SYSTEM_NAMESPACE}}`,
      ...CORE_INTERCEPTORS.flatMap((name) => [
        "---",
        "apiVersion: triggers.tekton.dev/v1alpha1",
        "kind: ClusterInterceptor",
        // The sink trusts the caBundles of the ClusterInterceptors labelled https, and refuses
        // to start when there are none (Tekton's own core-interceptors.yaml sets the label).
        `metadata: {name: ${name}, labels: {server/type: https}}`,
        `spec: {clientConfig: {url: "${interceptorUrl(name)}"}}`,
      ]),
      "",
    ].join("\n"),
  );
  // No Triggers controller runs to publish the address: the sink reads it from the status.
  for (const name of CORE_INTERCEPTORS) {
    await kubectlOk(cluster, [
      "patch",
      "clusterinterceptor",
      name,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status: { address: { url: interceptorUrl(name) } } }),
    ]);
  }

  const lock = await lockInterceptorsPort();
  let process: ManagedProcess | undefined;
  const stop = async () => {
    await process?.stop();
    lock.close();
  };
  try {
    process = await startProcess(binary, [`-kubeconfig=${cluster.kubeconfigPath}`], {
      logFile: `${cluster.dir}/tekton-interceptors.log`,
      env: {
        ...TRIGGERS_ENV,
        INTERCEPTOR_TLS_SECRET_NAME: INTERCEPTORS_SECRET,
        INTERCEPTOR_TLS_SVC_NAME: INTERCEPTORS_HOST,
      },
    });
    const started = process;
    let caBundle = "";
    await waitFor("the Tekton interceptors' caBundles", async () => {
      const r = await cluster.kubectl(["get", "clusterinterceptors", "-o", "json"]);
      if (r.code !== 0) return false;
      const items = (JSON.parse(r.stdout) as {
        items: { spec?: { clientConfig?: { caBundle?: string } } }[];
      }).items;
      const bundles = items.map((i) => i.spec?.clientConfig?.caBundle ?? "");
      if (bundles.length < CORE_INTERCEPTORS.length || bundles.some((b) => b === "")) return false;
      caBundle = atob(bundles[0]!);
      return true;
    }, { process: started, timeoutMs: 60_000 });
    const client = Deno.createHttpClient({ caCerts: [caBundle] });
    try {
      await waitFor("the Tekton interceptors", async () => {
        const response = await fetch(
          `https://${INTERCEPTORS_HOST}:${INTERCEPTORS_PORT}/ready`,
          { client },
        );
        await response.body?.cancel();
        return response.status === 200;
      }, { process: started, timeoutMs: 30_000 });
    } finally {
      client.close();
    }
    return { process: started, stop, [Symbol.asyncDispose]: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function interceptorUrl(name: string): string {
  return `https://${INTERCEPTORS_HOST}:${INTERCEPTORS_PORT}/${name}`;
}

/** Takes the machine-wide lock of port 8443 and checks that nothing else listens there. */
async function lockInterceptorsPort(): Promise<Deno.FsFile> {
  const tmp = Deno.env.get("TMPDIR") || "/tmp";
  const file = await Deno.open(`${tmp}/toolkit-tekton-interceptors-${INTERCEPTORS_PORT}.lock`, {
    create: true,
    write: true,
  });
  try {
    await file.lock(true);
    // A stopped interceptors process may leave the port in TIME_WAIT; a listener reuses it.
    await waitFor(`port ${INTERCEPTORS_PORT} to be free for Tekton's interceptors`, () => {
      const listener = Deno.listen({ hostname: "0.0.0.0", port: INTERCEPTORS_PORT });
      listener.close();
      return Promise.resolve(true);
    }, { timeoutMs: 10_000 });
    return file;
  } catch (error) {
    file.close();
    throw error;
  }
}

/** How to start an EventListener sink. */
export interface SinkOptions {
  /** The EventListener's namespace. */
  readonly namespace: string;
  /** The EventListener's name. */
  readonly eventListener: string;
  /**
   * Log at debug level: the sink then also logs, for each event and trigger that an interceptor
   * stops, `interceptor stopped trigger processing` with the event id and the trigger's name
   * (and every delivery's headers and body, secrets included: test deliveries only).
   */
  readonly debugLog?: boolean;
}

/** A running EventListener sink. */
export interface TestSink extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` (no trailing slash): where deliveries are posted. */
  readonly url: string;
  /** The sink process. */
  readonly process: ManagedProcess;
  /** Stops the sink. */
  stop(): Promise<void>;
}

/**
 * Starts Tekton's `eventlistenersink` for one EventListener on a free port against `cluster`; the
 * EventListener and its triggers may be created before or after. Start the interceptors first:
 * the sink waits for their caBundles before it serves.
 */
export async function startEventListenerSink(
  cluster: TestCluster,
  options: SinkOptions,
): Promise<TestSink> {
  const binary = requireTool("eventlistenersink");
  const port = freePort();
  const process = await startProcess(binary, [
    `-el-name=${options.eventListener}`,
    `-el-namespace=${options.namespace}`,
    `-port=${port}`,
    `-kubeconfig=${cluster.kubeconfigPath}`,
  ], {
    logFile: `${cluster.dir}/tekton-sink-${options.namespace}-${options.eventListener}.log`,
    env: {
      ...TRIGGERS_ENV,
      NAMESPACE: options.namespace,
      // knative's adapter reads its logging configuration from this variable only.
      ...(options.debugLog ? { K_LOGGING_CONFIG: '{"loglevel.eventlistener":"debug"}' } : {}),
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => process.stop();
  try {
    await waitFor("the EventListener sink", async () => {
      const response = await fetch(`${url}/live`);
      await response.body?.cancel();
      return response.status === 200;
    }, { process, timeoutMs: 60_000 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, process, stop, [Symbol.asyncDispose]: stop };
}
