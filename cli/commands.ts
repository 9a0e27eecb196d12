/**
 * Every command of the toolkit CLI, in the order of `--help`. Each command is declared beside its
 * code (`dev/sync_command.ts`: usage, help and flags; `dev/sync.ts`: what it does); this list
 * joins the two, importing the declarations (cheap: `--help` and completion read them) and each
 * implementation only when its command runs. Names, aliases and flags follow the Cloud-Native
 * Toolkit CLI (`igc`) so that its users' scripts keep working.
 *
 * A new command: add `<name>_command.ts` (its {@linkcode defineCommand} declaration, with the flag
 * groups of `flags.ts`), `<name>.ts` (its `run`, reaching the outside world only through its
 * context) and `<name>_test.ts` (its in-process tests) in the folder of its kind, and one line
 * here. The tests of the command list follow from it: `--help`, completion, `-o json|yaml`
 * (unless the declaration says `withoutOutput`), the test file (`commands_test.ts`) and the walk
 * (`walk_test.ts`, which needs an entry only for a command that does not simply talk to a
 * cluster). docs/architecture.md, "A new command".
 *
 * @module
 */
import { command, type CommandSpec, group } from "./command.ts";
import { COMPLETION } from "./completion_command.ts";
import { CONSOLE } from "./dev/console_command.ts";
import { CREATE_WEBHOOK } from "./dev/create_webhook_command.ts";
import { CREDENTIALS } from "./dev/credentials_command.ts";
import { DASHBOARD } from "./dev/dashboard_command.ts";
import { ENDPOINTS } from "./dev/endpoints_command.ts";
import { GIT } from "./dev/git_command.ts";
import { GIT_SECRET, GITOPS } from "./dev/git_secret_command.ts";
import { PIPELINE } from "./dev/pipeline_command.ts";
import { PULL_SECRET } from "./dev/pull_secret_command.ts";
import { SYNC } from "./dev/sync_command.ts";
import { TOOL_CONFIG } from "./dev/tool_config_command.ts";
import { ENABLE } from "./pipeline_files/enable_command.ts";
import { CHECK } from "./image_security/check_command.ts";
import { AUDIT } from "./image_security/audit_command.ts";
import { ROLLOUT } from "./image_security/rollout_command.ts";
import { IMPORT } from "./image_security/import_command.ts";
import { DOCTOR } from "./image_security/doctor_command.ts";
import { IMAGE_SECURITY } from "./image_security/image_security_command.ts";
import {
  DISABLE,
  ENABLE_ENFORCEMENT,
  ROTATE_CERTS,
  STATUS,
} from "./image_security/enforcement_command.ts";
import { KEY_SECRET } from "./image_security/key_secret_command.ts";
import { TRUST_ROOT } from "./image_security/trust_root_command.ts";
import { KEYGEN } from "./image_security/keygen_command.ts";
import { SETUP_SIGNING } from "./image_security/setup_signing_command.ts";
import { SIGN } from "./image_security/sign_command.ts";
import { ATTEST } from "./image_security/attest_command.ts";
import { VAULT, VAULT_FETCH, VAULT_STORE } from "./image_security/vault_command.ts";
import { VERIFY } from "./image_security/verify_command.ts";
import { VLAN } from "./vlan/vlan_command.ts";
import { YQ_COMPARE } from "./yq/compare_command.ts";
import { YQ_DELETE } from "./yq/delete_command.ts";
import { YQ_MERGE } from "./yq/merge_command.ts";
import { YQ_NEW } from "./yq/new_command.ts";
import { YQ_PREFIX } from "./yq/prefix_command.ts";
import { YQ_READ } from "./yq/read_command.ts";
import { YQ_VALIDATE } from "./yq/validate_command.ts";
import { YQ_WRITE } from "./yq/write_command.ts";
import { YQ } from "./yq/yq_command.ts";

