/**
 * `toolkit vlan`: the VLANs of an IBM Cloud classic zone for infrastructure-as-code cluster
 * creation, from the `ibmcloud` CLI the user is logged in with (`ibmcloud target`,
 * `ibmcloud ks zone ls --provider classic --region-only`, `ibmcloud ks vlan ls --zone Z`, all as
 * JSON). Every region works (igc had a six-region map); `-d` picks the zone (igc's was broken);
 * `-r` and `--resource-group` override the target without changing it; the public and private
 * VLANs are chosen by flag, automatically when there is one of a kind, on a terminal otherwise, and
 * without a terminal a choice to make is an error that lists the choices. The output is igc's
 * (comment block and `vlan_datacenter`, `public_vlan_id`, `private_vlan_id`), or `-o
 * tfvars|json|yaml`, to stdout or `--output-file FILE`. `-o` is the format, as on every command;
 * igc's `-o FILE` (a value that names no format) still writes the file, with a deprecation
 * warning (docs/cli.md).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { VLAN } from "./vlan_command.ts";
import { UsageError } from "../../lib/errors.ts";
import { writeFileSafely } from "../../lib/file_write.ts";
import { type Logger, makeLogger, resolveDir } from "../dev/common.ts";
import { formatData } from "../output.ts";
import { IbmcloudError, ibmcloudJson, type IbmcloudRunner, ibmcloudRunner } from "./ibmcloud.ts";

/** A VLAN as `ibmcloud ks vlan ls --output json` lists it. */
interface VlanRecord {
  id: string | number;
  type?: string;
  properties?: { vlan_number?: string; vlan_type?: string; primary_router?: string; name?: string };
}

/** A VLAN to choose. */
export interface Vlan {
  readonly id: string;
  readonly number: string;
  readonly type: "public" | "private";
  readonly router: string;
}

/** The VLANs chosen. */
export interface VlanConfig {
  readonly resourceGroup: string;
  readonly region: string;
  readonly datacenter: string;
  readonly publicVlan: Vlan;
  readonly privateVlan: Vlan;
}

function toVlan(r: VlanRecord): Vlan | undefined {
  const type = (r.type ?? r.properties?.vlan_type ?? "").toLowerCase();
  if (type !== "public" && type !== "private") return undefined;
  return {
    id: String(r.id),
    number: String(r.properties?.vlan_number ?? ""),
    type,
    router: r.properties?.primary_router ?? "",
  };
}

const describe = (v: Vlan) => `${v.id}/${v.number}/${v.router}`;

/** The formats of `vlan -o`. */
export const VLAN_FORMATS = ["text", "tfvars", "json", "yaml"] as const;

/** A format of `vlan -o`. */
export type VlanFormat = typeof VLAN_FORMATS[number];

/** The text igc printed, the variables alone, or the choice as JSON or YAML. */
export function formatVlanConfig(c: VlanConfig, format: VlanFormat): string {
  if (format === "json" || format === "yaml") {
    return formatData({
      resource_group: c.resourceGroup,
      region: c.region,
      vlan_datacenter: c.datacenter,
      public_vlan_id: c.publicVlan.id,
      private_vlan_id: c.privateVlan.id,
      public_vlan: c.publicVlan,
      private_vlan: c.privateVlan,
    }, format);
  }
  const vars = [
    `vlan_datacenter="${c.datacenter}"`,
    `public_vlan_id="${c.publicVlan.id}"`,
    `private_vlan_id="${c.privateVlan.id}"`,
  ];
  if (format === "tfvars") return `${vars.join("\n")}\n`;
  return [
    "# Vlan config",
    "# The following values tell the IBMCloud terraform provider the details about the new",
    "# cluster it will create.",
    "# If `cluster_exists` is set to `true` then these values are not needed",
    "#",
    "# These values apply to the following config:",
    `# resource group: ${c.resourceGroup}`,
    `# region: ${c.region}`,
    "#",
    "# The vlans selected are (id/num/router):",
    `# public_vlan: ${describe(c.publicVlan)}`,
    `# private_vlan: ${describe(c.privateVlan)}`,
    "#",
    ...vars,
    "",
  ].join("\n");
}

