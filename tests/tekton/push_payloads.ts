/**
 * The recorded push deliveries of `tests/fixtures/push_payloads/` (one raw HTTP request per
 * flavour, see its README), and changes to them made the way the host would make them: a
 * different body re-signed with a secret exactly as that host signs (or carries) it.
 *
 * @module
 */
import { createHmac } from "node:crypto";
import type { GitFlavour } from "../../lib/githost/flavour.ts";
import { URL_TOKEN_PARAMETER } from "../../lib/tekton/mod.ts";
import type { HttpRequest } from "../env/mod.ts";

/** The webhook secret the recorded deliveries were signed with. */
export const FIXTURE_SECRET = "toolkit-fixture-secret";

const FIXTURES = new URL("../fixtures/push_payloads/", import.meta.url);

/** A recorded delivery and what a trigger for it must yield. */
export interface RecordedPush {
  readonly flavour: GitFlavour;
  readonly request: HttpRequest;
  /** The repository path and branch the push went to. */
  readonly repoPath: string;
  readonly branch: string;
  /** The clone URL and the commit the binding must yield. */
  readonly gitUrl: string;
  readonly revision: string;
}

/**
 * The facts of each recorded delivery (see the README beside the files); the Gitea delivery is
 * real, so its URL has the port of the Gitea that recorded it.
 */
const RECORDED: Readonly<Record<GitFlavour, Omit<RecordedPush, "flavour" | "request">>> = {
  github: {
    repoPath: "octo-org/demo-app",
    branch: "main",
    gitUrl: "https://github.com/octo-org/demo-app.git",
    revision: "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
  },
  ghe: {
    repoPath: "octo-org/demo-app",
    branch: "main",
    gitUrl: "https://ghe.example.com/octo-org/demo-app.git",
    revision: "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
  },
  gitlab: {
    repoPath: "platform/backend/demo-app",
    branch: "main",
    gitUrl: "https://gitlab.example.com/platform/backend/demo-app.git",
    revision: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
  },
  gitea: {
    repoPath: "toolkit-admin/demo-app",
    branch: "main",
    gitUrl: "http://127.0.0.1:35305/toolkit-admin/demo-app.git",
    revision: "70bef3702242853ff15acdc22bb34f6badd6e458",
  },
  gogs: {
    repoPath: "unknwon/webhooks",
    branch: "main",
    gitUrl: "http://gogs.example.com:3000/unknwon/webhooks.git",
    revision: "bffeb74224043ba2feb48d137756c8a9331c449a",
  },
  bitbucket: {
    repoPath: "acme-team/demo-app",
    branch: "main",
    gitUrl: "https://bitbucket.org/acme-team/demo-app",
    revision: "9fec847784abb10b2fa567ee63b85bd238955d0e",
  },
};

/** Parses a raw HTTP/1.1 request (LF line ends; the body is everything after the blank line). */
export function parseHttpRequest(text: string): HttpRequest {
  const split = text.indexOf("\n\n");
  if (split < 0) throw new Error("No blank line between the head and the body");
  const [requestLine, ...lines] = text.slice(0, split).split("\n");
  const [method, path] = requestLine!.split(" ");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return { method: method!, path: path!, headers, body: text.slice(split + 2) };
}

/** The recorded push of `flavour`. */
export async function recordedPush(flavour: GitFlavour): Promise<RecordedPush> {
  const request = parseHttpRequest(await Deno.readTextFile(new URL(`${flavour}.http`, FIXTURES)));
  return { flavour, request, ...RECORDED[flavour] };
}

/** `request` with header `name` (any case) set to `value`, or removed when undefined. */
export function withHeader(
  request: HttpRequest,
  name: string,
  value: string | undefined,
): HttpRequest {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()),
  );
  if (value !== undefined) headers[name] = value;
  return { ...request, headers };
}

/** `request` with its JSON body changed by `change` (its signature is then stale). */
export function withBody(
  request: HttpRequest,
  change: (body: Record<string, unknown>) => void,
): HttpRequest {
  const body = JSON.parse(request.body) as Record<string, unknown>;
  change(body);
  return { ...request, body: JSON.stringify(body) };
}

function hmacHex(algorithm: "sha1" | "sha256", secret: string, body: string): string {
  return createHmac(algorithm, secret).update(body).digest("hex");
}

/**
 * `request` signed with `secret` as `flavour`'s host signs (or carries) it: the HMAC headers of
 * GitHub, GitHub Enterprise, Gitea, Gogs and Bitbucket Cloud recomputed over the body, GitLab's
 * token header, and the token Gogs hooks carry in their URL.
 */
export function signedAs(flavour: GitFlavour, request: HttpRequest, secret: string): HttpRequest {
  const sha256 = hmacHex("sha256", secret, request.body);
  const has = (name: string) =>
    Object.keys(request.headers).some((key) => key.toLowerCase() === name.toLowerCase());
  let signed = request;
  const set = (name: string, value: string) => (signed = withHeader(signed, name, value));
  switch (flavour) {
    case "github":
    case "ghe":
    case "gitea":
      set("X-Hub-Signature-256", `sha256=${sha256}`);
      if (has("X-Hub-Signature")) {
        set("X-Hub-Signature", `sha1=${hmacHex("sha1", secret, request.body)}`);
      }
      if (has("X-Gitea-Signature")) set("X-Gitea-Signature", sha256);
      if (has("X-Gogs-Signature")) set("X-Gogs-Signature", sha256);
      return signed;
    case "gitlab":
      return withHeader(request, "X-Gitlab-Token", secret);
    case "bitbucket":
      return withHeader(request, "X-Hub-Signature", `sha256=${sha256}`);
    case "gogs": {
      set("X-Gogs-Signature", sha256);
      const url = new URL(request.path ?? "/", "http://listener.invalid");
      url.searchParams.set(URL_TOKEN_PARAMETER, secret);
      return { ...signed, path: `${url.pathname}${url.search}` };
    }
  }
}
