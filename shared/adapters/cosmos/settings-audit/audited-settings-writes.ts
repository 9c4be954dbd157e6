import type { OperationInput } from "@azure/cosmos";
import { AppError } from "../../../domain/errors";
import type { AuditNote, AuditSubject } from "../../../domain/settings-audit";
import { auditDraft } from "../../../domain/settings-changes";
import { currentWriteContext } from "../../../observability/write-context";
import type { Versioned } from "../conditional-update";
import { AGAIN, CONFLICTS, retry, stillContended } from "../retry";
import type { PendingAuditWriter } from "./pending-audit";

export interface AuditedWritesOptions<T, D> {
  kind: string;
  label: string;
  writer: PendingAuditWriter;
  subject: AuditSubject<T>;
  idOf(item: T): string;
  toDoc(item: T): D;
  toStored(doc: D): T;
  read(id: string): Promise<Versioned<D> | undefined>;
}

/**
 * The writes of a settings repository inside a change made through System Settings: each one carries its
 * audit entry in the same transactional batch (see PendingAuditWriter). Every method answers undefined
 * (false for create) outside such a change, and the repository then writes as it always has.
 */
export class AuditedSettingsWrites<T, D extends object> {
  constructor(private readonly o: AuditedWritesOptions<T, D>) {}

  /** True when it created the item; CONFLICT when the id exists. */
  async create(item: T): Promise<boolean> {
    if (!auditing()) return false;
    const status = await this.write(
      { operationType: "Create", resourceBody: this.o.toDoc(item) as never },
      auditDraftOf(this.o, item, undefined, item),
    );
    if (status === 409) throw new AppError("CONFLICT", `${this.o.label} '${this.o.idOf(item)}' already exists`);
    return true;
  }

  /** As SettingsRepository.update, conditional on the version read and retried after a lost race. */
  async update(
    id: string,
    change: (current: T) => T | undefined,
    note?: AuditNote,
  ): Promise<{ stored: T | undefined } | undefined> {
    if (!auditing()) return undefined;
    const stored = await retry<T | undefined>(
      CONFLICTS,
      async () => {
        const current = await this.o.read(id);
        if (current === undefined) return undefined;
        const before = this.o.toStored(current);
        const next = change(before);
        if (next === undefined) return before;
        const status = await this.write(
          { operationType: "Replace", id, resourceBody: this.o.toDoc(next) as never, ifMatch: current._etag ?? "" },
          auditDraft(this.o.subject, id, before, next, note),
        );
        if (status === 404) return undefined;
        if (status === 412) return AGAIN;
        return next;
      },
      () => stillContended(`${this.o.label} '${id}'`),
    );
    return { stored };
  }

  /** False when it did not exist. */
  async delete(id: string): Promise<boolean | undefined> {
    if (!auditing()) return undefined;
    return retry<boolean>(
      CONFLICTS,
      async () => {
        const current = await this.o.read(id);
        if (current === undefined) return false;
        // The batch API takes ifMatch on a delete as on a replace; the SDK's type only omits it.
        const remove = { operationType: "Delete", id, ifMatch: current._etag ?? "" } as OperationInput;
        const status = await this.write(remove, auditDraft(this.o.subject, id, this.o.toStored(current), undefined));
        if (status === 404) return false;
        if (status === 412) return AGAIN;
        return true;
      },
      () => stillContended(`${this.o.label} '${id}'`),
    );
  }

  private async write(operation: OperationInput, draft: ReturnType<typeof auditDraft>): Promise<number> {
    const entry = this.o.writer.entryOf(draft);
    return this.o.writer.commit(this.o.kind, operation, entry);
  }
}

const auditing = (): boolean => currentWriteContext().audited === true;

function auditDraftOf<T, D>(
  o: AuditedWritesOptions<T, D>,
  item: T,
  before: T | undefined,
  after: T | undefined,
): ReturnType<typeof auditDraft> {
  return auditDraft(o.subject, o.idOf(item), before, after);
}
