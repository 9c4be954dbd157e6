import type { Container } from "@azure/cosmos";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { AuditNote, AuditSubject } from "../../domain/settings-audit";
import type { SettingsRepository } from "../../ports/settings-repository";
import { readDocument, updateDocument } from "./conditional-update";
import { isConflict, isNotFound, stripSystem } from "./cosmos-errors";
import { equalityFilters, pagedQuery } from "./paged-query";
import { AuditedSettingsWrites } from "./settings-audit/audited-settings-writes";
import { isItemDoc, NOT_PENDING, type PendingAuditWriter } from "./settings-audit/pending-audit";

type Doc<T> = T & { kind: string };

/** How a repository's changes made through System Settings reach the audit trail. */
export interface SettingsAuditing<T> {
  writer: PendingAuditWriter;
  subject: AuditSubject<T>;
}

/** One kind of System Settings resource in the `settings` container (partition /kind, e.g. "webhook", "feed"). */
export class CosmosSettingsRepository<T extends { id: string }> implements SettingsRepository<T> {
  private readonly audited: AuditedSettingsWrites<T, Doc<T>> | undefined;

  /** `label` names the resource in messages ("Webhook", "Feed"); `auditing` records its changes. */
  constructor(
    private readonly container: Container,
    private readonly kind: string,
    private readonly label: string,
    auditing?: SettingsAuditing<T>,
  ) {
    this.audited =
      auditing === undefined
        ? undefined
        : new AuditedSettingsWrites({
            kind,
            label,
            writer: auditing.writer,
            subject: auditing.subject,
            idOf: (item) => item.id,
            toDoc: (item) => this.toDoc(item),
            toStored: (doc) => this.toStored(doc),
            read: (id) => this.read(id),
          });
  }

  async get(id: string): Promise<T | undefined> {
    const doc = await this.read(id);
    return doc === undefined ? undefined : this.toStored(doc);
  }

  async create(item: T): Promise<void> {
    if (this.audited !== undefined && (await this.audited.create(item))) return;
    try {
      await this.container.items.create(this.toDoc(item));
    } catch (error) {
      if (isConflict(error)) throw new AppError("CONFLICT", `${this.label} '${item.id}' already exists`);
      throw error;
    }
  }

  async update(id: string, change: (current: T) => T | undefined, note?: AuditNote): Promise<T | undefined> {
    const audited = await this.audited?.update(id, change, note);
    if (audited !== undefined) return audited.stored;
    const stored = await updateDocument<Doc<T>>(
      this.container,
      { id, partitionKey: this.kind, what: `${this.label} '${id}'` },
      () => this.read(id),
      (doc) => {
        const next = change(this.toStored(doc));
        return next === undefined ? undefined : this.toDoc(next);
      },
    );
    return stored === undefined ? undefined : this.toStored(stored);
  }

  async delete(id: string): Promise<boolean> {
    const audited = await this.audited?.delete(id);
    if (audited !== undefined) return audited;
    try {
      await this.container.item(id, this.kind).delete();
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async list(request: PageRequest, where: Readonly<Record<string, string>> = {}): Promise<CursorPage<T>> {
    const filters = equalityFilters(where);
    const result = await pagedQuery<Doc<T>>(
      this.container,
      {
        where: ["c.kind = @kind", NOT_PENDING, ...filters.where],
        parameters: [{ name: "@kind", value: this.kind }, ...filters.parameters],
        sortField: "id",
        partitionKey: this.kind,
      },
      request,
    );
    return { ...result, items: result.items.map((doc) => this.toStored(doc)) };
  }

  async all(): Promise<T[]> {
    const { resources } = await this.container.items
      .query<Doc<T>>(
        {
          query: `SELECT * FROM c WHERE c.kind = @kind AND ${NOT_PENDING}`,
          parameters: [{ name: "@kind", value: this.kind }],
        },
        { partitionKey: this.kind },
      )
      .fetchAll();
    return resources.map((doc) => this.toStored(doc));
  }

  private read(id: string): Promise<Doc<T> | undefined> {
    return readDocument<Doc<T>>(this.container, id, this.kind, isItemDoc);
  }

  private toStored(doc: Doc<T>): T {
    const { kind: _kind, ...rest } = stripSystem(doc);
    return rest as unknown as T;
  }

  private toDoc(item: T): Doc<T> {
    return { ...item, kind: this.kind };
  }
}
