/**
 * The request-body attacks of issue #33 on the real webhook process (its release runtime flags
 * and defaults), shared by `body_attack_e2e_test.ts` and `deno task bench`:
 *
 * - **held bodies**: 128 connections each send a `Content-Length` and all of the body but its
 *   last byte, then wait: once with 8 MiB (the figure, over the per-request cap), once
 *   just under the cap (3 MiB), which only the body pool bounds;
 * - **wide JSON**: bodies of `[],[],…` (a value per 3 bytes), one and then four at once, of 8 MiB
 *   and of just under the cap;
 * - **deep JSON**: a body nested about 4 million levels deep, and one as deep as the cap allows.
 *
 * Each starts its own webhook (so that its peak memory is the attack's), measures it with
 * {@linkcode measureAttack}, then sends a normal review, which must still be admitted, and stops
 * everything. Every request gets an HTTP answer (413, 503, 400) or its connection is closed.
 *
 * @module
 */
import { type AttackFigures, measureAttack } from "./_attack.ts";
import { RELEASE_RUNTIME_FLAGS, type TestWebhook } from "./_webhook.ts";
import { startWorld } from "./_world.ts";

const MiB = 1024 * 1024;
/** The webhook's default per-request cap (`--max-request-bytes`). */
export const REQUEST_CAP = 3 * MiB;
/** How long the held bodies are held, in ms (the webhook's own request timeout is 30 s). */
const HOLD_MS = 3000;

/** What one body attack did, beyond its figures. */
export interface BodyAttackResult {
  readonly figures: AttackFigures;
  /** How many requests got each answer: `"413"`, `"503"`, `"closed"` (no answer), … */
  readonly answers: Readonly<Record<string, number>>;
  /** Whether a normal review was admitted after the attack. */
  readonly admittedAfter: boolean;
}

/** How long a request waits for its answer once its bytes are sent, in ms. */
const ANSWER_WAIT_MS = 30_000;

/**
 * Sends a request's head and body on a TLS connection of its own, then waits for the answer
 * until `hold` settles (or {@linkcode ANSWER_WAIT_MS}); resolves with its status, `"held"` when
 * none came, `"closed"` when the webhook closed without one. `written` is called once the bytes
 * are sent (or could not be).
 */
async function sendRaw(
  webhook: Pick<TestWebhook, "port" | "ca">,
  head: string,
  body: (write: (bytes: Uint8Array) => Promise<boolean>) => Promise<void>,
  hold?: Promise<void>,
  written?: () => void,
): Promise<string> {
  let conn: Deno.TlsConn;
  try {
    conn = await Deno.connectTls({
      hostname: "127.0.0.1",
      port: webhook.port,
      caCerts: [webhook.ca.certPem],
    });
  } catch {
    written?.();
    return "refused";
  }
  let answered: string | undefined;
  const reading = (async () => {
    const buffer = new Uint8Array(4096);
    let text = "";
    try {
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) break;
        text += new TextDecoder().decode(buffer.subarray(0, n));
        const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (match) {
          answered = match[1]!;
          break;
        }
      }
    } catch {
      // reset
    }
    return answered ?? "closed";
  })();
  const write = async (bytes: Uint8Array) => {
    if (answered !== undefined) return false;
    try {
      let offset = 0;
      while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
      return true;
    } catch {
      return false;
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    if (await write(new TextEncoder().encode(head))) await body(write);
    written?.();
    // Held until the attack ends, unless the webhook answered (or closed) first.
    const until = hold ?? new Promise<void>((r) => (timer = setTimeout(r, ANSWER_WAIT_MS)));
    const status = await Promise.race([reading, until.then(() => undefined)]);
    return status ?? (answered ?? "held");
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the webhook
    }
    await reading.catch(() => {});
  }
}

function requestHead(length: number): string {
  return `POST /admit?timeout=10s HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${length}\r\n\r\n`;
}

/** Writes `length` bytes made by repeating `unit` after `prefix`, in 64 KiB chunks. */
function repeated(prefix: string, unit: string, length: number) {
  return async (write: (bytes: Uint8Array) => Promise<boolean>) => {
    const chunk = new TextEncoder().encode(unit.repeat(Math.ceil(65536 / unit.length)));
    const first = new TextEncoder().encode(prefix);
    if (!(await write(first))) return;
    let sent = first.length;
    while (sent < length) {
      const part = chunk.subarray(0, Math.min(chunk.length, length - sent));
      if (!(await write(part))) return;
      sent += part.length;
    }
  };
}

