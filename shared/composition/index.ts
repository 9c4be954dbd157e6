import { getConfig, type Config } from "../config";
import { systemClock, type Clock } from "../ports/clock";
import { AccessServices } from "./access";
import { BlobSourceServices } from "./blob-sources";
import { ConsoleServices } from "./console";
import { CoreServices } from "./core";
import { ExportServices } from "./exports";
import { FeedServices } from "./feeds";
import { InvestmentServices } from "./investments";
import { ReplicaServices } from "./replica";
import { SettingsAuditServices } from "./settings-audit";
import { WebhookServices } from "./webhooks";

export { lazy, onceUntilSuccess } from "./lazy";

/**
 * The composition root: every adapter and use case, built from config once, on first use, by
 * feature. Functions reach their use case through `services().<feature>.<useCase>()`.
 */
export class Composition {
  readonly core: CoreServices;
  readonly access: AccessServices;
  readonly investments: InvestmentServices;
  readonly webhooks: WebhookServices;
  readonly feeds: FeedServices;
  readonly blobSources: BlobSourceServices;
  readonly exports: ExportServices;
  readonly console: ConsoleServices;
  readonly replica: ReplicaServices;
  readonly settingsAudit: SettingsAuditServices;

  constructor(
    readonly config: Config,
    readonly clock: Clock = systemClock,
  ) {
    this.core = new CoreServices(config, clock);
    this.access = new AccessServices(this.core);
    this.investments = new InvestmentServices(this.core);
    this.webhooks = new WebhookServices(this.core);
    this.feeds = new FeedServices(this.core, this.investments);
    this.blobSources = new BlobSourceServices(this.core, this.feeds, this.investments);
    this.exports = new ExportServices(this.core, this.investments);
    this.console = new ConsoleServices(this.core);
    this.replica = new ReplicaServices(this.core, this.investments);
    this.settingsAudit = new SettingsAuditServices(this.core);
  }
}

let current: Composition | undefined;

/** The process-wide composition root. */
export function services(): Composition {
  current ??= new Composition(getConfig());
  return current;
}