/** The top-level commands, in the order of `--help`. */
export const COMMANDS: readonly CommandSpec[] = [
  command(COMPLETION, () => import("./print_completion.ts").then((m) => m.run)),
  command(CONSOLE, () => import("./dev/console.ts").then((m) => m.run)),
  command(CREATE_WEBHOOK, () => import("./dev/create_webhook.ts").then((m) => m.run)),
  command(CREDENTIALS, () => import("./dev/credentials.ts").then((m) => m.run)),
  command(DASHBOARD, () => import("./dev/dashboard.ts").then((m) => m.run)),
  command(ENABLE, () => import("./pipeline_files/enable.ts").then((m) => m.run)),
  command(ENDPOINTS, () => import("./dev/endpoints.ts").then((m) => m.run)),
  command(GIT_SECRET, () => import("./dev/git_secret.ts").then((m) => m.run)),
  command(GIT, () => import("./dev/git.ts").then((m) => m.run)),
  command(GITOPS, () => import("./dev/git_secret.ts").then((m) => m.runGitops)),
  command(SYNC, () => import("./dev/sync.ts").then((m) => m.run)),
  command(PULL_SECRET, () => import("./dev/pull_secret.ts").then((m) => m.run)),
  command(PIPELINE, () => import("./dev/pipeline.ts").then((m) => m.run)),
  command(TOOL_CONFIG, () => import("./dev/tool_config.ts").then((m) => m.run)),
  command(VLAN, () => import("./vlan/vlan.ts").then((m) => m.run)),
  group(YQ, [
    command(YQ_READ, () => import("./yq/read.ts").then((m) => m.run)),
    command(YQ_WRITE, () => import("./yq/write.ts").then((m) => m.run)),
    command(YQ_DELETE, () => import("./yq/delete.ts").then((m) => m.run)),
    command(YQ_MERGE, () => import("./yq/merge.ts").then((m) => m.run)),
    command(YQ_NEW, () => import("./yq/new.ts").then((m) => m.run)),
    command(YQ_PREFIX, () => import("./yq/prefix.ts").then((m) => m.run)),
    command(YQ_COMPARE, () => import("./yq/compare.ts").then((m) => m.run)),
    command(YQ_VALIDATE, () => import("./yq/validate.ts").then((m) => m.run)),
  ]),
  group(IMAGE_SECURITY, [
    command(KEYGEN, () => import("./image_security/keygen.ts").then((m) => m.run)),
    command(SIGN, () => import("./image_security/sign.ts").then((m) => m.run)),
    command(ATTEST, () => import("./image_security/attest.ts").then((m) => m.run)),
    command(VERIFY, () => import("./image_security/verify.ts").then((m) => m.run)),
    command(KEY_SECRET, () => import("./image_security/key_secret.ts").then((m) => m.run)),
    command(TRUST_ROOT, () => import("./image_security/trust_root.ts").then((m) => m.run)),
    command(
      SETUP_SIGNING,
      () => import("./image_security/setup_signing.ts").then((m) => m.run),
    ),
    group(VAULT, [
      command(VAULT_STORE, () => import("./image_security/vault.ts").then((m) => m.runVaultStore)),
      command(VAULT_FETCH, () => import("./image_security/vault.ts").then((m) => m.runVaultFetch)),
    ]),
    command(DOCTOR, () => import("./image_security/doctor.ts").then((m) => m.run)),
    command(CHECK, () => import("./image_security/check.ts").then((m) => m.run)),
    command(AUDIT, () => import("./image_security/audit.ts").then((m) => m.run)),
    command(ROLLOUT, () => import("./image_security/rollout.ts").then((m) => m.run)),
    command(IMPORT, () => import("./image_security/import.ts").then((m) => m.run)),
    command(
      ENABLE_ENFORCEMENT,
      () => import("./image_security/enforcement.ts").then((m) => m.runEnable),
    ),
    command(STATUS, () => import("./image_security/enforcement.ts").then((m) => m.runStatus)),
    command(DISABLE, () => import("./image_security/enforcement.ts").then((m) => m.runDisable)),
    command(
      ROTATE_CERTS,
      () => import("./image_security/enforcement.ts").then((m) => m.runRotateCerts),
    ),
  ]),
];
