/** The version of toolkit, printed by `toolkit --version` and sent as the User-Agent. */
export const VERSION = "0.1.0";

/** The User-Agent toolkit sends to registries, vaults and the Kubernetes API. */
export const USER_AGENT = `toolkit/${VERSION}`;
