import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { OutboundHosts } from "../../ports/outbound-hosts";
import { ipLiteral, isMetadataHostName, refusedAddressReason } from "./address-rules";

export interface VettedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (dns.lookup with all: true). Injectable for tests. */
export type ResolveAll = (hostname: string) => Promise<VettedAddress[]>;

const systemResolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Why a host may not be connected to; its message says nothing of what is (or is not) there. */
export class HostRefusedError extends Error {
  override readonly name = "HostRefusedError";
}

export interface OutboundHostGuardOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: every address may be reached (the local runtime and tests). */
  allowPrivateNetworks: boolean;
  resolve?: ResolveAll;
}

/**
 * The webhooks' SSRF rules (address-rules.ts) for hosts that are not URLs, such as an export's SFTP
 * server: `refusal` vets a host as written when it is saved; `addresses` resolves it once when a
 * connection is made and vets every address, and the caller connects to those addresses only (never
 * to the name, which a second lookup could answer differently: DNS rebinding).
 */
export class OutboundHostGuard implements OutboundHosts {
  private readonly resolveAll: ResolveAll;

  constructor(private readonly options: OutboundHostGuardOptions) {
    this.resolveAll = options.resolve ?? systemResolveAll;
  }

  refusal(host: string): string | undefined {
    if (this.options.allowPrivateNetworks) return undefined;
    const name = host.toLowerCase().replace(/\.$/, "");
    if (name === "localhost" || name.endsWith(".localhost"))
      return "is this machine (localhost); exports must reach public addresses";
    if (isMetadataHostName(name)) return "is a cloud metadata service; exports must reach public addresses";
    const literal = addressOf(name);
    if (literal === undefined) return undefined;
    const reason = refusedAddressReason(literal);
    return reason === undefined
      ? undefined
      : `is a non-public address (${reason}); exports must reach public addresses`;
  }

  /**
   * The addresses to connect to for `host`, every one vetted; throws HostRefusedError. A name that
   * does not resolve and one that resolves to a refused address get the same answer, so the error
   * tells nothing of the service's own network.
   */
  async addresses(host: string): Promise<VettedAddress[]> {
    const refused = this.refusal(host);
    if (refused !== undefined) throw new HostRefusedError(`the host ${host} ${refused}`);
    const literal = addressOf(host);
    if (literal !== undefined) return [{ address: literal, family: isIP(literal) }];
    const unusable = this.options.allowPrivateNetworks
      ? `the host name '${host}' could not be resolved`
      : `the host name '${host}' does not resolve to a public address`;
    let addresses: VettedAddress[];
    try {
      addresses = await this.resolveAll(host);
    } catch {
      throw new HostRefusedError(unusable);
    }
    if (addresses.length === 0) throw new HostRefusedError(unusable);
    if (!this.options.allowPrivateNetworks && addresses.some((a) => refusedAddressReason(a.address) !== undefined))
      throw new HostRefusedError(unusable);
    return addresses;
  }
}

/** The IP address a host is, when it is one (dotted IPv4 or bare IPv6); undefined for a name. */
function addressOf(host: string): string | undefined {
  return ipLiteral(host) ?? (isIP(host) !== 0 ? host : undefined);
}
