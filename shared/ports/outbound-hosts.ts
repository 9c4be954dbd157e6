/**
 * The SSRF guard for hosts a customer names that the service connects to (export SFTP servers):
 * the same address rules as webhook URLs, lifted by WEBHOOK_ALLOW_PRIVATE_NETWORKS.
 */
export interface OutboundHosts {
  /**
   * Why the service may never connect to `host` whatever DNS says (a literal private, loopback,
   * link-local, unspecified or otherwise non-public address, `localhost`, a cloud metadata name), or
   * undefined. No DNS lookup: a name is vetted again, resolved, when the connection is made.
   */
  refusal(host: string): string | undefined;
}
