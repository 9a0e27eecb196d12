import assert from "node:assert/strict";
import { runCli } from "../app.ts";
import { bufferedIO } from "../io.ts";
import { commandContext } from "../context.ts";

async function doctor(dir: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  const io = bufferedIO({ cwd: dir });
  const status = await runCli(
    ["image-security", "doctor", "--registries.d", dir, "-o", "json"],
    commandContext(io),
  );
  return { status, findings: JSON.parse(io.out() || "{}").findings ?? [], err: io.err() };
}

Deno.test("doctor warns when signatures would stay on the local disk", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await doctor(dir, {
      "default.yaml": "default-docker:\n  lookaside: file:///var/lib/containers/sigstore\n",
    });
    assert.equal(r.status, 0, r.err);
    const warnings = r.findings.filter((f: { level: string; check: string }) =>
      f.level === "warn" && f.check === "registries.d"
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /keeps signatures on the local disk/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor warns when no default lookaside is configured at all", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await doctor(dir, {});
    assert.match(JSON.stringify(r.findings), /sets no default-docker lookaside/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor is content with a shared store and staging on disk", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await doctor(dir, {
      "default.yaml":
        "default-docker:\n  lookaside: https://sigs.example.com/\n  lookaside-staging: file:///srv/sigs\n",
    });
    assert.equal(r.status, 0);
    const registries = r.findings.filter((f: { check: string }) => f.check === "registries.d");
    assert.ok(
      registries.every((f: { level: string }) => f.level === "ok"),
      JSON.stringify(registries),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor fails on a broken registries.d file, naming it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await doctor(dir, { "bad.yaml": "default-docker: [\n" });
    assert.equal(r.status, 1);
    assert.match(JSON.stringify(r.findings), /bad\.yaml/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