async function choose<T>(
  ctx: CommandContext,
  what: string,
  flag: string,
  items: readonly T[],
  label: (t: T) => string,
  key: (t: T) => string,
): Promise<T> {
  if (items.length === 1) return items[0]!;
  if (!ctx.io.interactive) {
    throw new UsageError(
      `Choose the ${what} with ${flag}: ${
        items.map(label).join(", ")
      } (there is no terminal to ask on)`,
    );
  }
  const chosen = await ctx.terminal.askChoice(
    `Which ${what} would you like to use?`,
    items.map((t) => ({ value: key(t), label: label(t) })),
  );
  return items.find((t) => key(t) === chosen)!;
}

/** Runs `ibmcloud` commands against a region and resource group other than the target's. */
async function isolatedTarget(
  runner: IbmcloudRunner,
  env: Readonly<Record<string, string | undefined>>,
  region: string,
  resourceGroup: string | undefined,
): Promise<{ env: Record<string, string | undefined>; dispose: () => Promise<void> }> {
  const home = env.IBMCLOUD_HOME || env.HOME || "";
  const dir = await Deno.makeTempDir({ prefix: "toolkit-ibmcloud-" });
  const source = `${home}/.bluemix`;
  const copy = async (from: string, to: string) => {
    await Deno.mkdir(to, { recursive: true });
    for await (const e of Deno.readDir(from)) {
      if (e.isDirectory) await copy(`${from}/${e.name}`, `${to}/${e.name}`);
      else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
    }
  };
  await copy(source, `${dir}/.bluemix`).catch(() => {});
  const isolated = { ...env, IBMCLOUD_HOME: dir };
  await ibmcloudJson(
    runner,
    ["target", "-r", region, ...(resourceGroup ? ["-g", resourceGroup] : [])],
    isolated,
  );
  return { env: isolated, dispose: () => Deno.remove(dir, { recursive: true }).catch(() => {}) };
}

/**
 * The format and the file of `-o`, `--output-file` and the hidden `--format`: `-o` is the format;
 * igc's `-o FILE` (a value that is no format) is the file, with a deprecation warning.
 */
export function vlanOutput(
  options: Pick<OptionsOf<typeof VLAN>, "output" | "outputFile" | "format">,
  log: Pick<Logger, "warn">,
): { format: VlanFormat; file: string | undefined } {
  const given = options.output || undefined;
  const isFormat = (v: string | undefined): v is VlanFormat =>
    (VLAN_FORMATS as readonly string[]).includes(v ?? "");
  let file = options.outputFile || undefined;
  let format: VlanFormat | undefined = options.format;
  if (given !== undefined && isFormat(given)) {
    if (format !== undefined && format !== given) {
      throw new UsageError(`Cannot use -o ${given} with --format ${format}: give one format`);
    }
    format = given;
  } else if (given !== undefined) {
    if (file !== undefined) {
      throw new UsageError(
        `Cannot use -o "${given}" with --output-file: -o is the format (${
          VLAN_FORMATS.join(", ")
        })`,
      );
    }
    log.warn(
      `-o FILE is igc's spelling, deprecated: use --output-file ${given} (-o is the output format: ${
        VLAN_FORMATS.join(", ")
      })`,
    );
    file = given;
  }
  return { format: format ?? "text", file };
}

