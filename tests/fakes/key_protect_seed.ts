/**
 * Keys put into the Key Protect stand-in (`key_protect_server.ts`) through its public API, as a
 * test's setting: also the kinds toolkit's client never creates, such as a root key (not
 * extractable, its material made by the service).
 *
 * @module
 */
import { KEY_MEDIA_TYPE } from "../../lib/vault/mod.ts";
import type { KeyProtectServer } from "./key_protect_server.ts";

/** Creates a key with `POST /api/v2/keys` and returns its id. */
export async function seedKey(
  vault: KeyProtectServer,
  access: { readonly instanceId: string; readonly token: string },
  key: { readonly name: string; readonly extractable: boolean; readonly payload?: Uint8Array },
): Promise<string> {
  const response = await fetch(`${vault.url}/api/v2/keys`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${access.token}`,
      "bluemix-instance": access.instanceId,
      "content-type": KEY_MEDIA_TYPE,
    },
    body: JSON.stringify({
      metadata: { collectionType: KEY_MEDIA_TYPE, collectionTotal: 1 },
      resources: [{
        type: KEY_MEDIA_TYPE,
        name: key.name,
        extractable: key.extractable,
        ...(key.payload ? { payload: btoa(String.fromCharCode(...key.payload)) } : {}),
      }],
    }),
  });
  const body = await response.json() as { resources: { id: string }[] };
  if (response.status !== 201) {
    throw new Error(`cannot seed key ${key.name}: ${JSON.stringify(body)}`);
  }
  return body.resources[0]!.id;
}
