// @ts-check
// Who is signed in: an access token from POST /auth/token (client credentials), kept in this tab's
// sessionStorage only (never localStorage, never a URL), forgotten on Sign out and when it expires.

const KEY = "ids-console-session";

/**
 * @typedef {{ accessToken: string, expiresAt: number, clientId: string, scope: string }} Session
 * @typedef {{ session: Session | undefined, expired: boolean, lastClientId: string }} SessionState
 */

/** @type {SessionState} */
let state = { session: readStored(), expired: false, lastClientId: "" };
state.lastClientId = state.session?.clientId ?? "";
/** @type {Set<() => void>} */
const listeners = new Set();
/** @type {ReturnType<typeof setTimeout> | undefined} */
let expiryTimer = state.session === undefined ? undefined : setTimeout(expire, state.session.expiresAt - Date.now());

/** @returns {Session | undefined} */
function readStored() {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (raw === null) return undefined;
    const parsed = /** @type {Session} */ (JSON.parse(raw));
    return typeof parsed.accessToken === "string" && parsed.expiresAt > Date.now() ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** @param {SessionState} next */
function setState(next) {
  state = next;
  clearTimeout(expiryTimer);
  // Ask again when the token ends, rather than let the next click fail.
  if (next.session !== undefined) expiryTimer = setTimeout(expire, Math.max(0, next.session.expiresAt - Date.now()));
  for (const listener of listeners) listener();
}

export const sessionState = () => state;

/** @param {() => void} listener */
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A refusal from the token endpoint, in words a person can act on. */
export class SignInError extends Error {}

/**
 * Exchanges a client id and secret for a token; the secret is not kept.
 * @param {string} clientId
 * @param {string} clientSecret
 */
export async function signIn(clientId, clientSecret) {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: clientId,
    client_secret: clientSecret,
  });
  /** @type {Response} */
  let response;
  try {
    response = await fetch(new URL("auth/token", document.baseURI), { method: "POST", body: form });
  } catch {
    throw new SignInError("The service could not be reached. Check your connection and try again.");
  }
  const body = await response.json().catch(() => ({}));
  if (response.status === 401 || body.error === "invalid_client")
    throw new SignInError("The client ID or secret is wrong, or the client is disabled.");
  if (response.status === 429) throw new SignInError("Too many attempts. Wait a minute, then try again.");
  if (!response.ok)
    throw new SignInError(
      body.error_description ?? `The service could not sign you in (${response.status}). Try again.`,
    );
  const scope = String(body.scope ?? "");
  if (!scope.split(" ").includes("api.admin")) {
    throw new SignInError(
      "This API client does not have the api.admin scope, which System Settings needs. Sign in with an administrator client.",
    );
  }
  const session = {
    accessToken: String(body.access_token),
    expiresAt: Date.now() + Number(body.expires_in) * 1000,
    clientId,
    scope,
  };
  sessionStorage.setItem(KEY, JSON.stringify(session));
  setState({ session, expired: false, lastClientId: clientId });
}

export function signOut() {
  sessionStorage.removeItem(KEY);
  setState({ session: undefined, expired: false, lastClientId: "" });
}

/** The token ended (its time, or a 401): forget it and ask to sign in again, keeping the page as it is. */
export function expire() {
  if (state.session === undefined) return;
  sessionStorage.removeItem(KEY);
  setState({ session: undefined, expired: true, lastClientId: state.session.clientId });
}
