import { randomBytes } from "node:crypto";
import {
  replicaPassword,
  replicaUsername,
  requireEnterprise,
  type ReplicaLogin,
  type ReplicaLoginCreate,
} from "../../domain/replica/replica-settings";
import type { ReplicaLoginDeps, ReplicaLoginWithPassword } from "./replica-login-deps";

/** Creates a read-only login in the replica database, within its limits; its password is in this answer only. */
export class CreateReplicaLogin {
  constructor(private readonly deps: ReplicaLoginDeps) {}

  async execute(input: ReplicaLoginCreate): Promise<ReplicaLoginWithPassword> {
    requireEnterprise(this.deps.plan);
    const now = this.deps.clock.now().toISOString();
    const login: ReplicaLogin = {
      id: `rl_${randomBytes(9).toString("base64url")}`,
      name: input.name,
      username: replicaUsername(input.name),
      connectionLimit: input.connectionLimit,
      statementTimeoutSeconds: input.statementTimeoutSeconds,
      createdAt: now,
      updatedAt: now,
    };
    const password = replicaPassword();
    await this.deps.logins.create(login.username, password, login);
    try {
      await this.deps.repository.create(login);
    } catch (error) {
      // Not listed, so no one could rotate or delete it: the database login goes too.
      await this.deps.logins.drop(login.username).catch(() => undefined);
      throw error;
    }
    return { ...login, password };
  }
}
