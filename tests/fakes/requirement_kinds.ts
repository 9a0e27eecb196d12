/**
 * Fakes for the tests of the requirement kinds: services that record what they are asked and
 * answer with fixed keys, and a policy match.
 *
 * @module
 */
import type { PolicyMatch } from "../../lib/policy/mod.ts";
import { TurnScheduler } from "../../lib/turns.ts";
import { IdentityRules } from "../../lib/admission/identity_rules.ts";
import type { TrustedKeys } from "../../lib/admission/keys.ts";
import type { KindServices, PlanContext } from "../../lib/admission/requirement_kind.ts";

/** Services whose key sources answer `keys-of:<namespace>/<name>`, and what they were asked. */
export function fakeServices(): { services: KindServices; asked: string[] } {
  const asked: string[] = [];
  const services: KindServices = {
    keys: {
      keys: (namespace, name): Promise<TrustedKeys> => {
        asked.push(`keys ${namespace}/${name}`);
        return Promise.resolve({ keys: [], fingerprints: [], id: `keys-of:${namespace}/${name}` });
      },
    },
    sigstoreKeys: {
      sigstoreKeys: (namespace, name) => {
        asked.push(`sigstoreKeys ${namespace}/${name}`);
        return Promise.resolve({ keys: [], id: `pem-of:${namespace}/${name}` } as never);
      },
    },
    sigstoreMaterial: {
      trustRoot: (ref, namespace) => {
        asked.push(`trustRoot ${ref.namespace ?? namespace}/${ref.name}`);
        return Promise.resolve({ id: `root-of:${ref.name}` } as never);
      },
    },
    identityRules: new IdentityRules(new TurnScheduler()),
    turns: new TurnScheduler(),
    clock: () => new Date(0),
  };
  return { services, asked };
}

/** A ClusterImagePolicy "p" chosen by `pattern`. */
export function fakeMatch(pattern = "registry.example/*"): PolicyMatch {
  return {
    policy: {},
    pattern,
    source: 'ClusterImagePolicy "p"',
    kind: "ClusterImagePolicy",
    name: "p",
    namespace: undefined,
  };
}

/** A plan context in the controller's namespace `toolkit-system`. */
export function fakePlanContext(services: KindServices): PlanContext {
  return { match: fakeMatch(), policyNamespace: "toolkit-system", services };
}
