import { replicaPassword, requireEnterprise, withLimits } from "../../domain/replica/replica-settings";
import { storedLogin, type ReplicaLoginDeps, type ReplicaLoginWithPassword } from "./replica-login-deps";

/** A new password for a login (in this answer only); the old one stops working and its open sessions end. */
export class RotateReplicaLoginPassword {
  constructor(private readonly deps: ReplicaLoginDeps) {}

  async execute(input: { id: string }): Promise<ReplicaLoginWithPassword> {
    requireEnterprise(this.deps.plan);
    const login = await storedLogin(this.deps.repository, input.id);
    const password = replicaPassword();
    await this.deps.logins.setPassword(login.username, password);
    // The password lives only in the database: the audit trail learns of its rotation from here.
    const updated = await this.deps.repository.update(
      login.id,
      (current) => ({ ...current, updatedAt: this.deps.clock.now().toISOString() }),
      { action: "rotated", secrets: ["password"] },
    );
    return { ...withLimits(updated ?? login), password };
  }
}
