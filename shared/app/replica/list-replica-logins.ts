import type { CursorPage, PageRequest } from "../../domain/page-request";
import { requireEnterprise, type ReplicaLogin } from "../../domain/replica/replica-settings";
import type { ReplicaLoginDeps } from "./replica-login-deps";

/** The replica's logins, page by page (never a password). */
export class ListReplicaLogins {
  constructor(private readonly deps: ReplicaLoginDeps) {}

  async execute(request: PageRequest): Promise<CursorPage<ReplicaLogin>> {
    requireEnterprise(this.deps.plan);
    return this.deps.repository.list(request);
  }
}
