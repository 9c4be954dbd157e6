import { paginationOf, type Pagination } from "../../domain/pagination";
import { requireEnterprise, type ReplicaLogin } from "../../domain/replica/replica-settings";
import type { ReplicaLoginDeps } from "./replica-login-deps";

/** The replica's logins, page by page (never a password). */
export class ListReplicaLogins {
  constructor(private readonly deps: ReplicaLoginDeps) {}

  async execute(input: { page: number; pageSize: number }): Promise<{ items: ReplicaLogin[]; pagination: Pagination }> {
    requireEnterprise(this.deps.plan);
    const result = await this.deps.repository.list(input.page, input.pageSize);
    return { items: result.items, pagination: paginationOf(input.page, input.pageSize, result.totalItems) };
  }
}
