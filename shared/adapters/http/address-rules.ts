/**
 * Which addresses a webhook may reach (the SSRF guard's address rules). Only globally routable
 * unicast is allowed: ipaddr.js classifies the special ranges (private, loopback, link-local incl.
 * 169.254.169.254, unique-local, CGNAT, multicast, unspecified, broadcast, reserved, documentation,
 * benchmarking, 6to4, Teredo …) so no bit masks are written here. An IPv4 address written as IPv6
 * (IPv4-mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::/96) is judged by the IPv4 address it carries.
 */
import ipaddr from "ipaddr.js";

/** Host names of cloud metadata services, refused before any lookup (their addresses are refused too). */
const METADATA_NAMES = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** The NAT64 well-known prefix (RFC 6052): the last 32 bits are an IPv4 address. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");

export function isMetadataHostName(hostname: string): boolean {
  return METADATA_NAMES.has(hostname.toLowerCase().replace(/\.$/, ""));
}

/** Why `address` may not be reached, or undefined when it is public. Unparseable input is refused. */
export function refusedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return "not an IP address";
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.match(NAT64_WELL_KNOWN)) parsed = ipaddr.fromByteArray(v6.toByteArray().slice(12));
  }
  const range = parsed.range();
  return range === "unicast" ? undefined : `${range} address`;
}

/** The address of an IP-literal host (brackets of an IPv6 URL host removed), or undefined for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  // Only the canonical forms: the WHATWG URL parser already turned 0x7f000001 and 127.1 into 127.0.0.1.
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || (bare.includes(":") && ipaddr.IPv6.isValid(bare))
    ? bare
    : undefined;
}
