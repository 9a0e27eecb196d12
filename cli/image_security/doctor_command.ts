/**
 * `toolkit image-security doctor` as `--help` and completion know it: usage, help text and flags.
 * Its implementation, `doctor.ts`, is imported only when the command runs (`cli/commands.ts`).
 *
 * @module
 */
import { defineCommand } from "../command.ts";
import { OUTPUT, REGISTRY_FLAGS } from "../flags.ts";

/** `image-security doctor`. */
export const DOCTOR = defineCommand({
  usage: "doctor",
  describe: "Check the local signing setup (registries.d, gpg)",
  flags: { "registries.d": REGISTRY_FLAGS["registries.d"], ...OUTPUT },
});
