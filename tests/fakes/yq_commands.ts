/**
 * `toolkit yq` run in-process for the tests of its commands (`cli/yq/*_test.ts`).
 *
 * @module
 */
import { runCli } from "../../cli/app.ts";
import { bufferedIO } from "../../cli/io.ts";
import { commandContext } from "../../cli/context.ts";

/** Runs `toolkit yq ARGS` in a temp directory holding `files`, with `stdin`. */
export async function yq(
  args: string[],
  files: Record<string, string> = {},
  stdin = "",
): Promise<{ status: number; out: string; err: string }> {
  const dir = await Deno.makeTempDir({ prefix: "toolkit-yq-" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const io = bufferedIO({ cwd: dir, stdin });
    const status = await runCli(["yq", ...args], commandContext(io));
    return { status, out: io.out(), err: io.err().replaceAll(dir, "D") };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
