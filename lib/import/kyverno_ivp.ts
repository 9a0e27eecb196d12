/**
 * Kyverno `policies.kyverno.io` ImageValidatingPolicy (v1alpha1, v1beta1, v1) and
 * NamespacedImageValidatingPolicy (v1beta1, v1), imported as one toolkit policy each. The CEL
 * `validations` are read for the patterns that say what toolkit's requirements say:
 *
 * - `images.<list>.map(image, verifyImageSignatures(image, [attestors.A…])).all(e, e > 0)`:
 *   every image signed by A (a `sigstoreSigned` requirement). Several attestors: any one of
 *   them, one requirement when toolkit's meaning is exact ({@linkcode anyOfTrusts}, as for a
 *   ClusterPolicy's `count: 1`: inline keys in one Secret, or keyless identities of one trust
 *   root, the attestors' Rekor/CT/TUF settings the same), refused otherwise;
 * - `images.<list>.map(image, verifyAttestationSignatures(image, attestations.T, [attestors.A])).all(e, e > 0)`:
 *   an attestation of T's in-toto type signed by A (an `attestation` requirement);
 * - `images.<list>.map(image, <P>).all(e, e)` where P reads `extractPayload(image, attestations.T).predicate…`
 *   only: a condition of T's attestation requirement, `extractPayload(…)` read as toolkit's
 *   `statement`.
 *
 * Any other validation is refused with its path (a policy is one rule: refused whole).
 *
 * @module
 */
import type { ImportContext, ImportedRule, PolicyImporter } from "./types.ts";
import { objectName } from "./naming.ts";
import { policyObject, PUBLIC_GOOD_TRUST_ROOT } from "./objects.ts";
import {
  anyOfTrusts,
  type AttestorTrust,
  documentSource,
  Findings,
  isObj,
  isPublicGood,
  listAt,
  type Obj,
  objAt,
  pemBlocks,
  predicateType as toolkitPredicateType,
  present,
  reportUnknown,
  RuleObjects,
  secretKeyTrust,
  stringAt,
  translateImagePattern,
} from "./kyverno_common.ts";

const GROUP = "policies.kyverno.io/";
const KINDS = ["ImageValidatingPolicy", "NamespacedImageValidatingPolicy"];

function accepts(doc: unknown): boolean {
  return isObj(doc) && String(doc.apiVersion).startsWith(GROUP) && KINDS.includes(String(doc.kind));
}

const SPEC_FIELDS = [
  "matchImageReferences",
  "attestors",
  "attestations",
  "validations",
  "validationActions",
  "validationConfigurations",
  "failurePolicy",
  "matchConstraints",
  "matchConditions",
  "credentials",
  "evaluation",
  "webhookConfiguration",
  "auditAnnotations",
  "variables",
  "images",
  "autogen",
];

const LIST = String.raw`images\.(?:containers|initContainers|ephemeralContainers)`;
const SIGNED = new RegExp(
  String
    .raw`^${LIST}\.map\(\s*(\w+)\s*,\s*verifyImageSignatures\(\s*\1\s*,\s*\[([^\]]*)\]\s*\)\s*\)\.all\(\s*(\w+)\s*,\s*\3\s*>\s*0\s*\)$`,
);
const ATTESTED = new RegExp(
  String
    .raw`^${LIST}\.map\(\s*(\w+)\s*,\s*verifyAttestationSignatures\(\s*\1\s*,\s*attestations\.(\w+)\s*,\s*\[([^\]]*)\]\s*\)\s*\)\.all\(\s*(\w+)\s*,\s*\4\s*>\s*0\s*\)$`,
);
const PAYLOAD = new RegExp(
  String.raw`^${LIST}\.map\(\s*(\w+)\s*,\s*([\s\S]+)\)\.all\(\s*(\w+)\s*,\s*\3\s*\)$`,
);

/** What an attestor trusts, as requirement fields. */
type Trust = Record<string, unknown>;

/** The fields of a cosign attestor naming its sigstore instance (Rekor, CT log, TUF, roots). */
const INSTANCE_FIELDS = ["ctlog", "tuf", "trustedRoot"] as const;

