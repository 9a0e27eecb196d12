/**
 * `toolkit image-security`: the group of the image signing and enforcement commands — its usage,
 * help text and examples, as `--help` and completion read them. Its commands are listed in
 * `cli/commands.ts`.
 *
 * @module
 */
import { defineCommand } from "../command.ts";

/** `image-security`: the group. */
export const IMAGE_SECURITY = defineCommand({
  usage: "image-security <command>",
  aliases: ["imagesecurity"],
  describe: "Sign images, manage keys and enforce image signatures in a cluster",
});
