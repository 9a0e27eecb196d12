import assert from "node:assert/strict";
import { browserCommand } from "./browser.ts";

Deno.test("browserCommand() takes the first $BROWSER entry found, with %s or the URL appended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-browser-test-" });
  try {
    for (const name of ["firefox", "xdg-open", "open"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "#!/bin/sh\n");
      await Deno.chmod(`${dir}/${name}`, 0o755);
    }
    const url = "https://example.com/a";
    const env = { PATH: dir };
    assert.deepEqual(
      browserCommand(url, { ...env, BROWSER: "nope:firefox --new-tab %s" }, "linux"),
      [
        `${dir}/firefox`,
        "--new-tab",
        url,
      ],
    );
    assert.deepEqual(browserCommand(url, { ...env, BROWSER: "firefox" }, "linux"), [
      `${dir}/firefox`,
      url,
    ]);
    assert.deepEqual(browserCommand(url, env, "linux"), [`${dir}/xdg-open`, url]);
    assert.deepEqual(browserCommand(url, env, "darwin"), [`${dir}/open`, url]);
    assert.deepEqual(browserCommand(url, env, "windows"), ["cmd", "/c", "start", '""', url]);
    assert.equal(browserCommand(url, { PATH: `${dir}/none` }, "linux"), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
