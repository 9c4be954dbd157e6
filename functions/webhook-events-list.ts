import { z } from "zod";
import { webhookEventSchema, webhookEvents } from "../shared/domain/event-catalog";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const webhookEventsList = endpoint({
  name: "webhook-events-list",
  method: "GET",
  route: "api/v1/settings/webhook-events",
  summary: "The events a webhook can subscribe to: each one's name, meaning and an example of the envelope delivered",
  tag: "System settings",
  scope: "api.admin",
  responses: [
    { status: 200, description: "The event catalogue", schema: z.object({ data: z.array(webhookEventSchema) }) },
  ],
  async handle() {
    return { status: 200, body: { data: webhookEvents }, headers: { "Cache-Control": "private, max-age=300" } };
  },
});

registerEndpoint(webhookEventsList);
