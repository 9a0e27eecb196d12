import assert from "node:assert/strict";
import { CosignListings } from "./cosign_listings.ts";

Deno.test("CosignListings reads a key once for every reader, and gives the read up once all have let go", async () => {
  const listings = new CosignListings();
  const signals: AbortSignal[] = [];
  let finish: (value: string[]) => void = () => {};
  const read = (signal: AbortSignal) => {
    signals.push(signal);
    return new Promise<string[]>((resolve, reject) => {
      finish = resolve;
      signal.addEventListener("abort", () => reject(signal.reason));
    });
  };
  const first = listings.share("referrers a@1", undefined, read);
  const second = listings.share("referrers a@1", undefined, read);
  assert.equal(signals.length, 1);
  assert.equal(first.result, second.result);
  // Another key (another image, other bounds) is its own read.
  using other = listings.share("referrers a@2", undefined, () => Promise.resolve(["x"]));
  assert.deepEqual(await other.result, ["x"]);
  // The first reader lets go: the second still reads.
  first[Symbol.dispose]();
  first[Symbol.dispose]();
  assert.equal(signals[0]!.aborted, false);
  finish(["sha256:1"]);
  assert.deepEqual(await second.result, ["sha256:1"]);
  second[Symbol.dispose]();
  assert.equal(signals[0]!.aborted, true);
  // Once every reader has let go, a later one asks again.
  using third = listings.share("referrers a@1", undefined, read);
  assert.equal(signals.length, 2);
  third[Symbol.dispose]();
  await assert.rejects(third.result, (e: unknown) => (e as Error).name === "AbortError");
});

Deno.test("CosignListings aborts the read with the verification's signal", async () => {
  const listings = new CosignListings();
  const verification = new AbortController();
  using shared = listings.share(
    "fallback a@1",
    verification.signal,
    (signal) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
  );
  verification.abort(new Error("deadline"));
  await assert.rejects(shared.result, /deadline/);
});
