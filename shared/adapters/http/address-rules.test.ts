import { describe, expect, it } from "vitest";
import { ipLiteral, isMetadataHostName, refusedAddressReason } from "./address-rules";

describe("webhook address rules", () => {
  it.each([
    "10.0.0.1",
    "172.16.5.4",
    "172.31.255.255",
    "192.168.1.1",
    "127.0.0.1",
    "127.255.0.1",
    "169.254.169.254",
    "169.254.0.1",
    "100.64.0.1",
    "100.100.100.200",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "240.0.0.1",
    "192.0.2.10",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "::",
    "::1",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",
    "ff02::1",
    "2001:db8::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::127.0.0.1",
    "64:ff9b::a00:1",
    "64:ff9b::a9fe:a9fe",
    "2002:a00:1::1",
    "not-an-address",
  ])("refuses %s", (address) => {
    expect(refusedAddressReason(address)).toBeDefined();
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ])("allows the public address %s", (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });

  it("names the cloud metadata hosts", () => {
    expect(isMetadataHostName("metadata.google.internal")).toBe(true);
    expect(isMetadataHostName("METADATA.GOOGLE.INTERNAL.")).toBe(true);
    expect(isMetadataHostName("hooks.example.com")).toBe(false);
  });

  it("recognises IP-literal URL hosts as the URL parser leaves them", () => {
    expect(ipLiteral(new URL("http://0x7f000001/").hostname)).toBe("127.0.0.1");
    expect(ipLiteral(new URL("https://127.1/").hostname)).toBe("127.0.0.1");
    expect(ipLiteral(new URL("https://[::ffff:127.0.0.1]/").hostname)).toBe("::ffff:7f00:1");
    expect(ipLiteral("hooks.example.com")).toBeUndefined();
  });
});
