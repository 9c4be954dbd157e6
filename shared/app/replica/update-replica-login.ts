import {
  requireEnterprise,
  withLimits,
  type ReplicaLogin,
  type ReplicaLoginPatch,
} from "../../domain/replica/replica-settings";
import { storedLogin, type ReplicaLoginDeps } from "./replica-login-deps";

/**
 * Changes a login's connection limit or statement time limit: in the database first (open sessions
 * beyond the new limits are stopped by the next watchdog run), then in the list; repeating a request
 * that failed between the two brings them together.
 */
export class UpdateReplicaLogin {
  constructor(private readonly deps: ReplicaLoginDeps) {}

  async execute(input: { id: string; patch: ReplicaLoginPatch }): Promise<ReplicaLogin> {
    requireEnterprise(this.deps.plan);
    const login = await storedLogin(this.deps.repository, input.id);
    const limits = {
      connectionLimit: input.patch.connectionLimit ?? login.connectionLimit,
      statementTimeoutSeconds: input.patch.statementTimeoutSeconds ?? login.statementTimeoutSeconds,
    };
    await this.deps.logins.setLimits(login.username, limits);
    const updated = await this.deps.repository.update(login.id, (current) => ({
      ...current,
      ...limits,
      updatedAt: this.deps.clock.now().toISOString(),
    }));
    return withLimits(updated ?? { ...login, ...limits });
  }
}