/** Runs `vlan`. */
export async function run(
  options: OptionsOf<typeof VLAN>,
  ctx: CommandContext,
): Promise<number> {
  const { io } = ctx;
  const runner = ibmcloudRunner(ctx.processes);
  const log = makeLogger(options, io);
  const output = vlanOutput(options, log);
  if (options.provider !== "classic") {
    throw new UsageError(
      `--provider ${options.provider} clusters have no VLANs (VPC uses subnets): use --provider classic`,
    );
  }
  const target = await ibmcloudJson<
    { region?: { name?: string }; resource_group?: { name?: string } }
  >(runner, ["target"], io.env);
  const region = options.region || target.region?.name;
  if (!region) {
    throw new UsageError(
      "No region is targeted: pass -r REGION (or run ibmcloud target -r REGION)",
    );
  }
  const resourceGroup = options.resourceGroup || target.resource_group?.name ||
    "<add resource group>";
  const override = (options.region && options.region !== target.region?.name) ||
    (options.resourceGroup && options.resourceGroup !== target.resource_group?.name);
  const scope = override
    ? await isolatedTarget(runner, io.env, region, options.resourceGroup || undefined)
    : { env: { ...io.env }, dispose: () => Promise.resolve() };
  try {
    log.step(`Reading the zones of ${region}`);
    const zones = (await ibmcloudJson<{ id?: string; name?: string }[]>(
      runner,
      ["ks", "zone", "ls", "--provider", options.provider, "--region-only"],
      scope.env,
    )).map((z) => z.id ?? z.name ?? "").filter((z) => z !== "");
    if (zones.length === 0) throw new IbmcloudError(`There is no classic zone in region ${region}`);
    if (options.datacenter && !zones.includes(options.datacenter)) {
      throw new UsageError(
        `Region ${region} has no zone "${options.datacenter}": its zones are ${zones.join(", ")}`,
      );
    }
    const candidates = options.datacenter ? [options.datacenter] : zones;
    const withVlans: { zone: string; vlans: Vlan[] }[] = [];
    for (const zone of candidates) {
      log.step(`Reading the VLANs of ${zone}`);
      const records = await ibmcloudJson<VlanRecord[]>(
        runner,
        ["ks", "vlan", "ls", "--zone", zone],
        scope.env,
      );
      const vlans = (records ?? []).map(toVlan).filter((v): v is Vlan => v !== undefined);
      if (vlans.length > 0) withVlans.push({ zone, vlans });
    }
    if (withVlans.length === 0) {
      throw new IbmcloudError(
        `There are no VLANs in ${
          options.datacenter
            ? `zone ${options.datacenter}`
            : `region ${region} (zones ${zones.join(", ")})`
        }: the account has none there yet (they are made with the first classic cluster or ordered)`,
      );
    }
    const { zone, vlans } = await choose(
      ctx,
      "data center",
      "-d",
      withVlans,
      (z) => z.zone,
      (z) => z.zone,
    );
    const pick = async (type: "public" | "private", flag: string, given: string | undefined) => {
      const ofType = vlans.filter((v) => v.type === type);
      if (ofType.length === 0) throw new IbmcloudError(`There is no ${type} VLAN in zone ${zone}`);
      if (given) {
        const found = ofType.find((v) => v.id === given);
        if (!found) {
          throw new UsageError(
            `Zone ${zone} has no ${type} VLAN ${given}: its ${type} VLANs are ${
              ofType.map(describe).join(", ")
            }`,
          );
        }
        return found;
      }
      return await choose(ctx, `${type} vlan`, flag, ofType, describe, (v) => v.id);
    };
    const publicVlan = await pick("public", "--public-vlan", options.publicVlan);
    const privateVlan = await pick("private", "--private-vlan", options.privateVlan);
    const text = formatVlanConfig(
      { resourceGroup, region, datacenter: zone, publicVlan, privateVlan },
      output.format,
    );
    if (output.file) {
      const path = resolveDir(io, output.file);
      await writeFileSafely(path, text, { name: output.file });
      log.info(`Wrote the VLAN config to ${output.file}`);
    } else io.stdout.write(text);
    return 0;
  } finally {
    await scope.dispose();
  }
}
