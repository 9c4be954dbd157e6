import { requireEnterprise } from "../../domain/replica/replica-settings";
import { storedLogin, type ReplicaLoginDeps } from "./replica-login-deps";

/** Removes a login from the database (it can no longer connect) and from the list. */
export class DeleteReplicaLogin {
  constructor(private readonly deps: ReplicaLoginDeps) {}

  async execute(input: { id: string }): Promise<void> {
    requireEnterprise(this.deps.plan);
    const login = await storedLogin(this.deps.repository, input.id);
    await this.deps.logins.drop(login.username);
    await this.deps.repository.delete(login.id);
  }
}
