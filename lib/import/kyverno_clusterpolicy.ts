/**
 * Kyverno `kyverno.io/v1` (and `v2beta1`) ClusterPolicy and Policy rules with `verifyImages`,
 * imported as toolkit policies: one ClusterImagePolicy per rule (an ImagePolicy per namespace
 * when the rule matches listed namespaces only, or when the source is a namespaced Policy), with
 * the key Secrets its keys need. Every field is mapped (the table in docs/migration.md, "Kyverno
 * ClusterPolicy verifyImages") or reported with its path; a rule that cannot be converted without
 * changing which images it admits is refused.
 *
 * @module
 */
import type { ImportContext, ImportedRule, ImportSource, PolicyImporter } from "./types.ts";
import { objectName } from "./naming.ts";
import { policyObject, PUBLIC_GOOD_TRUST_ROOT } from "./objects.ts";
import {
  anyOfTrusts,
  type AttestorTrust,
  documentSource,
  Findings,
  identityField,
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
import { jmesConditionsToCel } from "./kyverno_conditions.ts";

const API_VERSIONS = ["kyverno.io/v1", "kyverno.io/v2beta1"];
const KINDS = ["ClusterPolicy", "Policy"];

/** Kinds whose Pod specs toolkit's webhook checks (docs/admission.md). */
const POD_KINDS = [
  "Pod",
  "Deployment",
  "ReplicaSet",
  "StatefulSet",
  "DaemonSet",
  "Job",
  "CronJob",
  "ReplicationController",
];

/** One requirement (toolkit's schema) and its trust fields. */
type Requirement = Record<string, unknown>;

/** What an attestor entry trusts, as a requirement's trust fields. */
type Trust = AttestorTrust;

class RuleConverter {
  readonly f = new Findings();
  #publicGoodReported = false;

  constructor(
    readonly objects: RuleObjects,
    /** Namespace of the key Secrets this rule names, when not the policy's default. */
    readonly secretNamespace: string | undefined,
  ) {}

  publicGoodRoot(path: string): Record<string, unknown> {
    if (!this.#publicGoodReported) {
      this.#publicGoodReported = true;
      this.f.unmapped(
        path,
        `Kyverno fetched the sigstore public-good trust root by TUF; toolkit reads it from the ConfigMap "${PUBLIC_GOOD_TRUST_ROOT}" (entry trusted_root.json) in the trust root's namespace: create it from the public-good TUF repository's trusted_root.json`,
      );
    }
    return { name: PUBLIC_GOOD_TRUST_ROOT };
  }

  /** The tlog fields of a keyed entry from its `rekor`. */
  keyedTlog(rekor: Obj, path: string): Record<string, unknown> {
    reportUnknown(this.f, rekor, ["url", "pubkey", "ignoreTlog", "tsaCertChain"], path);
    if (rekor.ignoreTlog === true) return { tlog: "optional" };
    if (present(rekor, "tsaCertChain")) {
      this.f.unmapped(
        `${path}.tsaCertChain`,
        "a timestamp authority's chain belongs in the trust root's timestampAuthorities",
      );
    }
    const url = stringAt(rekor, "url");
    if (present(rekor, "pubkey") || !isPublicGood(url)) {
      const name = objectName(this.objects.base, "trust-root");
      this.f.unmapped(
        `${path}${present(rekor, "pubkey") ? ".pubkey" : ".url"}`,
        `a private Rekor: toolkit reads its key from a trusted_root.json: create the ConfigMap "${name}" with the log's key in tlogs[]`,
      );
      return { tlog: "required", trustRootRef: { name } };
    }
    return {
      tlog: "required",
      trustRootRef: this.publicGoodRoot(present(rekor, "url") ? `${path}.url` : path),
    };
  }

  keyedEntry(keys: Obj, path: string): Trust | undefined {
    const f = this.f;
    reportUnknown(
      f,
      keys,
      ["publicKeys", "signatureAlgorithm", "kms", "secret", "rekor", "ctlog"],
      path,
    );
    const algorithm = stringAt(keys, "signatureAlgorithm");
    if (algorithm !== undefined && algorithm !== "sha256") {
      f.refuse(
        `${path}.signatureAlgorithm`,
        `${algorithm}: toolkit verifies cosign key signatures over SHA-256 only`,
      );
      return undefined;
    }
    if (present(keys, "kms")) {
      f.refuse(
        `${path}.kms`,
        "KMS keys are not fetched by toolkit: export the public key and import it as publicKeys",
      );
      return undefined;
    }
    const keyCtlog = objAt(keys, "ctlog");
    reportUnknown(f, keyCtlog, ["ignoreSCT", "pubkey", "tsaCertChain"], `${path}.ctlog`);
    if (present(keyCtlog, "pubkey") || present(keyCtlog, "tsaCertChain")) {
      f.unmapped(
        `${path}.ctlog`,
        "SCTs and timestamps of key signatures are not checked by toolkit (a key signature has no certificate)",
      );
    }
    const tlog = this.keyedTlog(objAt(keys, "rekor"), `${path}.rekor`);
    const secret = objAt(keys, "secret");
    if (present(keys, "secret")) {
      reportUnknown(f, secret, ["name", "namespace"], `${path}.secret`);
      const name = stringAt(secret, "name");
      if (name === undefined) {
        f.refuse(`${path}.secret.name`, "a secret reference needs a name");
        return undefined;
      }
      return secretKeyTrust(name, stringAt(secret, "namespace"), tlog, `${path}.secret`, f);
    }
    const text = stringAt(keys, "publicKeys");
    if (text === undefined) {
      f.refuse(path, "a keys attestor needs publicKeys, secret or kms");
      return undefined;
    }
    const k8s = /^k8s:\/\/([^/]+)\/([^/]+)$/.exec(text.trim());
    if (k8s) {
      f.unmapped(
        `${path}.publicKeys`,
        `toolkit reads the key from the Secret's "key" entry (cosign's k8s:// reads "cosign.pub"): copy it there`,
      );
      return { fields: { keySecret: k8s[2], keySecretNamespace: k8s[1], ...tlog } };
    }
    if (text.includes("{{")) {
      f.refuse(
        `${path}.publicKeys`,
        "the keys come from a variable of the rule's context, which cannot be resolved when importing: import the key itself",
      );
      return undefined;
    }
    const pems = pemBlocks(text);
    if (pems === undefined) {
      f.refuse(
        `${path}.publicKeys`,
        "neither PEM keys nor a k8s:// Secret reference (a KMS URI?): toolkit reads PEM keys",
      );
      return undefined;
    }
    return { fields: { ...tlog }, pems };
  }

  keylessEntry(keyless: Obj, path: string): Trust | undefined {
    const f = this.f;
    reportUnknown(
      f,
      keyless,
      [
        "subject",
        "issuer",
        "subjectRegExp",
        "issuerRegExp",
        "roots",
        "rekor",
        "ctlog",
        "additionalExtensions",
      ],
      path,
    );
    const subject = stringAt(keyless, "subject");
    const subjectRegExp = stringAt(keyless, "subjectRegExp");
    const issuer = stringAt(keyless, "issuer");
    const issuerRegExp = stringAt(keyless, "issuerRegExp");
    if (issuer !== undefined && issuerRegExp !== undefined) {
      f.stronger(
        `${path}.issuerRegExp`,
        "Kyverno required both issuer and issuerRegExp; toolkit checks issuer only (an issuer matching it but not the regexp is accepted)",
      );
      f.weaker(
        `${path}.issuerRegExp`,
        "an issuer that equals issuer but fails issuerRegExp is accepted",
      );
    }
    const issuerPart = identityField(
      "issuer",
      issuer,
      issuer === undefined ? issuerRegExp : undefined,
    );
    const identities: Record<string, string>[] = [];
    // Kyverno accepts a certificate whose SAN matches subject OR subjectRegExp.
    if (subject !== undefined) {
      identities.push({ ...issuerPart, ...identityField("subject", subject, undefined) });
    }
    if (subjectRegExp !== undefined) {
      identities.push({ ...issuerPart, ...identityField("subject", undefined, subjectRegExp) });
    }
    if (identities.length === 0) identities.push({ ...issuerPart, subjectRegExp: ".*" });
    if (present(keyless, "additionalExtensions")) {
      f.weaker(
        `${path}.additionalExtensions`,
        "toolkit checks the certificate's issuer and subject only: the other Fulcio extensions (workflow trigger, repository…) are not checked",
      );
    }
    const rekor = objAt(keyless, "rekor");
    reportUnknown(f, rekor, ["url", "pubkey", "ignoreTlog"], `${path}.rekor`);
    const ctlog = objAt(keyless, "ctlog");
    reportUnknown(f, ctlog, ["ignoreSCT", "pubkey"], `${path}.ctlog`);
    if (ctlog.ignoreSCT === true) {
      f.stronger(
        `${path}.ctlog.ignoreSCT`,
        "toolkit checks the certificate's SCT against the trust root's CT logs whenever the trust root lists any",
      );
    }
    const custom = present(keyless, "roots") || present(rekor, "pubkey") ||
      present(ctlog, "pubkey") ||
      !isPublicGood(stringAt(rekor, "url"));
    let trustRootRef: Record<string, unknown>;
    if (custom) {
      const name = objectName(this.objects.base, "trust-root");
      const what = ["roots", "rekor.pubkey", "ctlog.pubkey", "rekor.url"].filter((p) => {
        const [a = "", b] = p.split(".");
        return b === undefined ? present(keyless, a) : present(objAt(keyless, a), b);
      });
      f.unmapped(
        `${path}.${what[0] ?? "roots"}`,
        `a private sigstore instance (${
          what.join(", ")
        }): toolkit reads Fulcio roots and log keys from a trusted_root.json: create the ConfigMap "${name}" holding them`,
      );
      trustRootRef = { name };
    } else {
      trustRootRef = this.publicGoodRoot(path);
    }
    return {
      fields: {
        keyless: { trustRootRef, identities },
        ...(rekor.ignoreTlog === true ? { tlog: "optional" } : {}),
      },
    };
  }

  entry(entry: unknown, path: string): Trust | undefined {
    const f = this.f;
    if (!isObj(entry)) {
      f.refuse(path, "an attestor entry must be an object");
      return undefined;
    }
    reportUnknown(f, entry, [
      "keys",
      "keyless",
      "certificates",
      "attestor",
      "annotations",
      "repository",
    ], path);
    if (present(entry, "attestor")) {
      f.refuse(
        `${path}.attestor`,
        "a nested attestor set (from a context variable) cannot be resolved when importing",
      );
      return undefined;
    }
    if (present(entry, "certificates")) {
      f.refuse(
        `${path}.certificates`,
        "toolkit verifies cosign signatures by key or keyless (Fulcio), not by a given certificate chain",
      );
      return undefined;
    }
    if (present(entry, "repository")) {
      f.refuse(
        `${path}.repository`,
        "signatures stored in another repository are not looked up by toolkit: it reads them beside the image",
      );
      return undefined;
    }
    if (present(entry, "annotations")) {
      f.weaker(`${path}.annotations`, "toolkit does not check the signature's annotations");
    }
    if (present(entry, "keys")) return this.keyedEntry(objAt(entry, "keys"), `${path}.keys`);
    if (present(entry, "keyless")) {
      return this.keylessEntry(objAt(entry, "keyless"), `${path}.keyless`);
    }
    f.refuse(path, "an attestor entry needs keys, keyless, certificates or attestor");
    return undefined;
  }

  /**
   * The requirements an attestor list demands (every set must hold; within a set, `count`
   * entries, all when absent), of `base` type fields.
   */
  attestors(
    sets: unknown[],
    path: string,
    base: Record<string, unknown>,
  ): Requirement[] | undefined {
    const out: Requirement[] = [];
    for (const [i, set] of sets.entries()) {
      const at = `${path}[${i}]`;
      if (!isObj(set)) {
        this.f.refuse(at, "an attestor set must be an object");
        return undefined;
      }
      reportUnknown(this.f, set, ["count", "entries"], at);
      const entries = listAt(set, "entries");
      if (entries.length === 0) {
        this.f.refuse(`${at}.entries`, "an attestor set without entries verifies nothing");
        return undefined;
      }
      const trusts: Trust[] = [];
      for (const [j, entry] of entries.entries()) {
        const trust = this.entry(entry, `${at}.entries[${j}]`);
        if (trust === undefined) return undefined;
        // Several keys in one publicKeys are several entries, the count applied across them.
        if (trust.pems && trust.pems.length > 1) {
          for (const pem of trust.pems) trusts.push({ ...trust, pems: [pem] });
        } else {
          trusts.push(trust);
        }
      }
      const count = typeof set.count === "number" ? set.count : trusts.length;
      if (count >= trusts.length) {
        for (const [j, trust] of trusts.entries()) {
          out.push(this.requirement(base, trust, `${i}-${j}`));
        }
      } else if (count === 1) {
        const any = this.anyOf(base, trusts, `${i}`, `${at}.count`);
        if (any === undefined) return undefined;
        out.push(any);
      } else {
        this.f.refuse(
          `${at}.count`,
          `${count} of ${trusts.length} keys or identities: toolkit has no n-of-m requirement`,
        );
        return undefined;
      }
    }
    return out;
  }

  requirement(base: Record<string, unknown>, trust: Trust, suffix: string): Requirement {
    const keySecret = trust.pems
      ? {
        keySecret: this.objects.keySecret(`key-${suffix}`, trust.pems.join("\n")),
        ...this.nsField(),
      }
      : {};
    return { ...base, ...keySecret, ...trust.fields };
  }

  nsField(): Record<string, string> {
    return this.secretNamespace ? { keySecretNamespace: this.secretNamespace } : {};
  }

  /** One requirement any of the entries satisfies: inline keys in one Secret, or keyless identities. */
  anyOf(
    base: Record<string, unknown>,
    trusts: Trust[],
    suffix: string,
    path: string,
  ): Requirement | undefined {
    const any = anyOfTrusts(trusts);
    if ("refused" in any) {
      this.f.refuse(path, any.refused);
      return undefined;
    }
    return any.pems === undefined
      ? { ...base, ...any.fields }
      : this.requirement(base, any, `any-${suffix}`);
  }
}

/** Whether `doc` is a Kyverno ClusterPolicy/Policy. */
function accepts(doc: unknown): boolean {
  return isObj(doc) && API_VERSIONS.includes(String(doc.apiVersion)) &&
    KINDS.includes(String(doc.kind));
}

const SPEC_FIELDS = [
  "rules",
  "validationFailureAction",
  "validationFailureActionOverrides",
  "background",
  "webhookTimeoutSeconds",
  "failurePolicy",
  "admission",
  "emitWarning",
  "applyRules",
  "useServerSideApply",
  "schemaValidation",
  "generateExisting",
  "generateExistingOnPolicyUpdate",
  "mutateExistingOnPolicyUpdate",
  "webhookConfiguration",
];

/** Findings about the policy's spec, reported on its first image rule. */
function specFindings(spec: Obj, f: Findings): void {
  reportUnknown(f, spec, SPEC_FIELDS, "spec");
  // background (true by default) is what toolkit's PolicyReport controller does for every policy.
  if (spec.background === false) {
    f.stronger(
      "spec.background",
      "toolkit's PolicyReports (--policy-reports) judge running workloads under every policy, this one too",
    );
  }
  if (present(spec, "webhookTimeoutSeconds")) {
    f.unmapped(
      "spec.webhookTimeoutSeconds",
      "the webhook's timeout is set once for toolkit's webhook (its chart), not per policy",
    );
  }
  const webhook = objAt(spec, "webhookConfiguration");
  if (present(webhook, "timeoutSeconds")) {
    f.unmapped(
      "spec.webhookConfiguration.timeoutSeconds",
      "the webhook's timeout is set once for toolkit's webhook",
    );
  }
  if (present(webhook, "matchConditions")) {
    f.stronger(
      "spec.webhookConfiguration.matchConditions",
      "toolkit's webhook reviews every Pod and workload: the conditions are not applied",
    );
  }
  const failurePolicy = stringAt(spec, "failurePolicy") ?? stringAt(webhook, "failurePolicy");
  if (failurePolicy === "Ignore") {
    f.stronger(
      "spec.failurePolicy",
      "toolkit's webhook fails closed: an image that cannot be verified is denied",
    );
  }
  if (present(spec, "validationFailureActionOverrides")) {
    f.unmapped(
      "spec.validationFailureActionOverrides",
      "per-namespace actions become the Namespace label toolkit.dev/enforcement=warn|enforce, which applies to every policy of the namespace: set it by hand",
    );
  }
  if (spec.admission === false) {
    f.refuse(
      "spec.admission",
      "an admission-disabled policy only reports; toolkit's policies always apply at admission (to report without enforcing, import it with the action Audit: mode warn)",
    );
  }
  if (spec.emitWarning === true) f.unmapped("spec.emitWarning", "toolkit warns in warn mode only");
  if (stringAt(spec, "applyRules") === "One") {
    f.weaker(
      "spec.applyRules",
      "toolkit applies the most specific matching pattern, not the first matching rule",
    );
  }
}

/** The mode a failure action means: Audit warns, Enforce denies. */
function modeOf(action: string | undefined): "warn" | "enforce" | undefined {
  if (action === undefined) return undefined;
  return action.toLowerCase() === "audit" ? "warn" : "enforce";
}

/** Namespaces a rule's match lists (when every filter lists some), or undefined. */
function matchScope(rule: Obj, path: string, f: Findings): string[] | undefined | null {
  const match = objAt(rule, "match");
  const filters: [Obj, string][] = [];
  for (const key of ["any", "all"]) {
    listAt(match, key).forEach((item, i) => {
      if (isObj(item)) filters.push([item, `${path}.match.${key}[${i}]`]);
    });
  }
  if (present(match, "resources")) filters.push([match, `${path}.match`]);
  reportUnknown(
    f,
    match,
    ["any", "all", "resources", "subjects", "roles", "clusterRoles"],
    `${path}.match`,
  );
  const namespaceSets: (string[] | undefined)[] = [];
  let podKinds = false;
  for (const [filter, at] of filters) {
    reportUnknown(f, filter, ["resources", "subjects", "roles", "clusterRoles"], at);
    for (const key of ["subjects", "roles", "clusterRoles"]) {
      if (present(filter, key)) {
        f.stronger(`${at}.${key}`, "toolkit checks every requester's workloads");
      }
    }
    const resources = objAt(filter, "resources");
    reportUnknown(
      f,
      resources,
      [
        "kinds",
        "namespaces",
        "namespaceSelector",
        "names",
        "name",
        "selector",
        "annotations",
        "operations",
      ],
      `${at}.resources`,
    );
    const kinds = listAt(resources, "kinds").map((k) => String(k).split("/").pop() ?? "");
    const others = kinds.filter((k) => !POD_KINDS.includes(k) && k !== "*");
    if (kinds.some((k) => POD_KINDS.includes(k) || k === "*")) podKinds = true;
    if (others.length > 0) {
      f.weaker(
        `${at}.resources.kinds`,
        `toolkit verifies the images of Pods and pod templates only, not of ${others.join(", ")}`,
      );
    }
    for (const key of ["names", "name", "selector", "annotations", "namespaceSelector"]) {
      if (present(resources, key)) {
        f.stronger(
          `${at}.resources.${key}`,
          "toolkit applies the policy to every workload of its namespaces: this filter is not applied",
        );
      }
    }
    const operations = listAt(resources, "operations").map(String);
    if (
      operations.length > 0 && !(operations.includes("CREATE") && operations.includes("UPDATE"))
    ) {
      f.stronger(`${at}.resources.operations`, "toolkit checks creates and updates alike");
    }
    const namespaces = listAt(resources, "namespaces").map(String);
    if (namespaces.some((n) => n.includes("*") || n.includes("?"))) {
      f.stronger(
        `${at}.resources.namespaces`,
        "namespace wildcards cannot be listed: the rule becomes cluster-wide",
      );
      namespaceSets.push(undefined);
    } else {
      namespaceSets.push(namespaces.length > 0 ? namespaces : undefined);
    }
  }
  if (filters.length > 0 && !podKinds) {
    f.refuse(
      `${path}.match`,
      "the rule matches no Pod or workload kind: toolkit verifies only the images of Pods and pod templates",
    );
    return null;
  }
  if (namespaceSets.length === 0 || namespaceSets.some((s) => s === undefined)) return undefined;
  return [...new Set(namespaceSets.flatMap((s) => s ?? []))].sort();
}

function excludeFindings(rule: Obj, path: string, f: Findings): void {
  const exclude = objAt(rule, "exclude");
  if (Object.keys(exclude).length === 0) return;
  const namespaces = JSON.stringify(exclude).includes('"namespaces"');
  f.stronger(
    `${path}.exclude`,
    `toolkit does not exclude resources per policy${
      namespaces
        ? "; exempt a namespace from every policy with the label toolkit.dev/image-security=exempt"
        : ""
    }`,
  );
}

/** Converts one `verifyImages` rule into repositories (of toolkit's schema), adding its objects. */
function convertVerifyImages(
  c: RuleConverter,
  verifyImages: unknown[],
  rulePath: string,
  spec: Obj,
): Record<string, unknown>[] {
  const f = c.f;
  const repositories: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const [j, raw] of verifyImages.entries()) {
    const path = `${rulePath}.verifyImages[${j}]`;
    if (!isObj(raw)) {
      f.refuse(path, "a verifyImages entry must be an object");
      continue;
    }
    const vi = raw;
    reportUnknown(f, vi, [
      "failureAction",
      "type",
      "image",
      "imageReferences",
      "skipImageReferences",
      "key",
      "roots",
      "subject",
      "issuer",
      "additionalExtensions",
      "attestors",
      "attestations",
      "annotations",
      "repository",
      "cosignOCI11",
      "mutateDigest",
      "verifyDigest",
      "validate",
      "required",
      "imageRegistryCredentials",
      "useCache",
    ], path);
    const type = stringAt(vi, "type") ?? "Cosign";
    if (type === "Notary") {
      f.refuse(`${path}.type`, "Notary (Notation) signatures are not verified by toolkit");
      continue;
    }
    if (type !== "Cosign" && type !== "SigstoreBundle") {
      f.refuse(`${path}.type`, `unknown signature type ${type}`);
      continue;
    }
    if (present(vi, "repository")) {
      f.refuse(
        `${path}.repository`,
        "signatures stored in another repository are not looked up by toolkit: it reads them beside the image",
      );
      continue;
    }
    if (present(vi, "validate")) {
      f.refuse(
        `${path}.validate`,
        "deny conditions across attestations are not translated: use an attestation condition over the attestations variable by hand",
      );
      continue;
    }
    if (present(vi, "annotations")) {
      f.weaker(`${path}.annotations`, "toolkit does not check the signature's annotations");
    }
    if (present(vi, "skipImageReferences")) {
      f.stronger(
        `${path}.skipImageReferences`,
        "toolkit has no per-rule exception: the skipped images are checked by this rule too",
      );
    }
    if (present(vi, "imageRegistryCredentials")) {
      f.unmapped(
        `${path}.imageRegistryCredentials`,
        "toolkit reads registries with the workload's pull Secrets and its own credentials, not per policy",
      );
    }
    if (vi.required === false) {
      f.stronger(
        `${path}.required`,
        "toolkit verifies the images on every admission, also when already verified",
      );
    }
    const mutate = vi.mutateDigest !== false;
    if (vi.verifyDigest !== false && !mutate) {
      f.weaker(
        `${path}.verifyDigest`,
        "Kyverno denied images not referenced by digest; toolkit verifies the digest the tag resolves to and admits the tag unpinned (mutateDigest: false)",
      );
    }
    // Patterns.
    const patterns: string[] = [];
    const sources: [string, string][] = [];
    listAt(vi, "imageReferences").forEach((p, k) =>
      sources.push([String(p), `${path}.imageReferences[${k}]`])
    );
    if (stringAt(vi, "image")) sources.push([String(vi.image), `${path}.image`]);
    if (sources.length === 0) {
      f.refuse(`${path}.imageReferences`, "no image references: the rule governs no image");
      continue;
    }
    for (const [p, at] of sources) {
      const translated = translateImagePattern(p, at, f, "wildcard");
      if (translated === undefined) continue;
      if (seen.has(translated)) {
        f.weaker(
          at,
          `the pattern ${translated} appears twice in the rule: toolkit applies the first entry's requirements only`,
        );
        continue;
      }
      seen.add(translated);
      patterns.push(translated);
    }
    if (f.refused) continue;
    // Attestors: the deprecated single-key fields first.
    const sets = [...listAt(vi, "attestors")];
    const legacy = stringAt(vi, "key");
    if (legacy !== undefined) sets.push({ entries: [{ keys: { publicKeys: legacy } }] });
    if (present(vi, "subject") || present(vi, "issuer") || present(vi, "roots")) {
      sets.push({
        entries: [{
          keyless: {
            ...(vi.subject ? { subject: vi.subject } : {}),
            ...(vi.issuer ? { issuer: vi.issuer } : {}),
            ...(vi.roots ? { roots: vi.roots } : {}),
            ...(vi.additionalExtensions ? { additionalExtensions: vi.additionalExtensions } : {}),
          },
        }],
      });
    }
    const requirements = c.attestors(sets, `${path}.attestors`, { type: "sigstoreSigned" }) ?? [];
    if (f.refused) continue;
    for (const [k, att] of listAt(vi, "attestations").entries()) {
      const at = `${path}.attestations[${k}]`;
      if (!isObj(att)) {
        f.refuse(at, "an attestation must be an object");
        break;
      }
      reportUnknown(f, att, ["type", "predicateType", "name", "attestors", "conditions"], at);
      const typeField = stringAt(att, "predicateType") !== undefined ? "predicateType" : "type";
      const sourceType = stringAt(att, typeField);
      if (sourceType === undefined) {
        f.refuse(`${at}.predicateType`, "an attestation needs a predicate type");
        break;
      }
      const predicateType = toolkitPredicateType(sourceType, `${at}.${typeField}`, f);
      if (predicateType === undefined) break;
      const conditions = jmesConditionsToCel(
        listAt(att, "conditions"),
        `${at}.conditions`,
        f,
        stringAt(att, "name"),
      );
      if (conditions === undefined) break;
      const attestors = listAt(att, "attestors");
      if (attestors.length === 0) {
        f.refuse(
          `${at}.attestors`,
          "an attestation without attestors: toolkit verifies an attestation's signature by its requirement's key or keyless identity",
        );
        break;
      }
      const base = {
        type: "attestation",
        predicateType,
        ...(conditions.length > 0 ? { conditions } : {}),
      };
      const reqs = c.attestors(attestors, `${at}.attestors`, base);
      if (reqs === undefined) break;
      requirements.push(...reqs);
    }
    if (f.refused) continue;
    if (requirements.length === 0) {
      // A rule that only pins images to their digest (mutateDigest) and checks no signature.
      requirements.push({ type: "insecureAcceptAnything" });
    }
    const action = stringAt(vi, "failureAction") ?? stringAt(spec, "validationFailureAction");
    const mode = modeOf(action);
    if (mode === "warn" && mutate) {
      f.unmapped(
        `${path}.mutateDigest`,
        "Kyverno refuses mutateDigest with Audit; toolkit pins images in warn mode too when they verify",
      );
    }
    const policy = {
      mutateImage: mutate,
      ...(mode ? { mode } : {}),
      simple: { requirements },
    };
    for (const name of patterns) repositories.push({ name, policy });
  }
  return repositories;
}

