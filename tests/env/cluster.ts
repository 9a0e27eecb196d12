/**
 * A real Kubernetes control plane for tests: etcd, kube-apiserver (RBAC on, the `ImageVolume`
 * feature gate on, admission webhooks called by URL) and, when it is provisioned,
 * kube-controller-manager (service accounts, namespaces, Deployments → ReplicaSets → Pods), on
 * free 127.0.0.1 ports in a temporary directory, with an admin kubeconfig. There is no scheduler
 * or kubelet: Pods are admitted and stored, never run.
 *
 * @module
 */
import { freePort, type ManagedProcess, run, startProcess, waitFor } from "./process.ts";
import { type CertFiles, issueCert, makeCA } from "./pki.ts";
import { crdsDir, findTool, requireTool } from "./tools.ts";

/** Groups of CRDs the cluster can be given. */
export type CrdSet = "tekton" | "openshift" | "cert-manager" | "toolkit" | "policyreport";

/** How to start the cluster. */
export interface ClusterOptions {
  /** CRDs to install once the API server is ready. */
  crds?: CrdSet[];
  /**
   * More kube-apiserver flags, e.g. `--oidc-issuer-url=…` for a test identity provider; they
   * come after the defaults, so a later flag wins.
   */
  apiServerFlags?: string[];
}

/** A running control plane. */
export interface TestCluster extends AsyncDisposable {
  /** The admin kubeconfig (client certificate in group system:masters), context `toolkit-test`. */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:PORT`. */
  readonly server: string;
  /** The cluster's temporary directory. */
  readonly dir: string;
  /** The API server's CA certificate (PEM). */
  readonly caCertPem: string;
  /** The cluster's CA (certificate and key files): it signs client certificates the server accepts. */
  readonly ca: CertFiles;
  /** The processes, by name. */
  readonly processes: Readonly<Record<string, ManagedProcess>>;
  /** Runs kubectl against the cluster. */
  kubectl(
    args: string[],
    options?: { stdin?: string },
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Installs a set of CRDs and waits until they are established. */
  installCrds(set: CrdSet): Promise<void>;
  /**
   * Stops kube-apiserver (by process id); etcd and the controller-manager keep running. Clients
   * see connections refused until {@linkcode startApiServer}.
   */
  stopApiServer(): Promise<void>;
  /**
   * Starts kube-apiserver again, on the same port with the same etcd, certificates and flags,
   * and waits until it is ready (a running one is stopped first).
   */
  startApiServer(): Promise<void>;
  /**
   * Deletes the keys under `prefix` straight from etcd (`/registry/secrets/NS/NAME`,
   * `/registry/GROUP/RESOURCE/NAME`) and returns how many went: a change made while
   * kube-apiserver is stopped, as another API server replica would make it. ASCII keys only.
   */
  deleteStored(prefix: string): Promise<number>;
  /** Stops every process (by process id) and removes the directory. */
  stop(): Promise<void>;
}

function kubeconfig(
  server: string,
  ca: CertFiles,
  user: CertFiles,
  name: string,
): string {
  const b64 = (s: string) => btoa(s);
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: toolkit-test",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(ca.certPem)}`,
    "users:",
    `- name: ${name}`,
    "  user:",
    `    client-certificate-data: ${b64(user.certPem)}`,
    `    client-key-data: ${b64(user.keyPem)}`,
    "contexts:",
    "- name: toolkit-test",
    "  context:",
    "    cluster: toolkit-test",
    `    user: ${name}`,
    "    namespace: default",
    "current-context: toolkit-test",
    "",
  ].join("\n");
}

