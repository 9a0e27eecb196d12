/**
 * The one-object commands of `image-security` (`key-secret`, `trust-root`): print the object
 * with `--dry-run`, else apply it (server-side apply, in an existing namespace) and say what was
 * done on stderr, with `-o json|yaml` the result on stdout. Enforcement trusts what these objects
 * hold: one that exists with other content is replaced only with `--replace` or a yes on a
 * terminal (`cli/replace.ts`).
 *
 * @module
 */
import type { CommandContext, KubeOptions } from "../command.ts";
import { formatData } from "../output.ts";
import { namespaceOf, printReport, requireNamespace } from "../dev/common.ts";
import { applyObject, type KubeObject, type ResourceType } from "../../lib/kube/mod.ts";
import { confirmReplace } from "../replace.ts";

/** The flags a one-object command takes besides its own. */
export interface ApplyOneOptions extends KubeOptions {
  readonly namespace?: string | undefined;
  readonly dryRun?: boolean | undefined;
  readonly output?: "json" | "yaml" | undefined;
  /** `--replace`: replace an object that holds something else without asking. */
  readonly replace?: boolean;
}

/**
 * Prints (`--dry-run`) or applies the object `manifest(namespace)` makes; on apply, writes
 * `<what> "<namespace>/<name>" <outcome><detail>` and the report with `extra`.
 */
export async function applyOne(
  options: ApplyOneOptions,
  ctx: CommandContext,
  object: {
    readonly type: ResourceType;
    readonly name: string;
    readonly manifest: (namespace: string | undefined) => KubeObject;
    readonly detail: string;
    readonly extra: Record<string, unknown>;
    /**
     * How an existing object differs from the one to apply, after "already" (`holds other keys
     * (…)`); undefined when it holds the same.
     */
    readonly held: (existing: KubeObject) => Promise<string | undefined>;
  },
): Promise<number> {
  if (options.dryRun) {
    ctx.io.stdout.write(
      formatData(object.manifest(options.namespace || undefined), options.output ?? "yaml"),
    );
    return 0;
  }
  using client = await ctx.kube(options);
  const namespace = namespaceOf(options.namespace, client);
  await requireNamespace(client, namespace);
  const existing = await client.read(object.type, namespace, object.name);
  const differs = existing === undefined ? undefined : await object.held(existing);
  if (differs !== undefined) {
    await confirmReplace(ctx, {
      what: `${object.type.kind} "${namespace}/${object.name}"`,
      differs,
      replace: options.replace ?? false,
    });
  }
  const result = await applyObject(client, object.type, object.manifest(namespace) as never);
  ctx.io.stderr.write(
    `${object.type.kind} "${namespace}/${object.name}" ${result.outcome}${object.detail}\n`,
  );
  printReport(ctx.io, options.output, { results: [result] }, object.extra);
  return 0;
}