class IvpConverter {
  readonly f = new Findings();
  constructor(readonly objects: RuleObjects) {}

  attestor(raw: unknown, path: string): AttestorTrust | undefined {
    const f = this.f;
    if (!isObj(raw)) return void f.refuse(path, "an attestor must be an object");
    reportUnknown(f, raw, ["name", "cosign", "notary"], path);
    if (present(raw, "notary")) {
      return void f.refuse(
        `${path}.notary`,
        "Notary (Notation) signatures are not verified by toolkit",
      );
    }
    const cosign = objAt(raw, "cosign");
    const at = `${path}.cosign`;
    reportUnknown(f, cosign, [
      "key",
      "keyless",
      "certificate",
      "source",
      "ctlog",
      "tuf",
      "annotations",
      "trustedRoot",
    ], at);
    if (present(cosign, "certificate")) {
      return void f.refuse(
        `${at}.certificate`,
        "toolkit verifies cosign signatures by key or keyless, not by a given certificate",
      );
    }
    if (present(cosign, "source")) {
      return void f.refuse(
        `${at}.source`,
        "signatures stored in another repository are not looked up by toolkit",
      );
    }
    if (present(cosign, "annotations")) {
      f.weaker(`${at}.annotations`, "toolkit does not check the signature's annotations");
    }
    if (present(cosign, "tuf")) {
      f.unmapped(
        `${at}.tuf`,
        "toolkit reads a trusted_root.json from a ConfigMap, not a TUF repository: put the instance's trusted_root.json in the trust root named by the requirement",
      );
    }
    const ctlog = objAt(cosign, "ctlog");
    reportUnknown(f, ctlog, [
      "url",
      "rekorPubKey",
      "ctLogPubKey",
      "tsaCertChain",
      "insecureIgnoreTlog",
      "insecureIgnoreSCT",
    ], `${at}.ctlog`);
    const custom = present(ctlog, "rekorPubKey") || present(ctlog, "ctLogPubKey") ||
      present(ctlog, "tsaCertChain") ||
      !isPublicGood(stringAt(ctlog, "url")) || present(cosign, "trustedRoot") ||
      present(cosign, "tuf");
    const rootName = custom ? objectName(this.objects.base, "trust-root") : PUBLIC_GOOD_TRUST_ROOT;
    f.unmapped(
      present(cosign, "ctlog") ? `${at}.ctlog` : at,
      custom
        ? `a private sigstore instance: create the ConfigMap "${rootName}" with its trusted_root.json (Fulcio roots, Rekor and CT log keys)`
        : `Kyverno fetched the public-good trust root by TUF; toolkit reads it from the ConfigMap "${PUBLIC_GOOD_TRUST_ROOT}" (trusted_root.json): create it`,
    );
    if (ctlog.insecureIgnoreSCT === true) {
      f.stronger(
        `${at}.ctlog.insecureIgnoreSCT`,
        "toolkit checks SCTs whenever the trust root lists CT logs",
      );
    }
    const ignoreTlog = ctlog.insecureIgnoreTlog === true;
    if (present(cosign, "key")) {
      const key = objAt(cosign, "key");
      reportUnknown(
        f,
        key,
        ["data", "kms", "secretRef", "hashAlgorithm", "expression"],
        `${at}.key`,
      );
      const hash = stringAt(key, "hashAlgorithm");
      if (hash !== undefined && hash.toLowerCase() !== "sha256") {
        return void f.refuse(
          `${at}.key.hashAlgorithm`,
          `${hash}: toolkit verifies cosign key signatures over SHA-256 only`,
        );
      }
      const tlog = ignoreTlog
        ? { tlog: "optional" }
        : { tlog: "required", trustRootRef: { name: rootName } };
      if (present(key, "kms")) {
        return void f.refuse(`${at}.key.kms`, "KMS keys are not fetched by toolkit");
      }
      if (present(key, "expression")) {
        return void f.refuse(
          `${at}.key.expression`,
          "a key computed by CEL cannot be resolved when importing",
        );
      }
      if (present(key, "secretRef")) {
        const ref = objAt(key, "secretRef");
        const name = stringAt(ref, "name");
        if (name === undefined) return void f.refuse(`${at}.key.secretRef.name`, "is required");
        return secretKeyTrust(name, stringAt(ref, "namespace"), tlog, `${at}.key.secretRef`, f);
      }
      const pems = pemBlocks(stringAt(key, "data") ?? "");
      if (pems === undefined) return void f.refuse(`${at}.key.data`, "no PEM public key");
      return { fields: tlog, pems };
    }
    if (present(cosign, "keyless")) {
      const keyless = objAt(cosign, "keyless");
      reportUnknown(f, keyless, ["identities", "roots"], `${at}.keyless`);
      if (present(keyless, "roots") && !custom) {
        f.unmapped(
          `${at}.keyless.roots`,
          `custom Fulcio roots: create the ConfigMap "${
            objectName(this.objects.base, "trust-root")
          }" with a trusted_root.json holding them`,
        );
      }
      const identities: Record<string, string>[] = [];
      for (const [i, id] of listAt(keyless, "identities").entries()) {
        if (!isObj(id)) return void f.refuse(`${at}.keyless.identities[${i}]`, "must be an object");
        reportUnknown(
          f,
          id,
          ["issuer", "subject", "issuerRegExp", "subjectRegExp"],
          `${at}.keyless.identities[${i}]`,
        );
        const issuer = stringAt(id, "issuer");
        const subject = stringAt(id, "subject");
        if (issuer !== undefined && stringAt(id, "issuerRegExp") !== undefined) {
          f.weaker(
            `${at}.keyless.identities[${i}].issuerRegExp`,
            "both issuer and issuerRegExp: toolkit checks issuer only",
          );
        }
        if (subject !== undefined && stringAt(id, "subjectRegExp") !== undefined) {
          f.weaker(
            `${at}.keyless.identities[${i}].subjectRegExp`,
            "both subject and subjectRegExp: toolkit checks subject only",
          );
        }
        identities.push({
          ...(issuer !== undefined
            ? { issuer }
            : { issuerRegExp: stringAt(id, "issuerRegExp") ?? ".*" }),
          ...(subject !== undefined
            ? { subject }
            : { subjectRegExp: stringAt(id, "subjectRegExp") ?? ".*" }),
        });
      }
      if (identities.length === 0) return void f.refuse(`${at}.keyless.identities`, "no identity");
      const rootRef = present(keyless, "roots") && !custom
        ? objectName(this.objects.base, "trust-root")
        : rootName;
      return {
        fields: {
          keyless: { trustRootRef: { name: rootRef }, identities },
          ...(ignoreTlog ? { tlog: "optional" } : {}),
        },
      };
    }
    return void f.refuse(at, "an attestor needs cosign.key, cosign.keyless or notary");
  }
}

