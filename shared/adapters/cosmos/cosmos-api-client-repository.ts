import type { Container } from "@azure/cosmos";
import type { StoredApiClient } from "../../domain/api-client";
import type { AuditNote } from "../../domain/settings-audit";
import { AppError } from "../../domain/errors";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import type { ApiClientRepository } from "../../ports/api-client-repository";
import { updateDocument, readDocument } from "./conditional-update";
import { isConflict, stripSystem } from "./cosmos-errors";
import { pagedQuery } from "./paged-query";
import type { SettingsAuditing } from "./cosmos-settings-repository";
import { AuditedSettingsWrites } from "./settings-audit/audited-settings-writes";
import { isItemDoc, NOT_PENDING } from "./settings-audit/pending-audit";

const KIND = "api-client";

interface ApiClientDoc extends StoredApiClient {
  id: string;
  kind: typeof KIND;
  _etag?: string;
}

const toStored = (doc: ApiClientDoc): StoredApiClient => {
  const { id: _id, kind: _kind, ...rest } = stripSystem(doc);
  return rest;
};

const toDoc = (client: StoredApiClient): ApiClientDoc => ({ ...client, id: client.clientId, kind: KIND });

/** API clients in the `settings` container (partition /kind = "api-client"). */
export class CosmosApiClientRepository implements ApiClientRepository {
  private readonly audited: AuditedSettingsWrites<StoredApiClient, ApiClientDoc> | undefined;

  /** `auditing` records the changes made through System Settings. */
  constructor(
    private readonly container: Container,
    auditing?: SettingsAuditing<StoredApiClient>,
  ) {
    this.audited =
      auditing === undefined
        ? undefined
        : new AuditedSettingsWrites({
            kind: KIND,
            label: "API client",
            writer: auditing.writer,
            subject: auditing.subject,
            idOf: (client) => client.clientId,
            toDoc,
            toStored,
            read: (id) => this.read(id),
          });
  }

  async get(clientId: string): Promise<StoredApiClient | undefined> {
    const doc = await this.read(clientId);
    return doc === undefined ? undefined : toStored(doc);
  }

  async update(
    clientId: string,
    change: (current: StoredApiClient) => StoredApiClient,
    note?: AuditNote,
  ): Promise<StoredApiClient | undefined> {
    const audited = await this.audited?.update(clientId, change, note);
    if (audited !== undefined) return audited.stored;
    const stored = await updateDocument<ApiClientDoc>(
      this.container,
      { id: clientId, partitionKey: KIND, what: `API client '${clientId}'` },
      () => this.read(clientId),
      (doc) => toDoc(change(toStored(doc))),
    );
    return stored === undefined ? undefined : toStored(stored);
  }

  private read(clientId: string): Promise<ApiClientDoc | undefined> {
    return readDocument<ApiClientDoc>(this.container, clientId, KIND, isItemDoc);
  }

  async create(client: StoredApiClient): Promise<void> {
    if (this.audited !== undefined && (await this.audited.create(client))) return;
    try {
      await this.container.items.create(toDoc(client));
    } catch (error) {
      if (isConflict(error)) throw new AppError("CONFLICT", `API client '${client.clientId}' already exists`);
      throw error;
    }
  }

  async put(client: StoredApiClient): Promise<void> {
    await this.container.items.upsert(toDoc(client));
  }

  async list(request: PageRequest): Promise<CursorPage<StoredApiClient>> {
    const result = await pagedQuery<ApiClientDoc>(
      this.container,
      {
        where: ["c.kind = @kind", NOT_PENDING],
        parameters: [{ name: "@kind", value: KIND }],
        sortField: "id",
        partitionKey: KIND,
      },
      request,
    );
    return { ...result, items: result.items.map(toStored) };
  }
}