function tally(statuses: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

/** A `--policies` file whose one policy matches none of the attacks' images. */
const POLICY = `apiVersion: toolkit.dev/v1
kind: ClusterImagePolicy
metadata: { name: default }
spec:
  repositories:
    - name: "registry.invalid/*"
      policy:
        simple: { requirements: [{ type: signedBy, keySecret: signer }] }
`;

/** Starts a webhook at its release runtime flags, runs `attack`, checks a normal review after. */
async function underAttack(
  name: string,
  attack: (webhook: TestWebhook) => Promise<string[]>,
): Promise<BodyAttackResult> {
  await using world = await startWorld({ cluster: false, images: false });
  const webhook = await world.startWebhook({
    policies: await world.file("policies.yaml", POLICY),
    args: ["--no-match", "allow"],
    runtimeFlags: RELEASE_RUNTIME_FLAGS,
  });
  const { result, figures } = await measureAttack(name, webhook, attack(webhook));
  const answers = tally(result);
  let admittedAfter = false;
  try {
    admittedAfter =
      (await webhook.reviewPod("after", "dev", "docker.io/library/nginx:1.27")).allowed;
  } catch {
    admittedAfter = false;
  }
  const note = Object.entries(answers).map(([s, n]) => `${n} × ${s}`).join(", ");
  return { figures: { ...figures, note }, answers, admittedAfter };
}

/**
 * 128 connections each send a `Content-Length` of 8 MiB and then 128 more one just under the
 * per-request cap, all but the last byte, and hold them.
 */
export async function runHeldBodies(connections = 128): Promise<BodyAttackResult> {
  return await underAttack(
    `${connections} connections × 8 MiB and × 3 MiB bodies held`,
    async (webhook) => {
      const statuses: string[] = [];
      for (const length of [8 * MiB, REQUEST_CAP]) {
        let release!: () => void;
        const hold = new Promise<void>((r) => (release = r));
        const body = repeated('{"pad":"', "x", length - 1);
        let pending = connections;
        // Held for a while once every connection has sent what it will.
        const written = () => {
          if (--pending === 0) setTimeout(release, HOLD_MS);
        };
        const sending = Array.from(
          { length: connections },
          () => sendRaw(webhook, requestHead(length), body, hold, written),
        );
        statuses.push(...await Promise.all(sending));
      }
      return statuses;
    },
  );
}

/**
 * `[],[],…` bodies: one, then four at once, of 8 MiB and then at the cap; then bodies of short
 * strings at the cap (a value per 11 bytes, within the shape a body may have: parsed, when the
 * pool holds them).
 */
export async function runWideJson(): Promise<BodyAttackResult> {
  return await underAttack("1 and 4 bodies of [],[],… (8 MiB, 3 MiB)", async (webhook) => {
    const statuses: string[] = [];
    const shapes = [[8 * MiB, "[],"], [REQUEST_CAP, "[],"], [REQUEST_CAP, '"abcdefgh",']] as const;
    for (const [length, unit] of shapes) {
      for (const count of [1, 4]) {
        const body = repeated("[", unit, length);
        statuses.push(
          ...await Promise.all(
            Array.from({ length: count }, () => sendRaw(webhook, requestHead(length), body)),
          ),
        );
      }
    }
    return statuses;
  });
}

/** A body nested about 4 million levels deep, and one as deep as the cap allows. */
export async function runDeepJson(): Promise<BodyAttackResult> {
  return await underAttack("bodies nested 4 million and 3 million levels", async (webhook) => {
    const statuses: string[] = [];
    for (const length of [4_000_000, REQUEST_CAP]) {
      const body = repeated("", "[", length);
      statuses.push(await sendRaw(webhook, requestHead(length), body));
    }
    return statuses;
  });
}

/** The held-bodies attack's figures, for the bench. */
export async function heldBodiesAttack(): Promise<AttackFigures> {
  return (await runHeldBodies()).figures;
}

/** The wide-JSON attack's figures, for the bench. */
export async function wideJsonAttack(): Promise<AttackFigures> {
  return (await runWideJson()).figures;
}

/** The deep-JSON attack's figures, for the bench. */
export async function deepJsonAttack(): Promise<AttackFigures> {
  return (await runDeepJson()).figures;
}
