import http from "node:http";
import https from "node:https";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GuardedWebhookSender, type LookupAll } from "../../adapters/http/guarded-webhook-sender";
import type { StoredDelivery } from "../../domain/delivery";
import { deliveryDetail } from "../../domain/delivery";
import { AppError } from "../../domain/errors";
import type { CursorPage } from "../../domain/page-request";
import type { StoredWebhook } from "../../domain/webhook";
import { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import type { Clock } from "../../ports/clock";
import type { WebhookPostResult, WebhookSender } from "../../ports/webhook-delivery";
import type { WebhookRepository } from "../../ports/webhook-repository";
import { CachedWebhookDirectory } from "./cached-webhook-directory";
import { CreateWebhook } from "./create-webhook";
import { DeleteWebhook } from "./delete-webhook";
import { GetWebhook } from "./get-webhook";
import { RotateWebhookSecret } from "./rotate-webhook-secret";
import { UpdateWebhook } from "./update-webhook";
import type { WebhookSettingsDeps } from "./webhook-settings";

class MemoryRepository implements WebhookRepository {
  readonly docs = new Map<string, StoredWebhook>();
  reads = 0;
  async get(id: string) {
    return this.docs.get(id);
  }
  async create(w: StoredWebhook) {
    this.docs.set(w.id, structuredClone(w));
  }
  async update(id: string, change: (c: StoredWebhook) => StoredWebhook | undefined) {
    const current = this.docs.get(id);
    if (current === undefined) return undefined;
    const next = change(structuredClone(current)) ?? current;
    this.docs.set(id, next);
    return next;
  }
  async delete(id: string) {
    return this.docs.delete(id);
  }
  async list(): Promise<CursorPage<StoredWebhook>> {
    return { items: [...this.docs.values()], totalItems: this.docs.size, nextCursor: null };
  }
  async all() {
    this.reads++;
    return [...this.docs.values()];
  }
}

class FakeClock implements Clock {
  constructor(public at = Date.now()) {}
  now() {
    return new Date(this.at);
  }
}

/** Records what would be sent and answers `status`. */
class RecordingSender implements WebhookSender {
  readonly posts: { url: string; headers: Readonly<Record<string, string>>; body: string }[] = [];
  constructor(public status = 204) {}
  async post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<WebhookPostResult> {
    this.posts.push({ url, headers, body });
    return {
      statusCode: this.status,
      ...(this.status >= 300 ? { error: `the endpoint answered ${this.status}` } : {}),
      durationMs: 1,
      requestHeaders: { ...headers, "content-type": "application/json" },
      response: { headers: { "content-type": "text/plain" }, body: `answered ${this.status}` },
    };
  }
}

const cipher = new WebhookSecretCipher(Buffer.alloc(32, 5).toString("base64"));
const events: ["portfolio.valued"] = ["portfolio.valued"];

/** Delivery records as written (the verification's `webhook.test`). */
class RecordedDeliveries {
  readonly created: StoredDelivery[] = [];
  async createIfAbsent(delivery: StoredDelivery) {
    this.created.push(structuredClone(delivery));
    return "1";
  }
}

/** The settings use cases over one store, as the composition builds them. */
function settingsUseCases(
  repository: WebhookRepository,
  sender: WebhookSender,
  clock: Clock,
  onChange: WebhookSettingsDeps["onChange"] = () => {},
  deliveries = new RecordedDeliveries(),
) {
  const deps: WebhookSettingsDeps = { repository, sender, deliveries, cipher, clock, onChange };
  return {
    create: new CreateWebhook(deps),
    get: new GetWebhook(deps),
    update: new UpdateWebhook(deps),
    delete: new DeleteWebhook(deps),
    rotateSecret: new RotateWebhookSecret(deps),
  };
}

afterEach(() => vi.restoreAllMocks());

describe("creating a webhook with private networks not allowed (the SSRF corpus)", () => {
  const corpus = [
    "http://169.254.169.254/",
    "https://169.254.169.254/",
    "http://[::ffff:127.0.0.1]/",
    "https://[::ffff:127.0.0.1]/",
    "http://0x7f000001/",
    "https://0x7f000001/",
    "https://127.1/",
    "https://[::1]/",
    "https://10.0.0.1/",
    "https://user:pass@example.com/",
    "https://internal.customer.test/hook", // resolves to 10.0.0.1 through the injected lookup
  ];

  it.each(corpus)("refuses %s with 422 on url, connects nowhere and saves nothing", async (url) => {
    const repository = new MemoryRepository();
    const lookup = vi.fn<LookupAll>(async () => [{ address: "10.0.0.1", family: 4 }]);
    const requests = [vi.spyOn(http, "request"), vi.spyOn(https, "request")];
    const webhooks = settingsUseCases(
      repository,
      new GuardedWebhookSender({ allowPrivateNetworks: false, lookup }),
      new FakeClock(),
    );
    const error = await webhooks.create.execute({ url, events }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "url", message: expect.any(String) }] });
    for (const request of requests) expect(request).not.toHaveBeenCalled();
    expect(repository.docs.size).toBe(0);
  });
});

