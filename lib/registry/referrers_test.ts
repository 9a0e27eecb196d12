import assert from "node:assert/strict";
import { parseReference } from "../image/mod.ts";
import { fakeRequester } from "../../tests/fakes/registry_requester.ts";
import { MAX_REFERRERS_PAGES, nextPage, readReferrers } from "./referrers.ts";
import { RegistryError } from "./errors.ts";

Deno.test("nextPage() follows only a next link to the same API path, keeping its query", () => {
  const base = `/v2/team/app/referrers/sha256:${"ab".repeat(32)}`;
  assert.equal(nextPage(`<${base}?n=10&last=x>; rel="next"`, base), `${base}?n=10&last=x`);
  assert.equal(nextPage(`<https://elsewhere.example${base}?p=2>; rel=next`, base), `${base}?p=2`);
  assert.equal(nextPage(`</v2/other/referrers/x?p=2>; rel="next"`, base), undefined);
  assert.equal(nextPage(`<${base}?p=2>; rel="prev"`, base), undefined);
  assert.equal(nextPage(null, base), undefined);
});

const DIGEST = `sha256:${"ab".repeat(32)}`;
const REF = parseReference("reg.example/team/app");
const keepAll = { maxBytes: 64 * 1024, maxValues: 1000, select: (d: unknown) => d };

Deno.test("readReferrers() is undefined when the first page says the registry has no referrers API", async () => {
  for (const status of [400, 404, 405]) {
    const fake = fakeRequester(() => ({ status }));
    assert.equal(await readReferrers(fake.request, REF, DIGEST, keepAll), undefined);
    assert.equal(fake.requests[0]!.path, `/v2/team/app/referrers/${DIGEST}`);
    assert.deepEqual(fake.requests[0]!.headers, {
      accept: "application/vnd.oci.image.index.v1+json",
    });
  }
});

Deno.test("readReferrers() refuses an invalid digest before sending anything", async () => {
  const fake = fakeRequester(() => ({ body: `{"manifests":[]}` }));
  await assert.rejects(
    readReferrers(fake.request, REF, "sha256:short", keepAll),
    /^RegistryError: Cannot read referrers of "reg.example\/team\/app@sha256:short": invalid digest$/,
  );
  assert.equal(fake.requests.length, 0);
});

Deno.test("readReferrers() follows at most MAX_REFERRERS_PAGES pages, counting bytes over all", async () => {
  const body = `{"manifests":[{"a":1}]}`;
  const fake = fakeRequester((req) => ({
    body,
    headers: { link: `<${req.path.split("?")[0]}?p=${Math.random()}>; rel="next"` },
  }));
  await assert.rejects(
    readReferrers(fake.request, REF, DIGEST, keepAll),
    (e: unknown) =>
      e instanceof RegistryError &&
      e.message.endsWith(`more than ${MAX_REFERRERS_PAGES} pages of referrers`),
  );
  assert.equal(fake.requests.length, MAX_REFERRERS_PAGES);
  // Each page is asked for at most what the earlier pages left of maxBytes.
  assert.equal(fake.requests[1]!.maxBytes, keepAll.maxBytes - body.length);
});

Deno.test("readReferrers() refuses an answer that is not an image index, and an error status", async () => {
  const notIndex = fakeRequester(() => ({ body: `{"manifests":{}}` }));
  await assert.rejects(
    readReferrers(notIndex.request, REF, DIGEST, keepAll),
    /the referrers answer is not an image index$/,
  );
  const notJson = fakeRequester(() => ({ body: `{"manifests":[` }));
  await assert.rejects(readReferrers(notJson.request, REF, DIGEST, keepAll), RegistryError);
  const denied = fakeRequester(() => ({ status: 403, body: `{"errors":[{"code":"DENIED"}]}` }));
  await assert.rejects(readReferrers(denied.request, REF, DIGEST, keepAll), /: DENIED$/);
});
