import assert from "node:assert/strict";
import { readTarGz } from "./enable.ts";

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await new Response(
      new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
        new CompressionStream("gzip"),
      ),
    ).arrayBuffer(),
  );
}

/** A tar.gz of `count` small files, made by tar itself. */
async function tarGz(count: number): Promise<Uint8Array> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-enable-test-" });
  try {
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      names.push(`f${i}`);
      await Deno.writeTextFile(`${dir}/f${i}`, `file ${i}\n`);
    }
    const out = await new Deno.Command("tar", { args: ["czf", "-", ...names], cwd: dir }).output();
    assert.ok(out.success);
    return out.stdout;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("readTarGz() reads every entry of a tarball made by tar czf", async () => {
  const entries = await readTarGz(await tarGz(3));
  assert.deepEqual(entries.map((e) => e.name).sort(), ["f0", "f1", "f2"]);
  assert.equal(new TextDecoder().decode(entries.find((e) => e.name === "f1")!.data), "file 1\n");
});

Deno.test("readTarGz() refuses an archive that unpacks past its byte limit, without holding it", async () => {
  // 32 MiB of zeros compress to about 32 KiB: a small download, a large unpacking.
  const bomb = await gzip(new Uint8Array(32 * 1024 * 1024));
  assert.ok(bomb.length < 100_000);
  await assert.rejects(
    readTarGz(bomb, { maxBytes: 1024 * 1024 }),
    /The archive unpacks to more than 1048576 bytes/,
  );
});

Deno.test("readTarGz() refuses an archive with more entries than its limit", async () => {
  await assert.rejects(
    readTarGz(await tarGz(5), { maxEntries: 3 }),
    /The archive holds more than 3 entries/,
  );
});
