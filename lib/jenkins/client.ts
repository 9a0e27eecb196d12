/**
 * Jenkins' REST API, as much as `toolkit pipeline --jenkins` needs: the crumb (CSRF protection:
 * `GET /crumbIssuer/api/json`, then its header on every POST), `checkJobName`, `createItem` for a
 * folder (the CloudBees Folder plugin's mode) and for a job (its `config.xml`), a job's
 * `config.xml`, `doDelete`, and `buildWithParameters`. Basic authentication with the user and an
 * API token. A folder is created and then awaited until Jenkins serves it (igc did not wait, and
 * the job's creation could fail in the folder that was not there yet).
 *
 * @module
 */
import { basicAuthorization } from "../base64.ts";
import { ToolkitError } from "../errors.ts";
import { timedFetch, timeoutOr } from "../fetch.ts";
import { parseJsonWithin } from "../json_shape.ts";
import { pollUntil, type WaitOptions } from "../poll.ts";
import { type JenkinsJobRef, jobPath } from "./hook_url.ts";

/** Jenkins refused the credentials of the `jenkins-access` Secret. */
export class JenkinsAuthError extends ToolkitError {
  /** Creates the error. */
  constructor(url: string, status: number, action: string) {
    super(
      `Jenkins at ${url} refused to ${action} (HTTP ${status}): ${
        status === 401
          ? "the user name or API token is wrong"
          : "the user may not do it, or the crumb was refused (try -c)"
      }`,
    );
    this.name = "JenkinsAuthError";
  }
}

/** Jenkins could not be reached, or answered with an error. */
export class JenkinsError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "JenkinsError";
  }
}

/** How to reach Jenkins. */
export interface JenkinsOptions {
  /** Jenkins' URL (`https://jenkins.example.com`). */
  readonly url: string;
  readonly username: string;
  /** An API token of the user. */
  readonly apiToken: string;
  /** Ask for a crumb before the first POST (`-c/--generateCrumb`, default true). */
  readonly crumb?: boolean;
  /** The fetch to use (tests). */
  readonly fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** Per-request timeout in ms (default 30 s). */
  readonly timeoutMs?: number;
}

/** A Jenkins server. */
export class JenkinsClient {
  readonly #options: JenkinsOptions;
  readonly #base: string;
  #crumb?: Promise<Record<string, string>>;

  /** A client of the Jenkins at `options.url`. */
  constructor(options: JenkinsOptions) {
    this.#options = options;
    this.#base = options.url.replace(/\/+$/, "");
  }

  /** Jenkins' URL, without a trailing slash. */
  get url(): string {
    return this.#base;
  }

  async #request(
    method: string,
    path: string,
    action: string,
    init: { body?: string; contentType?: string; accept?: readonly number[] } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = {
      Authorization: basicAuthorization(this.#options.username, this.#options.apiToken),
      "User-Agent": "toolkit",
    };
    if (method !== "GET") Object.assign(headers, await this.#crumbHeaders());
    if (init.contentType) headers["Content-Type"] = init.contentType;
    let response: Response;
    const timeoutMs = this.#options.timeoutMs ?? 30_000;
    try {
      const base = this.#options.fetch ?? fetch;
      const timed = timedFetch((input, options) => base(String(input), options), timeoutMs, {
        bound: "request",
      });
      response = await timed(`${this.#base}${path}`, {
        method,
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        redirect: "manual",
      });
    } catch (error) {
      const cause = timeoutOr(error, new URL(this.#base).origin, timeoutMs);
      throw new JenkinsError(
        `Cannot reach Jenkins at ${this.#base}: ${cause instanceof Error ? cause.message : cause}`,
        { cause },
      );
    }
    const ok = (response.status >= 200 && response.status < 400) ||
      (init.accept?.includes(response.status) ?? false);
    if (!ok) {
      const text = (await response.text().catch(() => "")).replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ").trim().slice(0, 200);
      if (response.status === 401 || response.status === 403) {
        throw new JenkinsAuthError(this.#base, response.status, action);
      }
      throw new JenkinsError(
        `Jenkins at ${this.#base} could not ${action} (HTTP ${response.status})${
          text ? `: ${text}` : ""
        }`,
      );
    }
    return response;
  }

  #crumbHeaders(): Promise<Record<string, string>> {
    if (this.#options.crumb === false) return Promise.resolve({});
    this.#crumb ??= (async () => {
      const response = await this.#request("GET", "/crumbIssuer/api/json", "issue a crumb", {
        accept: [404],
      });
      if (response.status === 404) {
        await response.body?.cancel();
        return {}; // CSRF protection is off
      }
      // `{"_class", "crumb", "crumbRequestField"}`: counted before it is parsed.
      const body = parseJsonWithin(
        await response.text(),
        { maxValues: 256, maxDepth: 8 },
        "the crumb",
      ) as {
        crumbRequestField?: string;
        crumb?: string;
      };
      return body.crumbRequestField && body.crumb ? { [body.crumbRequestField]: body.crumb } : {};
    })();
    this.#crumb.catch(() => (this.#crumb = undefined));
    return this.#crumb;
  }