/** `attestors.A, attestors.B` → [A, B], or undefined. */
function attestorNames(list: string): string[] | undefined {
  const names = list.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const out: string[] = [];
  for (const n of names) {
    const m = /^attestors\.(\w+)$/.exec(n);
    if (!m) return undefined;
    out.push(m[1] ?? "");
  }
  return out.length > 0 ? out : undefined;
}

async function convert(
  doc: Obj,
  index: number,
  context: ImportContext,
): Promise<readonly ImportedRule[]> {
  await Promise.resolve();
  const { name, namespace, source } = documentSource(
    doc,
    index,
    doc.kind === "NamespacedImageValidatingPolicy",
  );
  const spec = objAt(doc, "spec");
  const objects = new RuleObjects(
    source,
    namespace ?? context.controllerNamespace,
    objectName(name),
  );
  const c = new IvpConverter(objects);
  const f = c.f;
  const done = (repositories: Record<string, unknown>[]): ImportedRule[] => [{
    source,
    objects: f.refused
      ? []
      : [policyObject(objectName(name), namespace, repositories, source), ...objects.extra],
    findings: f.list,
    refused: f.refused,
  }];
  reportUnknown(f, spec, SPEC_FIELDS, "spec");
  if (namespace !== undefined) {
    f.weaker(
      "metadata.namespace",
      `an ImagePolicy replaces every ClusterImagePolicy in ${namespace} (Kyverno applied both): images this policy does not match fall to the webhook's --no-match choice`,
    );
  }
  // Scope and actions.
  const actions = listAt(spec, "validationActions").map(String);
  const mode = actions.length > 0 && !actions.includes("Deny") ? "warn" : "enforce";
  if (present(spec, "matchConditions")) {
    f.stronger(
      "spec.matchConditions",
      "toolkit reviews every Pod and workload: the conditions are not applied",
    );
  }
  const constraints = objAt(spec, "matchConstraints");
  if (
    present(constraints, "namespaceSelector") || present(constraints, "objectSelector") ||
    present(constraints, "excludeResourceRules")
  ) {
    f.stronger(
      "spec.matchConstraints",
      "toolkit applies the policy to every workload: selectors and exclusions are not applied",
    );
  }
  const rules = listAt(constraints, "resourceRules");
  const resources = rules.flatMap((r) => (isObj(r) ? listAt(r, "resources").map(String) : []));
  const podLike = [
    "pods",
    "deployments",
    "replicasets",
    "statefulsets",
    "daemonsets",
    "jobs",
    "cronjobs",
    "*",
  ];
  if (resources.length > 0 && !resources.some((r) => podLike.includes(r))) {
    f.refuse(
      "spec.matchConstraints.resourceRules",
      `the policy matches ${
        resources.join(", ")
      }: toolkit verifies only the images of Pods and pod templates`,
    );
    return done([]);
  }
  if (resources.some((r) => !podLike.includes(r))) {
    f.weaker(
      "spec.matchConstraints.resourceRules",
      "toolkit verifies the images of Pods and pod templates only",
    );
  }
  if (stringAt(spec, "failurePolicy") === "Ignore") {
    f.stronger("spec.failurePolicy", "toolkit's webhook fails closed");
  }
  if (objAt(objAt(spec, "evaluation"), "background").enabled === false) {
    f.stronger(
      "spec.evaluation.background",
      "toolkit's PolicyReports (--policy-reports) judge running workloads under every policy, this one too",
    );
  }
  const evaluation = objAt(spec, "evaluation");
  reportUnknown(f, evaluation, ["admission", "background", "mode"], "spec.evaluation");
  if (stringAt(evaluation, "mode") === "JSON") {
    f.refuse(
      "spec.evaluation.mode",
      "a JSON-mode policy checks JSON payloads, not Kubernetes workloads",
    );
    return done([]);
  }
  if (objAt(evaluation, "admission").enabled === false) {
    f.refuse(
      "spec.evaluation.admission",
      "an admission-disabled policy only reports; toolkit's policies always apply at admission (to report without enforcing, import it with the action Audit: mode warn)",
    );
    return done([]);
  }
  if (present(objAt(spec, "webhookConfiguration"), "timeoutSeconds")) {
    f.unmapped(
      "spec.webhookConfiguration.timeoutSeconds",
      "the webhook's timeout is set once for toolkit's webhook",
    );
  }
  if (present(spec, "credentials")) {
    f.unmapped(
      "spec.credentials",
      "toolkit reads registries with the workload's pull Secrets and its own credentials, not per policy",
    );
  }
  if (present(spec, "images")) {
    f.weaker(
      "spec.images",
      "toolkit verifies the images of Pods and pod templates only, not images extracted by CEL",
    );
  }
  if (present(spec, "auditAnnotations")) {
    f.unmapped("spec.auditAnnotations", "toolkit writes its own audit events");
  }
  const config = objAt(spec, "validationConfigurations");
  reportUnknown(
    f,
    config,
    ["mutateDigest", "verifyDigest", "required"],
    "spec.validationConfigurations",
  );
  const mutateImage = config.mutateDigest !== false;
  if (config.verifyDigest !== false && !mutateImage) {
    f.weaker(
      "spec.validationConfigurations.verifyDigest",
      "Kyverno denied images not referenced by digest; toolkit admits the tag unpinned (mutateDigest: false)",
    );
  }
  if (config.required === false) {
    f.stronger("spec.validationConfigurations.required", "toolkit verifies on every admission");
  }
  // Patterns.
  const patterns: string[] = [];
  for (const [i, m] of listAt(spec, "matchImageReferences").entries()) {
    const at = `spec.matchImageReferences[${i}]`;
    if (!isObj(m)) continue;
    if (present(m, "expression")) {
      f.refuse(`${at}.expression`, "a CEL image match has no pattern equivalent");
      continue;
    }
    const glob = stringAt(m, "glob");
    if (glob === undefined) continue;
    const p = translateImagePattern(glob, `${at}.glob`, f, "glob");
    if (p !== undefined && !patterns.includes(p)) patterns.push(p);
  }
  if (listAt(spec, "matchImageReferences").length === 0) {
    f.refuse(
      "spec.matchImageReferences",
      "no image references: toolkit needs patterns to govern images",
    );
  }
  if (f.refused) return done([]);
  // Attestors and attestations by name.
  const attestors = new Map<string, [unknown, string]>();
  listAt(spec, "attestors").forEach((a, i) => {
    if (isObj(a) && typeof a.name === "string") attestors.set(a.name, [a, `spec.attestors[${i}]`]);
  });
  const attestations = new Map<string, { type?: string; path: string }>();
  listAt(spec, "attestations").forEach((a, i) => {
    const at = `spec.attestations[${i}]`;
    if (!isObj(a) || typeof a.name !== "string") return;
    reportUnknown(f, a, ["name", "intoto", "referrer"], at);
    if (present(a, "referrer")) {
      attestations.set(a.name, { path: `${at}.referrer` });
    } else {
      attestations.set(a.name, {
        type: stringAt(objAt(a, "intoto"), "type"),
        path: `${at}.intoto`,
      });
    }
  });
  /** The requirement fields of "signed by any one of `names`", key Secrets made. */
  const trustOf = (names: string[], at: string): Trust | undefined => {
    const trusts: AttestorTrust[] = [];
    for (const n of names) {
      const entry = attestors.get(n);
      if (!entry) return void f.refuse(at, `no attestor named ${n}`);
      const t = c.attestor(entry[0], entry[1]);
      if (t === undefined) return undefined;
      trusts.push(t);
    }
    let trust = trusts[0];
    if (trusts.length > 1) {
      // One trust root name stands for every private instance: the attestors must name the same.
      const instance = (n: string) => {
        const cosign = objAt(attestors.get(n)![0] as Obj, "cosign");
        return JSON.stringify([
          ...INSTANCE_FIELDS.map((k) => cosign[k] ?? null),
          objAt(cosign, "keyless").roots ?? null,
        ]);
      };
      if (!names.every((n) => instance(n) === instance(names[0]!))) {
        return void f.refuse(
          at,
          "any one of attestors of different sigstore instances (ctlog, tuf, trustedRoot, keyless.roots): toolkit has one trust root per requirement",
        );
      }
      const any = anyOfTrusts(trusts);
      if ("refused" in any) {
        return void f.refuse(at, `any one of ${names.join(", ")}: ${any.refused}`);
      }
      trust = any;
    }
    if (trust === undefined) return undefined;
    if (trust.pems === undefined) return trust.fields;
    const suffix = names.length === 1 ? `key-${names[0]}` : `key-any-${names.join("-")}`;
    return { keySecret: c.objects.keySecret(suffix, trust.pems.join("\n")), ...trust.fields };
  };
  const requirements: Record<string, unknown>[] = [];
  const attestationReqs = new Map<
    string,
    Record<string, unknown> & { conditions: Record<string, unknown>[] }
  >();
  const payloadValidations: [string, string, string | undefined, string][] = [];
  for (const [i, v] of listAt(spec, "validations").entries()) {
    const at = `spec.validations[${i}].expression`;
    if (!isObj(v)) continue;
    reportUnknown(
      f,
      v,
      ["expression", "message", "messageExpression", "reason"],
      `spec.validations[${i}]`,
    );
    const expression = (stringAt(v, "expression") ?? "").trim().replace(/\s+/g, " ");
    const message = stringAt(v, "message");
    let m = SIGNED.exec(expression);
    if (m) {
      const names = attestorNames(m[2] ?? "");
      const trust = names && trustOf(names, at);
      if (!trust) {
        if (!f.refused) f.refuse(at, "the attestor list is not a list of attestors.NAME");
        break;
      }
      requirements.push({ type: "sigstoreSigned", ...trust });
      continue;
    }
    m = ATTESTED.exec(expression);
    if (m) {
      const attestation = attestations.get(m[2] ?? "");
      const names = attestorNames(m[3] ?? "");
      if (!attestation || attestation.type === undefined) {
        f.refuse(
          at,
          attestation
            ? `${attestation.path}: referrer artifacts (not in-toto attestations) are not verified by toolkit`
            : `no attestation named ${m[2]}`,
        );
        break;
      }
      const trust = names && trustOf(names, at);
      if (!trust) {
        if (!f.refused) f.refuse(at, "the attestor list is not a list of attestors.NAME");
        break;
      }
      const type = toolkitPredicateType(attestation.type, `${attestation.path}.type`, f);
      if (type === undefined) break;
      const req = {
        type: "attestation",
        predicateType: type,
        ...trust,
        conditions: [],
      };
      attestationReqs.set(m[2] ?? "", req);
      requirements.push(req);
      continue;
    }
    m = PAYLOAD.exec(expression);
    if (m) {
      const variable = m[1] ?? "";
      const body = (m[2] ?? "").trim();
      const calls = [...body.matchAll(/extractPayload\(\s*(\w+)\s*,\s*attestations\.(\w+)\s*\)/g)];
      const names = [...new Set(calls.map((c) => c[2]))];
      if (calls.length > 0 && names.length === 1 && calls.every((c) => c[1] === variable)) {
        const cel = body.replace(
          /extractPayload\(\s*\w+\s*,\s*attestations\.\w+\s*\)/g,
          "statement",
        );
        if (
          !new RegExp(String.raw`\b${variable}\b`).test(cel) &&
          !/\b(images|object|request|variables)\b/.test(cel)
        ) {
          payloadValidations.push([names[0] ?? "", cel, message, at]);
          continue;
        }
      }
    }
    f.refuse(
      at,
      "this CEL validation is not one of the patterns toolkit's requirements express (every image signed by an attestor, an attestation present, a condition over extractPayload)",
    );
    break;
  }
  if (f.refused) return done([]);
  for (const [k, [attestation, cel, message, at]] of payloadValidations.entries()) {
    const req = attestationReqs.get(attestation);
    if (!req) {
      f.refuse(
        at,
        `extractPayload of attestation ${attestation} without a verifyAttestationSignatures validation: toolkit reads only verified attestations`,
      );
      return done([]);
    }
    req.conditions.push({
      name: `validation-${k}`,
      expression: cel,
      ...(message ? { message } : {}),
    });
  }
  for (const req of attestationReqs.values()) {
    if (req.conditions.length === 0) delete (req as Record<string, unknown>).conditions;
  }
  if (requirements.length === 0) {
    f.refuse("spec.validations", "no validation verifies a signature or attestation");
    return done([]);
  }
  if (JSON.stringify(spec.validations ?? "").includes("images.containers")) {
    f.stronger(
      "spec.validations",
      "the validations read images.containers; toolkit verifies init and ephemeral containers' images too",
    );
  }
  const policy = { mutateImage, mode, simple: { requirements } };
  return done(patterns.map((name) => ({ name, policy })));
}

/** The importer of Kyverno (Namespaced)ImageValidatingPolicy. */
export const kyvernoImageValidatingPolicyImporter: PolicyImporter = {
  name: "kyverno-imagevalidatingpolicy",
  accepts,
  convert,
  everyMatchingRuleApplies: true,
};
