import { notFound } from "../../domain/errors";
import { withLimits, type OrganisationPlan, type ReplicaLogin } from "../../domain/replica/replica-settings";
import type { Clock } from "../../ports/clock";
import type { ReplicaLoginRepository } from "../../ports/replica-login-repository";
import type { ReplicaLogins } from "../../ports/replica-logins";

/** What every login use case needs: the plan, the logins in the database, their list, the clock. */
export interface ReplicaLoginDeps {
  plan: OrganisationPlan;
  logins: ReplicaLogins;
  repository: ReplicaLoginRepository;
  clock: Clock;
}

export type ReplicaLoginWithPassword = ReplicaLogin & { password: string };

export async function storedLogin(repository: ReplicaLoginRepository, id: string): Promise<ReplicaLogin> {
  const login = await repository.get(id);
  if (login === undefined) throw notFound(`Replica login '${id}'`);
  return withLimits(login);
}
