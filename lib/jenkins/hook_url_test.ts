import assert from "node:assert/strict";
import { jenkinsHookUrl, jobPath } from "./hook_url.ts";

Deno.test("jenkinsHookUrl() points each host at its Jenkins plugin", () => {
  const j = "https://jenkins.example.com/";
  const job = { folder: "dev", name: "my app" };
  assert.equal(
    jenkinsHookUrl("github", j, job, "s"),
    "https://jenkins.example.com/github-webhook/",
  );
  assert.equal(
    jenkinsHookUrl("ghe", j, undefined, "s"),
    "https://jenkins.example.com/github-webhook/",
  );
  assert.equal(
    jenkinsHookUrl("gitlab", j, job, "s"),
    "https://jenkins.example.com/project/dev/my%20app",
  );
  assert.equal(
    jenkinsHookUrl("bitbucket", j, job, "s"),
    "https://jenkins.example.com/bitbucket-hook/",
  );
  assert.equal(
    jenkinsHookUrl("gitea", j, job, "s"),
    "https://jenkins.example.com/gitea-webhook/post",
  );
  assert.equal(
    jenkinsHookUrl("gogs", j, job, "a&b"),
    "https://jenkins.example.com/generic-webhook-trigger/invoke?token=a%26b",
  );
  assert.throws(() => jenkinsHookUrl("gitlab", j, undefined, "s"));
  assert.equal(jobPath(job), "job/dev/job/my%20app");
});