/** Starts etcd, kube-apiserver and (if available) kube-controller-manager. */
export async function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const etcdBin = requireTool("etcd");
  const apiserverBin = requireTool("kube-apiserver");
  const kubectlBin = requireTool("kubectl");
  const controllerManagerBin = findTool("kube-controller-manager");
  const dir = await Deno.makeTempDir({ prefix: "toolkit-cluster-" });
  const processes: Record<string, ManagedProcess> = {};
  const stopAll = async () => {
    for (const name of ["kube-controller-manager", "kube-apiserver", "etcd"]) {
      await processes[name]?.stop();
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    const pki = `${dir}/pki`;
    await Deno.mkdir(pki);
    const ca = await makeCA(pki, "cluster-ca");
    const serving = await issueCert(pki, ca, {
      name: "apiserver",
      cn: "kube-apiserver",
      sans: [
        "IP:127.0.0.1",
        "IP:10.0.0.1",
        "DNS:localhost",
        "DNS:kubernetes",
        "DNS:kubernetes.default",
        "DNS:kubernetes.default.svc",
      ],
    });
    const admin = await issueCert(pki, ca, {
      name: "admin",
      cn: "toolkit-admin",
      org: "system:masters",
      client: true,
    });
    const saKey = `${pki}/sa.key`;
    await run("openssl", ["genrsa", "-out", saKey, "2048"]);
    await run("openssl", ["rsa", "-in", saKey, "-pubout", "-out", `${pki}/sa.pub`]);

    const etcdPort = freePort();
    const peerPort = freePort();
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    processes.etcd = await startProcess(etcdBin, [
      "--name=toolkit-test",
      `--data-dir=${dir}/etcd`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=toolkit-test=http://127.0.0.1:${peerPort}`,
      "--unsafe-no-fsync=true",
      "--log-level=warn",
    ], { logFile: `${dir}/etcd.log` });
    await waitFor("etcd", async () => {
      const response = await fetch(`${etcdUrl}/health`);
      return (await response.json()).health === "true";
    }, { process: processes.etcd, timeoutMs: 30_000 });

    const port = freePort();
    const server = `https://127.0.0.1:${port}`;
    const apiServerArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--cert-dir=${pki}`,
      `--tls-cert-file=${serving.certFile}`,
      `--tls-private-key-file=${serving.keyFile}`,
      `--client-ca-file=${ca.certFile}`,
      `--secure-port=${port}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      "--service-cluster-ip-range=10.0.0.0/24",
      "--service-account-issuer=https://kubernetes.default.svc",
      `--service-account-key-file=${pki}/sa.pub`,
      `--service-account-signing-key-file=${saKey}`,
      "--authorization-mode=RBAC",
      "--allow-privileged=true",
      "--enable-priority-and-fairness=false",
      // Image volumes (spec.volumes[].image) are beta and off by default in 1.33 and 1.34: with
      // the gate off the API server drops them from the Pods and templates it stores (after the
      // mutating webhooks saw them). Turning it on only lets the field through.
      "--feature-gates=ImageVolume=true",
      "--v=0",
      ...(options.apiServerFlags ?? []),
    ];
    const startApiServer = async () => {
      await processes["kube-apiserver"]?.stop();
      processes["kube-apiserver"] = await startProcess(apiserverBin, apiServerArgs, {
        logFile: `${dir}/kube-apiserver.log`,
        // HTTP/1.1 only: when the API server stops it sends GOAWAY on open HTTP/2 connections,
        // and Deno 2.9's node:http2 (used by @kubernetes/client-node through undici) aborts the
        // whole process on it (nghttp2 assertion in find_stream_on_goaway_func).
        env: { GODEBUG: "http2server=0" },
      });
      const client = Deno.createHttpClient({
        caCerts: [ca.certPem],
        cert: admin.certPem,
        key: admin.keyPem,
      });
      try {
        await waitFor("kube-apiserver", async () => {
          const response = await fetch(`${server}/readyz`, { client });
          return (await response.text()) === "ok";
        }, { process: processes["kube-apiserver"], timeoutMs: 90_000 });
      } finally {
        client.close();
      }
    };
    await startApiServer();

    const kubeconfigPath = `${dir}/kubeconfig`;
    await Deno.writeTextFile(kubeconfigPath, kubeconfig(server, ca, admin, "toolkit-admin"), {
      mode: 0o600,
    });

    if (controllerManagerBin) {
      const cm = await issueCert(pki, ca, {
        name: "controller-manager",
        cn: "system:kube-controller-manager",
        client: true,
      });
      const cmConfig = `${dir}/controller-manager.kubeconfig`;
      await Deno.writeTextFile(cmConfig, kubeconfig(server, ca, cm, "controller-manager"));
      processes["kube-controller-manager"] = await startProcess(controllerManagerBin, [
        `--kubeconfig=${cmConfig}`,
        `--authentication-kubeconfig=${cmConfig}`,
        `--authorization-kubeconfig=${cmConfig}`,
        `--service-account-private-key-file=${saKey}`,
        `--root-ca-file=${ca.certFile}`,
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${freePort()}`,
        `--cert-dir=${dir}/cm-certs`,
        "--controllers=*,-nodeipam,-nodelifecycle,-cloud-node-lifecycle,-service-lb-controller",
        "--use-service-account-credentials=true",
        "--v=0",
      ], { logFile: `${dir}/kube-controller-manager.log` });
    }

    const kubectl = (args: string[], opts: { stdin?: string } = {}) =>
      run(kubectlBin, [`--kubeconfig=${kubeconfigPath}`, ...args], opts);

    if (controllerManagerBin) {
      await waitFor("the default service account", async () => {
        return (await kubectl(["get", "serviceaccount", "default", "-n", "default"])).code === 0;
      }, { process: processes["kube-controller-manager"], timeoutMs: 60_000 });
    }

    const installCrds = async (set: CrdSet) => {
      const files = await crdFiles(set);
      for (const file of files) {
        const r = await kubectl(["apply", "--server-side", "-f", file]);
        if (r.code !== 0) throw new Error(`Cannot install CRDs from ${file}: ${r.stderr.trim()}`);
      }
      const r = await kubectl([
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd",
        "--all",
      ]);
      if (r.code !== 0) throw new Error(`CRDs did not become established: ${r.stderr.trim()}`);
    };
    for (const set of options.crds ?? []) await installCrds(set);

    return {
      kubeconfigPath,
      server,
      dir,
      caCertPem: ca.certPem,
      ca,
      processes,
      kubectl,
      installCrds,
      stopApiServer: async () => await processes["kube-apiserver"]?.stop(),
      startApiServer,
      async deleteStored(prefix: string) {
        // etcd's JSON gateway of the KV API: keys are base64, range_end makes it a prefix.
        const end = new TextEncoder().encode(prefix);
        end[end.length - 1] = (end[end.length - 1] ?? 0) + 1;
        const response = await fetch(`${etcdUrl}/v3/kv/deleterange`, {
          method: "POST",
          body: JSON.stringify({
            key: btoa(prefix),
            range_end: btoa(String.fromCharCode(...end)),
          }),
        });
        const answer = await response.json() as { deleted?: string; message?: string };
        if (!response.ok) throw new Error(`etcd refused the deletion: ${answer.message}`);
        return Number(answer.deleted ?? 0);
      },
      stop: stopAll,
      [Symbol.asyncDispose]: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

const TOOLKIT_CRDS = new URL("../../deploy/crds/", import.meta.url);

async function crdFiles(set: CrdSet): Promise<string[]> {
  const dirs: string[] = [];
  if (set === "toolkit") {
    dirs.push(TOOLKIT_CRDS.pathname);
  } else {
    const root = crdsDir();
    if (!root) throw new Error("CRDs are not provisioned: run tests/env/provision.sh");
    if (set === "tekton") dirs.push(`${root}/tekton-pipelines`, `${root}/tekton-triggers`);
    else dirs.push(`${root}/${set}`);
  }
  const files: string[] = [];
  for (const dir of dirs) {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && /\.ya?ml$/.test(entry.name)) files.push(`${dir}/${entry.name}`);
    }
  }
  if (files.length === 0) throw new Error(`No CRD files for "${set}" in ${dirs.join(", ")}`);
  return files.sort();
}

/** Runs kubectl against `cluster` and fails with its stderr unless it succeeds. */
export async function kubectlOk(
  cluster: Pick<TestCluster, "kubectl">,
  args: string[],
  stdin?: string,
): Promise<string> {
  const r = await cluster.kubectl(args, stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${r.stderr.trim()}`);
  return r.stdout;
}
