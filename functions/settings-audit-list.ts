import { z } from "zod";
import { services } from "../shared/composition";
import { cursorPaginationOf, cursorPaginationSchema, pageRequestOf } from "../shared/domain/page-request";
import { auditEntrySchema, auditListQuery } from "../shared/domain/settings-audit";
import { checkRange } from "../shared/http/date-range";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const settingsAuditList = endpoint({
  name: "settings-audit-list",
  method: "GET",
  route: "api/v1/settings/audit",
  summary:
    "Every change made through System Settings, newest first: who, which request, what changed from what to what (secrets redacted); filters combine; from/to bound `at` (inclusive)",
  tag: "System settings",
  scope: "api.admin",
  query: auditListQuery,
  responses: [
    {
      status: 200,
      description: "A page of audit entries",
      schema: z.object({ data: z.array(auditEntrySchema), pagination: cursorPaginationSchema }),
    },
  ],
  async handle({ query }) {
    const { resourceType, resourceId, actor, from, to, ...paging } = query;
    checkRange(from, to);
    const request = pageRequestOf(paging);
    const filter = {
      ...(resourceType ? { resourceType } : {}),
      ...(resourceId ? { resourceId } : {}),
      ...(actor ? { actor } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    };
    const result = await services().settingsAudit.listSettingsAudit().execute({ filter, request });
    return { status: 200, body: { data: result.items, pagination: cursorPaginationOf(request, result) } };
  },
});

registerEndpoint(settingsAuditList);
