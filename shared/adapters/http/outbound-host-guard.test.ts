import { describe, expect, it } from "vitest";
import { sftpHostProblem } from "../../domain/export-destination";
import { HostRefusedError, OutboundHostGuard, type ResolveAll } from "./outbound-host-guard";

/** A resolver that knows a few names, as a DNS server would answer them; others do not resolve. */
const dns: ResolveAll = async (name) => {
  const answers: Record<string, { address: string; family: number }[]> = {
    "sftp.customer.example": [{ address: "93.184.216.34", family: 4 }],
    "internal.customer.example": [{ address: "10.0.0.7", family: 4 }],
    "mixed.customer.example": [
      { address: "93.184.216.34", family: 4 },
      { address: "::1", family: 6 },
    ],
    "rebind.customer.example": [{ address: "169.254.169.254", family: 4 }],
  };
  const answer = answers[name];
  if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return answer;
};

describe("the SSRF guard for export SFTP hosts (private networks not allowed)", () => {
  const guard = new OutboundHostGuard({ allowPrivateNetworks: false, resolve: dns });

  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "0.0.0.0",
    "100.64.0.1",
    "::1",
    "::",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "64:ff9b::a00:1",
    "localhost",
    "LOCALHOST.",
    "db.localhost",
    "metadata.google.internal",
  ])("refuses %s as written (no lookup)", (host) => {
    expect(guard.refusal(host)).toMatch(/exports must reach public addresses/);
  });

  it("leaves names and public addresses to the connection-time check", () => {
    expect(guard.refusal("sftp.customer.example")).toBeUndefined();
    expect(guard.refusal("93.184.216.34")).toBeUndefined();
    expect(guard.refusal("2606:4700::1111")).toBeUndefined();
  });

  it("resolves once and answers only vetted addresses; a name that resolves to a non-public address and one that does not resolve get the same answer", async () => {
    expect(await guard.addresses("sftp.customer.example")).toEqual([{ address: "93.184.216.34", family: 4 }]);
    expect(await guard.addresses("93.184.216.34")).toEqual([{ address: "93.184.216.34", family: 4 }]);
    const refused = async (host: string): Promise<string> => {
      const error = await guard.addresses(host).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HostRefusedError);
      return (error as Error).message.replace(host, "HOST");
    };
    const answers = await Promise.all(
      [
        "internal.customer.example",
        "mixed.customer.example",
        "rebind.customer.example",
        "nowhere.customer.example",
      ].map(refused),
    );
    expect(new Set(answers)).toEqual(new Set(["the host name 'HOST' does not resolve to a public address"]));
    expect(await refused("127.0.0.1")).toBe(
      "the host HOST is a non-public address (loopback address); exports must reach public addresses",
    );
  });

  it("with private networks allowed (the local runtime and tests), connects anywhere but still to the addresses it resolved", async () => {
    const open = new OutboundHostGuard({ allowPrivateNetworks: true, resolve: dns });
    expect(open.refusal("127.0.0.1")).toBeUndefined();
    expect(await open.addresses("internal.customer.example")).toEqual([{ address: "10.0.0.7", family: 4 }]);
    await expect(open.addresses("nowhere.customer.example")).rejects.toThrow(
      "the host name 'nowhere.customer.example' could not be resolved",
    );
  });
});

describe("an SFTP host's syntax (always, whatever the network rules)", () => {
  it.each([
    "[::1]",
    "[2001:db8::1]",
    "2130706433",
    "0x7f000001",
    "127.1",
    "0177.0.0.1",
    "127.000.000.001",
    "1.2.3.4.5",
    "fe80::1%eth0",
    "bad host",
    "a_b.example",
    "-x.example",
    "example.123",
  ])("refuses %s", (host) => {
    expect(sftpHostProblem(host)).toBeDefined();
  });

  it.each([
    "sftp.example.com",
    "sftp.example.com.",
    "1e100.net",
    "93.184.216.34",
    "2001:db8::1",
    "::ffff:127.0.0.1",
    "SFTP-01.Example.COM",
  ])("takes %s", (host) => {
    expect(sftpHostProblem(host)).toBeUndefined();
  });
});
