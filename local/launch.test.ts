import { readFileSync } from "node:fs";
import { createServer, connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./launch";

describe("freePort", () => {
  it("gives ports a component can listen on, below the range outgoing connections take theirs from", async () => {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    // Many outgoing connections at once: none may land on a port freePort hands out.
    const server = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const { port: target } = server.address() as { port: number };
    const sockets: Socket[] = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(target, "127.0.0.1", () => resolve(socket));
          }),
      ),
    );
    const outgoing = new Set(sockets.map((s) => s.localPort));
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeLessThan(low ?? 32768);
      expect(outgoing.has(port)).toBe(false);
      const listener = createServer();
      await new Promise<void>((resolve, reject) => {
        listener.once("error", reject);
        listener.listen(port, "127.0.0.1", () => resolve());
      });
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
    // Never the same port twice, however many are asked for at once.
    const many = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    expect(new Set(many).size).toBe(many.length);
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
