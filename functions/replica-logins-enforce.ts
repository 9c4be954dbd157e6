import { services } from "../shared/composition";
import { getSetting } from "../shared/config";
import { registerTimerFunction } from "../shared/triggers/timer-function";
import { replicaTriggersEnabled } from "../shared/triggers/replica-trigger";

/**
 * The replica logins' watchdog (Enterprise plan only): stops statements past their login's time limit
 * and sessions beyond its connection limit, which a login cannot lift (Azure SQL Database has neither
 * limit natively; PostgreSQL's statement_timeout is every session's to change).
 */
export const replicaLoginsEnforce = replicaTriggersEnabled()
  ? registerTimerFunction("replica-logins-enforce", {
      schedule: getSetting("REPLICA_WATCHDOG_SCHEDULE"),
      handle: async () => {
        await services().replica.enforceReplicaLoginLimits().execute();
      },
    })
  : undefined;
