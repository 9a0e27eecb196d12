/**
 * The interactive paths on a real terminal: toolkit runs as a process inside a tmux pane (its
 * own tmux server on a private socket, killed at the end), the test reads the screen and types
 * keys. Covers the `endpoints` menu (pick one: printed and opened; Exit: the whole list) and the
 * `git-secret` username and token prompts. stdout goes to a file, so the data and the menu are
 * seen apart.
 */
import assert from "node:assert/strict";
import { e2eSkipReason, startCluster } from "../env/mod.ts";
import { findTool } from "../env/tools.ts";
import {
  apply,
  copyKubeconfig,
  decodeData,
  getJson,
  gitRepo,
  kubectl,
  recordingBrowser,
  tempDir,
} from "./helpers.ts";

const DENO = Deno.execPath();
const MAIN = new URL("../../cli/main.ts", import.meta.url).pathname;

interface Terminal extends AsyncDisposable {
  /** Runs a shell command line in a new window; resolves with its exit status and stdout. */
  run(env: Record<string, string>, args: string[]): Promise<void>;
  /** Waits until the screen shows `text`. */
  waitFor(text: string | RegExp): Promise<string>;
  /** Types keys (tmux key names, or literal text with `literal`). */
  keys(keys: string[], literal?: boolean): Promise<void>;
  /** Waits for the command to end; its exit status and stdout. */
  result(): Promise<{ status: number; out: string }>;
}

async function tmux(socket: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", {
    args: ["-L", socket, "-f", "/dev/null", ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(`tmux ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function terminal(dir: string): Terminal {
  const socket = `toolkit-test-${crypto.randomUUID()}`;
  const outFile = `${dir}/stdout`;
  const rcFile = `${dir}/rc`;
  let session = 0;
  const screen = () => tmux(socket, ["capture-pane", "-p", "-t", `t${session}`]);
  const until = async <T>(what: string, check: () => Promise<T | undefined>): Promise<T> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for ${what}; screen:\n${await screen()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return {
    async run(env, args) {
      await Deno.remove(rcFile).catch(() => {});
      const vars = Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`).join(" ");
      const line = `env ${vars} ${quote(DENO)} run -A ${quote(MAIN)} ${
        args.map(quote).join(" ")
      } > ${quote(outFile)}; echo $? > ${quote(rcFile)}; sleep 600`;
      // A new session per command; the previous one is closed after, so the server stays up.
      const previous = session++;
      await tmux(socket, ["new-session", "-d", "-s", `t${session}`, "-x", "150", "-y", "40", line]);
      if (previous > 0) await tmux(socket, ["kill-session", "-t", `t${previous}`]);
    },
    waitFor(text) {
      return until(String(text), async () => {
        const s = await screen();
        return (typeof text === "string" ? s.includes(text) : text.test(s)) ? s : undefined;
      });
    },
    async keys(keys, literal = false) {
      await tmux(socket, ["send-keys", "-t", `t${session}`, ...(literal ? ["-l"] : []), ...keys]);
    },
    async result() {
      const status = await until("the command to end", async () => {
        const text = await Deno.readTextFile(rcFile).catch(() => "");
        return text.trim() === "" ? undefined : Number(text.trim());
      });
      return { status, out: await Deno.readTextFile(outFile) };
    },
    async [Symbol.asyncDispose]() {
      await tmux(socket, ["kill-server"]).catch(() => {});
    },
  };
}

Deno.test({
  name: "interactive menu and prompts on a real terminal",
  ignore: e2eSkipReason(["kube-apiserver", "etcd", "kubectl"]) !== undefined || !findTool("tmux"),
  fn: async (t) => {
    await using cluster = await startCluster();
    await using dir = await tempDir();
    const kubeconfig = await copyKubeconfig(cluster, dir.path);
    await using term = terminal(dir.path);
    const browser = await recordingBrowser(dir.path);
    const env = { KUBECONFIG: kubeconfig, BROWSER: browser.path, TERM: "xterm-256color" };
    await kubectl(cluster, ["create", "namespace", "apps"]);
    const ingress = (name: string, host: string) => ({
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name, namespace: "apps" },
      spec: {
        rules: [{
          host,
          http: {
            paths: [{
              path: "/",
              pathType: "Prefix",
              backend: { service: { name: "s", port: { number: 80 } } },
            }],
          },
        }],
      },
    });
    await apply(
      cluster,
      ingress("alpha", "alpha.example.com"),
      ingress("beta", "beta.example.com"),
    );

    await t.step("endpoints: picking an endpoint prints it and opens it", async () => {
      await term.run(env, ["endpoints", "-n", "apps"]);
      await term.waitFor("Select one to open it in the browser");
      await term.waitFor("beta - http://beta.example.com");
      await term.keys(["Down", "Down"]);
      await term.keys(["Enter"]);
      const r = await term.result();
      assert.equal(r.status, 0);
      assert.equal(r.out, "http://beta.example.com\n");
      assert.deepEqual(await browser.calls(), ["http://beta.example.com"]);
    });

    await t.step("endpoints: Exit prints the whole list", async () => {
      await term.run(env, ["endpoints", "-n", "apps"]);
      await term.waitFor("alpha - http://alpha.example.com");
      await term.keys(["Enter"]);
      const r = await term.result();
      assert.equal(r.status, 0);
      assert.equal(r.out, "  alpha - http://alpha.example.com\n  beta - http://beta.example.com\n");
      assert.equal((await browser.calls()).length, 1);
    });

    await t.step("git-secret asks for the username and token on a terminal", async () => {
      const repo = await gitRepo(`${dir.path}/repo`, "https://github.com/org/app.git");
      await term.run(env, ["git-secret", "-n", "apps", "-d", repo]);
      await term.waitFor("Provide the git username:");
      await term.keys(["alice"], true);
      await term.keys(["Enter"]);
      await term.waitFor("Provide the git password or personal access token:");
      await term.keys(["t0ken"], true);
      await term.keys(["Enter"]);
      const r = await term.result();
      assert.equal(r.status, 0);
      const screen = await term.waitFor("Git repository in apps");
      assert.doesNotMatch(screen, /t0ken/);
      const secret = await getJson(cluster, ["secret", "git-credentials", "-n", "apps"]);
      assert.deepEqual(decodeData(secret?.data), { username: "alice", password: "t0ken" });
    });
  },
});
