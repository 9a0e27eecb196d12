/**
 * A STAND-IN for the Jenkins REST API, for tests: Jenkins cannot run here (no registry this
 * machine reaches serves it). It follows Jenkins' documented behaviour for what toolkit calls
 * (https://www.jenkins.io/doc/book/using/remote-access-api/, the CSRF crumb issuer, the CloudBees
 * Folder plugin), with Jenkins' status codes:
 *
 * - Basic authentication with a user and an API token; wrong or missing: 401;
 * - `GET /crumbIssuer/api/json` → `{"_class": …, "crumb": …, "crumbRequestField": "Jenkins-Crumb"}`;
 *   a POST without that header and crumb: 403 "No valid crumb was included in the request";
 * - `GET [/job/F]/checkJobName?value=N` → the form validation fragment: an error `<div>` saying
 *   "A job already exists with the name ‘N’" when it exists, `<div/>` otherwise; 404 under a
 *   folder that does not exist;
 * - `POST /createItem?name=F&mode=com.cloudbees.hudson.plugins.folder.Folder` → 302 to the new
 *   folder; the folder is served (`GET /job/F/api/json`) only after `folderDelay` further requests,
 *   as a slow Jenkins would (to prove toolkit waits);
 * - `POST /job/F/createItem?name=N` with the `config.xml` body (Content-Type application/xml) →
 *   200; 400 "A job already exists with the name …" for an existing one; 404 for a missing folder;
 * - `GET /job/F/job/N/config.xml`, `POST /job/F/job/N/doDelete` (302),
 *   `POST /job/F/job/N/buildWithParameters?…` → 201 with `Location: <jenkins>/queue/item/<n>/`.
 *
 * Every request is recorded.
 *
 * @module
 */

/** A request the stand-in received. */
export interface JenkinsRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly crumb: string | undefined;
  readonly body: string;
}

/** A running stand-in. */
export interface FakeJenkins extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Folders, each with its jobs' config.xml by name. */
  readonly folders: Map<string, Map<string, string>>;
  /** Queued builds: job path and parameters. */
  readonly builds: { job: string; params: Record<string, string> }[];
  /** Every request, in order. */
  readonly requests: JenkinsRequest[];
}

/** Starts the stand-in with one user and its API token. */
export function startFakeJenkins(options: {
  username: string;
  apiToken: string;
  folderDelay?: number;
}): FakeJenkins {
  const folders = new Map<string, Map<string, string>>();
  const pendingFolders = new Map<string, number>();
  const builds: FakeJenkins["builds"] = [];
  const requests: JenkinsRequest[] = [];
  const crumb = crypto.randomUUID();
  const expected = `Basic ${btoa(`${options.username}:${options.apiToken}`)}`;
  let queue = 0;

  const html = (status: number, text: string, headers: Record<string, string> = {}) =>
    new Response(text, { status, headers: { "Content-Type": "text/html", ...headers } });
  const visible = (folder: string) => {
    const left = pendingFolders.get(folder);
    if (left === undefined) return folders.has(folder);
    if (left <= 0) {
      pendingFolders.delete(folder);
      return true;
    }
    pendingFolders.set(folder, left - 1);
    return false;
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const query = Object.fromEntries(url.searchParams);
    const body = await req.text();
    const sentCrumb = req.headers.get("jenkins-crumb") ?? undefined;
    requests.push({ method: req.method, path: url.pathname, query, crumb: sentCrumb, body });
    if (req.headers.get("authorization") !== expected) {
      return html(401, "<html><body>Authentication required</body></html>", {
        "WWW-Authenticate": 'Basic realm="Jenkins"',
      });
    }
    const path = url.pathname.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/crumbIssuer/api/json") {
      return Response.json({
        _class: "hudson.security.csrf.DefaultCrumbIssuer",
        crumb,
        crumbRequestField: "Jenkins-Crumb",
      });
    }
    if (req.method === "POST" && sentCrumb !== crumb) {
      return html(403, "<html><body>No valid crumb was included in the request</body></html>");
    }
    const parts = path.split("/").filter((p) => p !== "").map(decodeURIComponent);
    // /checkJobName, /createItem at the top
    if (parts.length === 1 && parts[0] === "checkJobName") {
      const name = query.value ?? "";
      return html(
        200,
        folders.has(name) && visible(name)
          ? `<div class=error>A job already exists with the name ‘${name}’</div>`
          : "<div/>",
      );
    }
    if (parts.length === 1 && parts[0] === "createItem" && req.method === "POST") {
      const name = query.name ?? "";
      if (query.mode !== "com.cloudbees.hudson.plugins.folder.Folder") {
        return html(400, "Unsupported mode in this stand-in");
      }
      if (folders.has(name)) return html(400, `A job already exists with the name ${name}`);
      folders.set(name, new Map());
      pendingFolders.set(name, options.folderDelay ?? 2);
      return html(302, "", { Location: `${url.origin}/job/${encodeURIComponent(name)}/` });
    }
    if (parts[0] !== "job" || parts.length < 2) return html(404, "Not Found");
    const folder = parts[1]!;
    if (!folders.has(folder) || !visible(folder)) return html(404, "Not Found");
    const jobs = folders.get(folder)!;
    const rest = parts.slice(2);
    if (rest.length === 2 && rest[0] === "api" && rest[1] === "json") {
      return Response.json({
        _class: "com.cloudbees.hudson.plugins.folder.Folder",
        name: folder,
        jobs: [...jobs.keys()].map((name) => ({ name })),
      });
    }
    if (rest.length === 1 && rest[0] === "checkJobName") {
      const name = query.value ?? "";
      return html(
        200,
        jobs.has(name)
          ? `<div class=error>A job already exists with the name ‘${name}’</div>`
          : "<div/>",
      );
    }
    if (rest.length === 1 && rest[0] === "createItem" && req.method === "POST") {
      const name = query.name ?? "";
      if (!/xml/.test(req.headers.get("content-type") ?? "")) {
        return html(400, "Expected an XML config.xml body");
      }
      if (jobs.has(name)) return html(400, `A job already exists with the name ${name}`);
      jobs.set(name, body);
      return html(200, "");
    }
    if (rest[0] !== "job" || rest.length < 3) return html(404, "Not Found");
    const job = rest[1]!;
    if (!jobs.has(job)) return html(404, "Not Found");
    const action = rest.slice(2).join("/");
    if (req.method === "GET" && action === "config.xml") {
      return new Response(jobs.get(job)!, { headers: { "Content-Type": "application/xml" } });
    }
    if (req.method === "POST" && action === "doDelete") {
      jobs.delete(job);
      return html(302, "", { Location: `${url.origin}/job/${encodeURIComponent(folder)}/` });
    }
    if (req.method === "POST" && action === "buildWithParameters") {
      builds.push({ job: `${folder}/${job}`, params: query });
      return new Response(null, {
        status: 201,
        headers: { Location: `${url.origin}/queue/item/${++queue}/` },
      });
    }
    return html(404, "Not Found");
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    folders,
    builds,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
