import type { CursorPage, PageRequest } from "../../domain/page-request";
import { requireEnterprise, withLimits, type ReplicaLogin } from "../../domain/replica/replica-settings";
import type { ReplicaLoginDeps } from "./replica-login-deps";

/** The replica's logins with their limits, page by page (never a password). */
export class ListReplicaLogins {
  constructor(private readonly deps: ReplicaLoginDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<ReplicaLogin>> {
    requireEnterprise(this.deps.plan);
    const page = await this.deps.repository.list(request);
    return { ...page, items: page.items.map(withLimits) };
  }
}
