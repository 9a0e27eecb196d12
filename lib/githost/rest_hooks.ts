/**
 * A repository's webhooks through its host's REST API, once for every flavour: each flavour says
 * where its hooks are, what JSON a hook has, and how an update is sent (`HookCollection`);
 * {@linkcode restHooks} lists them and creates or updates the push hook by the one rule of
 * {@linkcode ensureHook} (`host.ts`).
 *
 * @module
 */
import { ensureHook, type GitHook, type GitHost, type PushHookSpec } from "./host.ts";
import type { GitHostHttp } from "./http.ts";

/** A flavour's webhooks as its REST API keeps them. */
export interface HookCollection<H> {
  /** The path of the repository's hooks (`/repos/<org>/<repo>/hooks`). */
  readonly path: string;
  /** Every hook of the repository (all pages). */
  readonly list: () => Promise<H[]>;
  /** The JSON that creates the hook a spec asks for. */
  readonly createBody: (spec: PushHookSpec) => unknown;
  /** The JSON that updates a hook to it (default: {@link createBody}'s). */
  readonly updateBody?: (spec: PushHookSpec) => unknown;
  /** How an update is sent to `<path>/<id>`. */
  readonly updateMethod: "PATCH" | "PUT";
  /** A hook's id in its URL. */
  readonly idOf: (hook: H) => string | number;
  /** Where a hook delivers. */
  readonly urlOf: (hook: H) => string;
  /** Whether a hook is active, for pushes (and with JSON, where the host lets one choose). */
  readonly isRight: (hook: H) => boolean;
  /** The flavour's hook as a {@link GitHook}. */
  readonly toHook: (hook: H) => GitHook;
}

/** The webhooks of GitHub and of Gitea and Gogs: `{id, active, events, config: {url, content_type}}`. */
export interface ConfigHook {
  id: number;
  active?: boolean;
  events?: string[];
  config?: { url?: string; content_type?: string };
}

/** How GitHub, Gitea and Gogs hooks are read: URL and content type in `config`, events by name. */
export const CONFIG_HOOKS: Pick<
  HookCollection<ConfigHook>,
  "idOf" | "urlOf" | "isRight" | "toHook"
> = {
  idOf: (h) => h.id,
  urlOf: (h) => h.config?.url ?? "",
  isRight: (h) =>
    h.active !== false && (h.events?.includes("push") ?? false) &&
    h.config?.content_type === "json",
  toHook: (h) => ({ id: h.id, url: h.config?.url ?? "", events: h.events ?? [] }),
};

/** {@link GitHost.listHooks} and {@link GitHost.ensurePushHook} of a flavour's hooks. */
export function restHooks<H>(
  api: Pick<GitHostHttp, "request">,
  hooks: HookCollection<H>,
): Pick<GitHost, "listHooks" | "ensurePushHook"> {
  return {
    listHooks: async () => (await hooks.list()).map(hooks.toHook),
    ensurePushHook: (spec) =>
      ensureHook<H>(spec, {
        list: hooks.list,
        urlOf: hooks.urlOf,
        isRight: hooks.isRight,
        toHook: hooks.toHook,
        create: async () =>
          (await api.request<H>("POST", hooks.path, "create the webhook", {
            body: hooks.createBody(spec),
          })).body,
        update: async (hook) =>
          (await api.request<H>(
            hooks.updateMethod,
            `${hooks.path}/${encodeURIComponent(String(hooks.idOf(hook)))}`,
            "update the webhook",
            { body: (hooks.updateBody ?? hooks.createBody)(spec) },
          )).body,
      }),
  };
}