  /** Whether an item `name` exists in `folder` (the top level without it). */
  async exists(folder: string | undefined, name: string): Promise<boolean> {
    const parent = folder ? `/${jobPath({ name: folder })}` : "";
    const response = await this.#request(
      "GET",
      `${parent}/checkJobName?value=${encodeURIComponent(name)}`,
      `check the name "${name}"`,
      { accept: [404] },
    );
    const text = await response.text();
    if (response.status === 404) {
      throw new JenkinsError(`Jenkins at ${this.#base} has no folder "${folder}"`);
    }
    return /already exists/i.test(text);
  }

  /** Creates folder `name` at the top level when missing, and waits until Jenkins serves it. */
  async ensureFolder(name: string, wait: WaitOptions = {}): Promise<"created" | "unchanged"> {
    if (await this.exists(undefined, name)) return "unchanged";
    const form = new URLSearchParams({
      name,
      mode: "com.cloudbees.hudson.plugins.folder.Folder",
      Submit: "OK",
    });
    await (await this.#request("POST", `/createItem?${form}`, `create the folder "${name}"`))
      .body?.cancel();
    await pollUntil(
      async () => {
        const r = await this.#request(
          "GET",
          `/${jobPath({ name })}/api/json`,
          `read the folder "${name}"`,
          { accept: [404] },
        );
        await r.body?.cancel();
        return r.status === 200 ? true : undefined;
      },
      (ms) => new JenkinsError(`The Jenkins folder "${name}" did not appear within ${ms / 1000} s`),
      wait,
      { timeoutMs: 30_000, pollMs: 250 },
    );
    return "created";
  }

  /** The `config.xml` of a job, or undefined when there is no such job. */
  async jobConfig(job: JenkinsJobRef): Promise<string | undefined> {
    const r = await this.#request("GET", `/${jobPath(job)}/config.xml`, "read the job", {
      accept: [404],
    });
    if (r.status === 404) {
      await r.body?.cancel();
      return undefined;
    }
    return await r.text();
  }

  /** Creates a job in its folder from its `config.xml`. */
  async createJob(job: JenkinsJobRef, configXml: string): Promise<void> {
    const parent = job.folder ? `/${jobPath({ name: job.folder })}` : "";
    const r = await this.#request(
      "POST",
      `${parent}/createItem?name=${encodeURIComponent(job.name)}`,
      `create the job "${job.name}"`,
      { body: configXml, contentType: "application/xml" },
    );
    await r.body?.cancel();
  }

  /** Deletes a job. */
  async deleteJob(job: JenkinsJobRef): Promise<void> {
    const r = await this.#request("POST", `/${jobPath(job)}/doDelete`, "delete the job");
    await r.body?.cancel();
  }

  /** Queues a build with `params`; returns the queue item's URL when Jenkins says it. */
  async build(job: JenkinsJobRef, params: Record<string, string>): Promise<string | undefined> {
    const r = await this.#request(
      "POST",
      `/${jobPath(job)}/buildWithParameters?${new URLSearchParams(params)}`,
      "start a build",
    );
    await r.body?.cancel();
    return r.headers.get("location") ?? undefined;
  }
}