async function convert(
  doc: Obj,
  index: number,
  context: ImportContext,
): Promise<readonly ImportedRule[]> {
  await Promise.resolve();
  const { name, namespace: docNamespace, source: base } = documentSource(
    doc,
    index,
    doc.kind === "Policy",
  );
  const spec = objAt(doc, "spec");
  const rules = listAt(spec, "rules");
  const out: ImportedRule[] = [];
  let specReported = false;
  if (rules.length === 0) {
    const f = new Findings();
    f.refuse("spec.rules", "the policy has no rules");
    return [{ source: base, objects: [], findings: f.list, refused: true }];
  }
  for (const [i, raw] of rules.entries()) {
    const path = `spec.rules[${i}]`;
    const rule = isObj(raw) ? raw : {};
    const ruleName = stringAt(rule, "name") ?? `rule-${i}`;
    const source: ImportSource = { ...base, rule: ruleName };
    const verifyImages = listAt(rule, "verifyImages");
    if (verifyImages.length === 0) {
      const other = ["validate", "mutate", "generate"].find((k) => present(rule, k)) ?? "rule";
      out.push({
        source,
        objects: [],
        findings: [{
          path: `${path}.${other === "rule" ? "verifyImages" : other}`,
          kind: "unmapped",
          reason: "not an image-verification rule: not imported",
        }],
        refused: false,
      });
      continue;
    }
    const objectBase = objectName(name, ruleName);
    const scopeFindings = new Findings();
    if (!specReported) {
      specFindings(spec, scopeFindings);
      specReported = true;
    }
    reportUnknown(scopeFindings, rule, [
      "name",
      "match",
      "exclude",
      "preconditions",
      "context",
      "verifyImages",
      "imageExtractors",
      "celPreconditions",
    ], path);
    if (present(rule, "preconditions") || present(rule, "celPreconditions")) {
      scopeFindings.stronger(
        `${path}.preconditions`,
        "toolkit applies the rule to every matching image: preconditions are not evaluated",
      );
    }
    if (present(rule, "context")) {
      scopeFindings.unmapped(
        `${path}.context`,
        "context variables are not carried over (conditions that use them are refused)",
      );
    }
    if (present(rule, "imageExtractors")) {
      scopeFindings.weaker(
        `${path}.imageExtractors`,
        "toolkit verifies the images of Pods and pod templates only, not images in custom fields",
      );
    }
    const listed = matchScope(rule, path, scopeFindings);
    excludeFindings(rule, path, scopeFindings);
    const targets: (string | undefined)[] = docNamespace !== undefined
      ? [docNamespace]
      : listed === null
      ? []
      : listed === undefined
      ? [undefined]
      : listed;
    if (docNamespace === undefined && listed) {
      scopeFindings.weaker(
        `${path}.match`,
        `the rule becomes an ImagePolicy in ${
          listed.join(", ")
        }: there, an ImagePolicy replaces every ClusterImagePolicy, so images this rule does not match fall to the webhook's --no-match choice`,
      );
    } else if (docNamespace !== undefined) {
      scopeFindings.weaker(
        "metadata.namespace",
        `an ImagePolicy replaces every ClusterImagePolicy in ${docNamespace} (Kyverno applied both): images this rule does not match fall to the webhook's --no-match choice`,
      );
    }
    let findings: Findings | undefined;
    const objects: Record<string, unknown>[] = [];
    for (const target of targets) {
      const secretNamespace = target ?? context.controllerNamespace;
      const ruleObjects = new RuleObjects(source, secretNamespace, objectBase);
      const converter = new RuleConverter(ruleObjects, undefined);
      const repositories = convertVerifyImages(converter, verifyImages, path, spec);
      findings ??= converter.f;
      if (converter.f.refused) break;
      objects.push(policyObject(objectBase, target, repositories, source), ...ruleObjects.extra);
    }
    const all = [...scopeFindings.list, ...(findings?.list ?? [])];
    const refused = scopeFindings.refused || (findings?.refused ?? false);
    out.push({ source, objects: refused ? [] : objects, findings: all, refused });
  }
  return out;
}

/** The importer of Kyverno ClusterPolicy/Policy `verifyImages` rules. */
export const kyvernoClusterPolicyImporter: PolicyImporter = {
  name: "kyverno-clusterpolicy",
  accepts,
  convert,
  everyMatchingRuleApplies: true,
};