describe("the webhook settings use cases", () => {
  it("sends a signed webhook.test naming the new id before saving, and saves only on 2xx", async () => {
    const repository = new MemoryRepository();
    const sender = new RecordingSender(500);
    const webhooks = settingsUseCases(repository, sender, new FakeClock());
    await expect(webhooks.create.execute({ url: "https://hooks.example.com/a", events })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "url", message: expect.stringContaining("the endpoint answered 500") }],
    });
    expect(repository.docs.size).toBe(0);

    sender.status = 200;
    const created = await webhooks.create.execute({ url: "https://hooks.example.com/a", events, description: "BI" });
    const test = sender.posts.at(-1)!;
    const envelope = new Webhook(created.secret).verify(test.body, test.headers) as {
      id: string;
      event: string;
      data: unknown;
    };
    expect(envelope).toMatchObject({
      id: test.headers["webhook-id"],
      event: "webhook.test",
      data: { webhookId: created.id },
    });
    expect(repository.docs.get(created.id)?.secret).not.toContain(created.secret.slice(6));
    expect(await webhooks.get.execute(created.id)).not.toHaveProperty("secret");
  });

  it("records the creation's webhook.test as the first delivery of the webhook's log: what was sent, what came back", async () => {
    const repository = new MemoryRepository();
    const sender = new RecordingSender(200);
    const deliveries = new RecordedDeliveries();
    const webhooks = settingsUseCases(repository, sender, new FakeClock(), () => {}, deliveries);
    const created = await webhooks.create.execute({ url: "https://hooks.example.com/a", events });
    expect(deliveries.created).toHaveLength(1);
    const [test] = deliveries.created;
    const sent = sender.posts.at(-1)!;
    expect(test).toMatchObject({
      id: sent.headers["webhook-id"],
      webhookId: created.id,
      event: "webhook.test",
      subject: created.id,
      status: "succeeded",
      attempts: 1,
      lastAttempt: { statusCode: 200 },
      payload: sent.body,
    });
    const [attempt] = deliveryDetail(test!).attemptLog;
    expect(attempt).toMatchObject({
      statusCode: 200,
      request: { headers: { "webhook-id": test!.id, "content-type": "application/json" }, body: sent.body },
      response: { headers: { "content-type": "text/plain" }, body: "answered 200" },
    });
    expect(JSON.stringify(test)).not.toContain(created.secret.slice("whsec_".length));
    // A refused URL records nothing (there is no webhook to hold it).
    sender.status = 500;
    await expect(webhooks.create.execute({ url: "https://hooks.example.com/b", events })).rejects.toThrow();
    expect(deliveries.created).toHaveLength(1);
  });

  it("refuses a URL that does not answer within the time-out, saving nothing", async () => {
    const silent = http.createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const repository = new MemoryRepository();
    const sender = new GuardedWebhookSender({ allowPrivateNetworks: true, timeoutMs: 200 });
    try {
      const webhooks = settingsUseCases(repository, sender, new FakeClock());
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/hook`;
      await expect(webhooks.create.execute({ url, events })).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
        details: [{ field: "url", message: expect.stringContaining("no answer within 0.2 s") }],
      });
      expect(repository.docs.size).toBe(0);
    } finally {
      sender.close();
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it("re-verifies a new url on PATCH and keeps the old one when it fails", async () => {
    const repository = new MemoryRepository();
    const sender = new RecordingSender();
    const webhooks = settingsUseCases(repository, sender, new FakeClock());
    const created = await webhooks.create.execute({ url: "https://hooks.example.com/a", events });
    sender.status = 410;
    await expect(
      webhooks.update.execute({ id: created.id, patch: { url: "https://hooks.example.com/b" } }),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect((await webhooks.get.execute(created.id)).url).toBe("https://hooks.example.com/a");
    sender.status = 200;
    expect((await webhooks.update.execute({ id: created.id, patch: { url: "https://hooks.example.com/b" } })).url).toBe(
      "https://hooks.example.com/b",
    );
    expect(sender.posts.at(-1)?.url).toBe("https://hooks.example.com/b");
    const posts = sender.posts.length;
    await webhooks.update.execute({ id: created.id, patch: { events: ["portfolio.valued", "exception.created"] } }); // no url: no test event
    expect(sender.posts).toHaveLength(posts);
  });

  it("keeps the previous secret signing for 24 h after a rotation, then drops it", async () => {
    const repository = new MemoryRepository();
    const clock = new FakeClock(Date.parse("2026-03-01T00:00:00Z"));
    const directory = new CachedWebhookDirectory(repository, cipher, clock, 5);
    const webhooks = settingsUseCases(repository, new RecordingSender(), clock, (id) => directory.forget(id));
    const created = await webhooks.create.execute({ url: "https://hooks.example.com/a", events });
    expect((await directory.target(created.id))?.signingSecrets).toEqual([created.secret]);

    const rotated = await webhooks.rotateSecret.execute(created.id);
    expect(rotated.secret).not.toBe(created.secret);
    expect((await directory.subscribedTo("portfolio.valued"))[0]?.signingSecrets).toEqual([
      rotated.secret,
      created.secret,
    ]);

    clock.at += 24 * 3600_000 - 1000;
    expect((await directory.target(created.id))?.signingSecrets).toEqual([rotated.secret, created.secret]);
    clock.at += 2000;
    expect((await directory.target(created.id))?.signingSecrets).toEqual([rotated.secret]);
  });

  it("serves the hot path from its cache, drops it on change, disables with a reason that PATCH enabled clears", async () => {
    const repository = new MemoryRepository();
    const clock = new FakeClock();
    const directory = new CachedWebhookDirectory(repository, cipher, clock, 5);
    const webhooks = settingsUseCases(repository, new RecordingSender(), clock, (id) => directory.forget(id));
    const a = await webhooks.create.execute({ url: "https://hooks.example.com/a", events: ["portfolio.valued"] });
    await webhooks.create.execute({ url: "https://hooks.example.com/b", events: ["exception.created"] });

    const reads = repository.reads;
    await Promise.all(Array.from({ length: 100 }, () => directory.subscribedTo("portfolio.valued")));
    expect(repository.reads - reads).toBe(1);
    expect((await directory.subscribedTo("portfolio.valued")).map((t) => t.webhookId)).toEqual([a.id]);

    await directory.disable(a.id, "the endpoint answered 410 Gone");
    expect(await directory.subscribedTo("portfolio.valued")).toEqual([]);
    expect(await webhooks.get.execute(a.id)).toMatchObject({
      status: "disabled",
      disabledReason: "the endpoint answered 410 Gone",
    });
    expect(await webhooks.update.execute({ id: a.id, patch: { status: "enabled" } })).not.toHaveProperty(
      "disabledReason",
    );
    expect((await directory.subscribedTo("portfolio.valued")).map((t) => t.webhookId)).toEqual([a.id]);

    // A webhook created elsewhere (straight into the store) since the fill is found by id at once.
    const other = settingsUseCases(repository, new RecordingSender(), clock);
    const c = await other.create.execute({ url: "https://hooks.example.com/c", events: ["portfolio.valued"] });
    expect((await directory.target(c.id))?.signingSecrets).toEqual([c.secret]);

    await webhooks.delete.execute(a.id);
    expect(await directory.target(a.id)).toBeUndefined();
    await expect(webhooks.delete.execute(a.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("the cached webhook directory", () => {
  it("keeps failingSince from the first failure, clears it on a delivery, and disables a webhook failing for WEBHOOK_DISABLE_AFTER_DAYS", async () => {
    const repository = new MemoryRepository();
    const clock = new FakeClock(Date.parse("2026-03-01T00:00:00Z"));
    const directory = new CachedWebhookDirectory(repository, cipher, clock, 5, 5);
    const webhooks = settingsUseCases(repository, new RecordingSender(), clock, (id) => directory.forget(id));
    const a = await webhooks.create.execute({ url: "https://hooks.example.com/a", events });
    const writes = vi.spyOn(repository, "update");
    const failure = (lastFailure = "the endpoint answered 503") => ({ delivered: false, at: clock.now(), lastFailure });

    expect(await directory.recordOutcome(a.id, { delivered: true, at: clock.now() })).toBeUndefined();
    expect(writes).not.toHaveBeenCalled(); // healthy, and it was: nothing to write
    expect(await directory.recordOutcome(a.id, failure())).toBeUndefined();
    expect(await webhooks.get.execute(a.id)).toMatchObject({
      status: "enabled",
      failingSince: "2026-03-01T00:00:00.000Z",
    });
    clock.at += 3 * 86_400_000;
    writes.mockClear();
    expect(await directory.recordOutcome(a.id, failure())).toBeUndefined();
    expect(writes).not.toHaveBeenCalled(); // still failing, within the limit: nothing to write
    expect(await directory.recordOutcome(a.id, { delivered: true, at: clock.now() })).toBeUndefined();
    expect(await webhooks.get.execute(a.id)).not.toHaveProperty("failingSince");

    // Failing again from day 3: disabled once every attempt has failed for 5 days, not before.
    const since = clock.now().toISOString();
    await directory.recordOutcome(a.id, failure());
    clock.at += 5 * 86_400_000 - 1000;
    expect(await directory.recordOutcome(a.id, failure())).toBeUndefined();
    clock.at += 1000;
    const reason = await directory.recordOutcome(a.id, failure("the endpoint answered 502"));
    expect(reason).toBe(
      `every delivery failed for 5 days: no attempt succeeded since ${since} (the last: the endpoint answered 502)`,
    );
    expect(await webhooks.get.execute(a.id)).toMatchObject({ status: "disabled", disabledReason: reason });
    expect(await directory.subscribedTo("portfolio.valued")).toEqual([]);
    expect(await directory.recordOutcome(a.id, failure())).toBeUndefined(); // disabled once

    // Enabled again: the reason goes, and failures are counted afresh.
    const enabled = await webhooks.update.execute({ id: a.id, patch: { status: "enabled" } });
    expect(enabled).not.toHaveProperty("disabledReason");
    expect(enabled).not.toHaveProperty("failingSince");
    expect(await directory.recordOutcome(a.id, failure())).toBeUndefined();
    expect((await webhooks.get.execute(a.id)).status).toBe("enabled");
  });

  it("never shows a disabled reason on an enabled webhook", async () => {
    const repository = new MemoryRepository();
    const webhooks = settingsUseCases(repository, new RecordingSender(), new FakeClock());
    const a = await webhooks.create.execute({ url: "https://hooks.example.com/a", events });
    // What a disable racing an enable on another instance could leave behind.
    await repository.update(a.id, (w) => ({ ...w, disabledReason: "the endpoint answered 410 Gone" }));
    expect(await webhooks.get.execute(a.id)).not.toHaveProperty("disabledReason");
  });

  it("keeps what it read for cacheSeconds by the clock: a change made on another instance shows once that has passed", async () => {
    const repository = new MemoryRepository();
    const clock = new FakeClock();
    const directory = new CachedWebhookDirectory(repository, cipher, clock, 5);
    const elsewhere = settingsUseCases(repository, new RecordingSender(), clock); // another instance: its changes drop nothing here
    const a = await elsewhere.create.execute({ url: "https://hooks.example.com/a", events: ["portfolio.valued"] });

    expect((await directory.subscribedTo("portfolio.valued")).map((t) => t.webhookId)).toEqual([a.id]);
    await elsewhere.update.execute({ id: a.id, patch: { events: ["exception.created"] } });
    clock.at += 4_000;
    const reads = repository.reads;
    expect((await directory.subscribedTo("portfolio.valued")).map((t) => t.webhookId)).toEqual([a.id]);
    expect(await directory.subscribedTo("exception.created")).toEqual([]);
    expect(repository.reads).toBe(reads); // every event's subscribers came from the one read
    clock.at += 1_001;
    expect(await directory.subscribedTo("portfolio.valued")).toEqual([]);
    expect((await directory.subscribedTo("exception.created")).map((t) => t.webhookId)).toEqual([a.id]);
    expect(repository.reads).toBe(reads + 1);
  });

  it("a change made here while a read is in flight is not hidden by what that read finds", async () => {
    const repository = new MemoryRepository();
    const clock = new FakeClock();
    const directory = new CachedWebhookDirectory(repository, cipher, clock, 5);
    const webhooks = settingsUseCases(repository, new RecordingSender(), clock, (id) => directory.forget(id));
    const a = await webhooks.create.execute({ url: "https://hooks.example.com/a", events: ["portfolio.valued"] });

    // The read of every webhook answers with the store as it was before the change.
    const before = [...repository.docs.values()].map((w) => structuredClone(w));
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    vi.spyOn(repository, "all").mockImplementationOnce(async () => {
      await gate;
      return before;
    });
    const inFlight = directory.subscribedTo("portfolio.valued");
    await webhooks.update.execute({ id: a.id, patch: { status: "disabled" } });
    release();
    await inFlight;
    expect(await directory.subscribedTo("portfolio.valued")).toEqual([]);
    expect((await directory.target(a.id))?.status).toBe("disabled");
  });

  it("with cacheSeconds 0 keeps nothing: every look-up reads the store", async () => {
    const repository = new MemoryRepository();
    const clock = new FakeClock();
    const directory = new CachedWebhookDirectory(repository, cipher, clock, 0);
    const elsewhere = settingsUseCases(repository, new RecordingSender(), clock);
    const a = await elsewhere.create.execute({ url: "https://hooks.example.com/a", events: ["portfolio.valued"] });

    expect((await directory.subscribedTo("portfolio.valued")).map((t) => t.webhookId)).toEqual([a.id]);
    expect((await directory.target(a.id))?.status).toBe("enabled");
    await elsewhere.update.execute({ id: a.id, patch: { status: "disabled" } });
    expect(await directory.subscribedTo("portfolio.valued")).toEqual([]);
    expect((await directory.target(a.id))?.status).toBe("disabled");
  });
});
