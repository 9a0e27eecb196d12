/**
 * Every flavour's trigger, judged by Tekton's own evaluators: `cel-eval` runs the push filter
 * toolkit generates on that flavour's recorded push delivery (it matches the pushed branch and
 * repository, and nothing else: another branch, another repository, another event, a tag, a
 * deletion), and `binding-eval` resolves the generated TriggerBinding on it to the clone URL and
 * the commit. Values with quotes and backslashes go through the filter as data.
 */
import assert from "node:assert/strict";
import { GIT_FLAVOURS, type GitFlavour } from "../../lib/githost/flavour.ts";
import { buildTriggerObjects, pushFilter } from "../../lib/tekton/mod.ts";
import { bindingEval, celEval, e2eSkipReason, type HttpRequest } from "../env/mod.ts";
import { recordedPush, withBody, withHeader } from "./push_payloads.ts";

type Body = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Any = any;

/** The body changes that turn a flavour's push of `main` into a push of another ref. */
function pushOf(flavour: GitFlavour, branch: string, type = "branch"): (body: Body) => void {
  if (flavour === "bitbucket") {
    return (body: Any) => {
      body.push.changes[0].new.name = branch;
      body.push.changes[0].new.type = type;
    };
  }
  const ref = type === "tag" ? `refs/tags/${branch}` : `refs/heads/${branch}`;
  return (body) => (body.ref = ref);
}

/** The body change that makes the push one of another repository. */
function repositoryNamed(flavour: GitFlavour, path: string): (body: Body) => void {
  if (flavour === "gitlab") return (body: Any) => (body.project.path_with_namespace = path);
  return (body: Any) => (body.repository.full_name = path);
}

/** The body change that makes the push delete the branch. */
function deletion(flavour: GitFlavour): (body: Body) => void {
  if (flavour === "bitbucket") return (body: Any) => (body.push.changes[0].new = null);
  return (body) => (body.after = "0".repeat(40));
}

/** The header each host names its event in (as recorded in the deliveries). */
const EVENT_HEADER: Readonly<Record<GitFlavour, string>> = {
  github: "X-GitHub-Event",
  ghe: "X-GitHub-Event",
  gitlab: "X-Gitlab-Event",
  gitea: "X-Gitea-Event",
  gogs: "X-Gogs-Event",
  bitbucket: "X-Event-Key",
};

/** Another event of the flavour, as its header names it. */
const OTHER_EVENT: Readonly<Record<GitFlavour, string>> = {
  github: "pull_request",
  ghe: "pull_request",
  gitlab: "Tag Push Hook",
  gitea: "pull_request",
  gogs: "create",
  bitbucket: "repo:updated",
};

Deno.test({
  name: "Tekton's cel-eval and binding-eval accept every flavour's trigger on its push payload",
  ignore: e2eSkipReason(["cel-eval", "binding-eval"]) !== undefined,
  fn: async (t) => {
    for (const flavour of GIT_FLAVOURS) {
      const push = await recordedPush(flavour);
      const { repoPath, branch, request } = push;
      const header = EVENT_HEADER[flavour];
      const matches = async (filter: string, delivery: HttpRequest) =>
        await celEval(filter, delivery) === "true";

      await t.step(
        `${flavour}: the filter matches the push of its branch and repository`,
        async () => {
          assert.equal(await celEval(pushFilter(flavour, repoPath, branch), request), "true");
          // Names are compared as the hosts compare them: without ASCII case.
          assert.equal(
            await celEval(pushFilter(flavour, repoPath.toUpperCase(), branch), request),
            "true",
          );
        },
      );

      await t.step(`${flavour}: the filter matches nothing else`, async () => {
        const filter = pushFilter(flavour, repoPath, branch);
        assert.equal(await matches(pushFilter(flavour, repoPath, "dev"), request), false);
        assert.equal(
          await matches(pushFilter(flavour, `${repoPath}-fork`, branch), request),
          false,
        );
        assert.equal(await matches(pushFilter(flavour, "someone/else", branch), request), false);
        const others: [string, HttpRequest][] = [
          ["a push to another branch", withBody(request, pushOf(flavour, "dev"))],
          [
            "a push of a tag named like the branch",
            withBody(request, pushOf(flavour, branch, "tag")),
          ],
          ["a push that deletes the branch", withBody(request, deletion(flavour))],
          ["another repository", withBody(request, repositoryNamed(flavour, "someone/else"))],
          ["another event", withHeader(request, header, OTHER_EVENT[flavour])],
          ["no event header", withHeader(request, header, undefined)],
        ];
        for (const [what, delivery] of others) {
          assert.equal(await matches(filter, delivery), false, `${flavour}: ${what}`);
        }
      });

      await t.step(`${flavour}: the binding yields the clone URL and the commit`, async () => {
        const { triggerBinding } = buildTriggerObjects({
          pipelineName: "demo-app",
          namespace: "dev",
          flavour,
          repoPath,
          branch,
          secretName: "webhook",
          secretKey: "secret",
          triggersApiVersion: "triggers.tekton.dev/v1beta1",
          pipelinesApiVersion: "tekton.dev/v1",
        });
        assert.deepEqual(await bindingEval(JSON.stringify(triggerBinding), request), {
          "git-url": push.gitUrl,
          "git-revision": push.revision,
        });
      });
    }

    await t.step("quotes and backslashes in a branch are data, not CEL", async () => {
      const { request } = await recordedPush("github");
      const odd = "it's\\ok";
      const oddPush = withBody(request, pushOf("github", odd));
      assert.equal(await celEval(pushFilter("github", "octo-org/demo-app", odd), oddPush), "true");
      assert.equal(
        await celEval(pushFilter("github", "octo-org/demo-app", "main"), oddPush),
        "false",
      );
      // A branch written to close the string and widen the filter stays one string.
      const injection = "x' || true || 'y";
      assert.equal(
        await celEval(pushFilter("github", "octo-org/demo-app", injection), request),
        "false",
      );
      assert.equal(
        await celEval(pushFilter("github", "someone/else' || true || '", "main"), request),
        "false",
      );
    });
  },
});
