/**
 * `toolkit endpoints` (aliases `ingress`, `endpoint`, `ingresses`): the URLs of the Ingresses
 * (`networking.k8s.io/v1`, which igc never read) and OpenShift Routes of a namespace (`-n`,
 * else the context's, else `default`).
 *
 * On a terminal it shows a menu: picking an endpoint prints it and opens it in the browser,
 * `Exit` prints the whole list. Otherwise (or with `--print`) it prints the list, one
 * `name - url` per line; `-o json` and `-o yaml` print `[{name, kind, url}]`.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { ENDPOINTS } from "./endpoints_command.ts";
import type { CliIO } from "../io.ts";
import { INGRESSES, ROUTES } from "../../lib/kube/mod.ts";
import { collectEndpoints, type Endpoint } from "./app_urls.ts";
import { makeLogger, namespaceOf, requireNamespace } from "./common.ts";
import { formatData } from "../output.ts";
import { openUrl } from "./browser.ts";

function printList(io: CliIO, endpoints: readonly Endpoint[]): void {
  for (const e of endpoints) io.stdout.write(`  ${e.name} - ${e.url}\n`);
}

/** Runs `endpoints`. */
export async function run(
  options: OptionsOf<typeof ENDPOINTS>,
  ctx: CommandContext,
): Promise<void> {
  const { io } = ctx;
  const log = makeLogger(options, io);
  using client = await ctx.kube(options);
  const namespace = namespaceOf(options.namespace, client);
  log.step(
    `Namespace ${namespace} (${
      options.namespace ? "-n" : client.namespace ? "the context's" : "default"
    }), cluster ${client.server} (context ${client.context.name})`,
  );
  await requireNamespace(client, namespace);
  const [ingresses, routes] = await Promise.all([
    client.list(INGRESSES, namespace),
    client.serves(ROUTES).then((yes) => {
      if (!yes) log.step("The cluster serves no OpenShift Routes: Ingresses only");
      return yes ? client.list(ROUTES, namespace) : [];
    }),
  ]);
  log.step(`${ingresses.length} Ingress(es), ${routes.length} Route(s) in ${namespace}`);
  const endpoints = collectEndpoints(ingresses, routes);
  const output = options.output;
  if (output === "json" || output === "yaml") {
    io.stdout.write(formatData(endpoints, output));
    return;
  }
  if (endpoints.length === 0) {
    if (!options.quiet) io.stderr.write(`No endpoints found in namespace '${namespace}'\n`);
    return;
  }
  if (!io.interactive || options.print) {
    if (!options.quiet) io.stderr.write(`Endpoints in namespace '${namespace}':\n`);
    printList(io, endpoints);
    return;
  }
  const choice = await ctx.terminal.askChoice(
    `Endpoints in the '${namespace}' namespace. Select one to open it in the browser, or Exit`,
    [
      { value: "exit", label: "Exit" },
      ...endpoints.map((e, i) => ({ value: String(i), label: `${e.name} - ${e.url}` })),
    ],
  );
  if (choice === "exit") {
    printList(io, endpoints);
    return;
  }
  const picked = endpoints[Number(choice)]!;
  io.stdout.write(`${picked.url}\n`);
  await openUrl(ctx, picked.url, { label: picked.name, printed: true });
}
