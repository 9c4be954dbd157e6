import type { ReplicaLogin } from "../domain/replica/replica-settings";
import type { SettingsRepository } from "./settings-repository";

/** The replica's logins as the service lists them (no password: the database keeps only its own hash). */
export type ReplicaLoginRepository = SettingsRepository<ReplicaLogin>;
