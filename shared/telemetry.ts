import type * as ApplicationInsights from "applicationinsights";
import type * as Identity from "@azure/identity";
import type { Config } from "./config";

let started = false;

/** What telemetry reads: the connection string, and how to authenticate (the host's setting, `ClientId=<id>;Authorization=AAD`). */
export interface TelemetrySettings extends Pick<Config, "APPLICATIONINSIGHTS_CONNECTION_STRING"> {
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING?: string;
}

type Credential = NonNullable<ApplicationInsights.TelemetryClient["config"]["aadTokenCredential"]>;

/**
 * The managed identity `APPLICATIONINSIGHTS_AUTHENTICATION_STRING` names (the one the Functions host
 * sends its own telemetry with), or undefined without one. The identity SDK is loaded on the first
 * token, after telemetry has started: it must not load before the instrumentation does.
 */
function entraCredential(authentication: string | undefined): Credential | undefined {
  if (authentication === undefined) return undefined;
  const fields = new Map(
    authentication.split(";").flatMap((pair) => {
      const [key, value] = pair.split("=");
      return key !== undefined && value !== undefined ? [[key.trim().toLowerCase(), value.trim()] as const] : [];
    }),
  );
  if (fields.get("authorization")?.toUpperCase() !== "AAD") return undefined;
  const clientId = fields.get("clientid");
  let identity: Credential | undefined;
  return {
    getToken: (scopes, options) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { ManagedIdentityCredential } = require("@azure/identity") as typeof Identity;
      identity ??=
        clientId !== undefined ? new ManagedIdentityCredential({ clientId }) : new ManagedIdentityCredential();
      return identity.getToken(scopes, options);
    },
  };
}

/**
 * Switches Application Insights on when its connection string is configured; true when it did. With
 * an Entra authentication string it sends with the managed identity's token, so that the component
 * can refuse telemetry that carries only its instrumentation key (local authentication off).
 */
export function startTelemetry(config: TelemetrySettings): boolean {
  if (started || config.APPLICATIONINSIGHTS_CONNECTION_STRING === undefined) return false;
  started = true;
  // Loaded only when configured: the SDK patches modules at load time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const appInsights = require("applicationinsights") as typeof ApplicationInsights;
  appInsights.setup(config.APPLICATIONINSIGHTS_CONNECTION_STRING).setAutoCollectConsole(true, true);
  const credential = entraCredential(config.APPLICATIONINSIGHTS_AUTHENTICATION_STRING);
  if (credential !== undefined) appInsights.defaultClient.config.aadTokenCredential = credential;
  appInsights.start();
  return true;
}
