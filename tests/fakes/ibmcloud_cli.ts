/**
 * A STAND-IN for the `ibmcloud` CLI, for tests: it is a cloud CLI that cannot log in here. It
 * answers the commands `toolkit vlan` runs with the JSON the real CLI prints with `--output json`
 * (shapes from the IBM Cloud CLI and Kubernetes Service API docs: `target` → `region.name`,
 * `resource_group.name`; `ks zone ls` → `[{id, metro}]`; `ks vlan ls` → `[{id, type, properties:
 * {name, note, primary_router, vlan_number, vlan_type, location}}]`), and, when logged out, what the
 * real one prints: `FAILED` / `Not logged in. Use 'ibmcloud login' to log in.` with exit 1.
 * `ibmcloud target -r R -g G` switches the target stored in `$IBMCLOUD_HOME/.bluemix` (default
 * `$HOME/.bluemix`), as the real one does.
 *
 * Run as `deno run -A ibmcloud_cli.ts ARGS`; {@link installIbmcloud} puts an `ibmcloud` script that
 * does so on a PATH directory.
 *
 * @module
 */

/** The zones and VLANs of each region the stand-in knows. */
export const REGIONS: Record<
  string,
  { metro: string; zones: Record<string, [string, "public" | "private", string][]> }
> = {
  "us-south": {
    metro: "Dallas",
    zones: {
      dal10: [["2558531", "public", "1849"], ["2558537", "private", "2372"]],
      dal12: [["2711001", "public", "901"], ["2711002", "private", "902"], [
        "2711003",
        "private",
        "903",
      ]],
      dal13: [],
    },
  },
  "ca-tor": {
    metro: "Toronto",
    zones: { tor01: [["3100001", "public", "11"], ["3100002", "private", "12"]] },
  },
  "br-sao": {
    metro: "Sao Paulo",
    zones: { sao01: [["3200001", "public", "21"], ["3200002", "private", "22"]] },
  },
  "jp-osa": {
    metro: "Osaka",
    zones: { osa21: [["3300001", "public", "31"], ["3300002", "private", "32"]] },
  },
  "eu-es": { metro: "Madrid", zones: {} },
};

/** Writes an `ibmcloud` command into `dir` and the logged-in target into `home`. */
export async function installIbmcloud(
  dir: string,
  home: string,
  target: { region: string; resourceGroup?: string } | undefined,
): Promise<void> {
  const script = `#!/bin/sh\nexec "${Deno.execPath()}" run -A --quiet "${
    new URL(import.meta.url).pathname
  }" "$@"\n`;
  await Deno.writeTextFile(`${dir}/ibmcloud`, script, { mode: 0o755 });
  await Deno.mkdir(`${home}/.bluemix`, { recursive: true });
  if (target) {
    await Deno.writeTextFile(
      `${home}/.bluemix/target.json`,
      JSON.stringify({ region: target.region, resourceGroup: target.resourceGroup ?? "default" }),
    );
  }
}

if (import.meta.main) {
  const args = Deno.args.filter((a, i, all) => a !== "--output" && all[i - 1] !== "--output");
  const home = Deno.env.get("IBMCLOUD_HOME") || Deno.env.get("HOME") || "";
  const file = `${home}/.bluemix/target.json`;
  const say = (text: string) => Deno.stdout.writeSync(new TextEncoder().encode(text));
  let target: { region: string; resourceGroup: string } | undefined;
  try {
    target = JSON.parse(Deno.readTextFileSync(file));
  } catch {
    target = undefined;
  }
  if (!target) {
    say("FAILED\nNot logged in. Use 'ibmcloud login' to log in.\n");
    Deno.exit(1);
  }
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  if (args[0] === "target") {
    const region = flag("-r");
    const group = flag("-g");
    if (region) {
      if (!REGIONS[region]) {
        say(`FAILED\nRegion '${region}' was not found.\n`);
        Deno.exit(1);
      }
      target.region = region;
    }
    if (group) target.resourceGroup = group;
    Deno.writeTextFileSync(file, JSON.stringify(target));
    say(JSON.stringify({
      api_endpoint: "https://cloud.ibm.com",
      region: { name: target.region },
      resource_group: { name: target.resourceGroup, guid: "0123abcd" },
      user: { display_name: "someone@example.com" },
    }));
    Deno.exit(0);
  }
  const region = REGIONS[target.region];
  if (args[0] === "ks" && args[1] === "zone" && args[2] === "ls") {
    say(
      JSON.stringify(Object.keys(region?.zones ?? {}).map((id) => ({ id, metro: region!.metro }))),
    );
    Deno.exit(0);
  }
  if (args[0] === "ks" && args[1] === "vlan" && args[2] === "ls") {
    const zone = flag("--zone") ?? "";
    const vlans = region?.zones[zone];
    if (!vlans) {
      say(`FAILED\nThe zone '${zone}' is not valid for this region.\n`);
      Deno.exit(1);
    }
    say(JSON.stringify(vlans.map(([id, type, number]) => ({
      id,
      type,
      properties: {
        name: "",
        note: "",
        primary_router: `${type === "public" ? "fcr" : "bcr"}01a.${zone}`,
        vlan_number: number,
        vlan_type: type,
        location: zone,
      },
    }))));
    Deno.exit(0);
  }
  say(`FAILED\n'${args.join(" ")}' is not a command this stand-in knows.\n`);
  Deno.exit(2);
}
