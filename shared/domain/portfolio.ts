import { z } from "zod";
import { currencyCode } from "./currency";
import { idParam } from "./ids";

export const portfolioStatusSchema = z.enum(["active", "inactive", "archived"]);
export type PortfolioStatus = z.infer<typeof portfolioStatusSchema>;
export const portfolioTypeSchema = z.enum(["standard", "composite", "fund"]);

export const valuationStatusSchema = z.enum(["current", "pending"]).meta({
  description:
    "pending while a change to the portfolio's positions, or to a price or FX rate it uses, has not been valued yet (imports answer before valuation); current once totalValue, latestValuationDate and holdings reflect every stored change",
});

export const portfolioSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    code: z.string(),
    clientId: z.string(),
    baseCurrency: z.string(),
    type: portfolioTypeSchema,
    status: portfolioStatusSchema,
    memberIds: z.array(z.string()).optional().meta({ description: "Member portfolio ids (composite only)" }),
    totalValue: z.number().nullable().meta({
      description:
        "Value on latestValuationDate in the base currency: the sum of the holdings that could be valued (see valuationComplete)",
    }),
    latestValuationDate: z.iso.date().nullable(),
    valuationComplete: z.boolean().nullable().meta({
      description:
        "Whether every holding of the latest valuation has a market value; false: totalValue leaves out unvaluedCount holdings (no price or no FX rate). Null before a first valuation",
    }),
    unvaluedCount: z.number().int().nullable().meta({
      description: "Holdings of the latest valuation without a market value. Null before a first valuation",
    }),
    valuationStatus: valuationStatusSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Portfolio" });
/** A portfolio as the API shows it: the stored portfolio and whether a valuation is pending. */
export type PortfolioView = z.infer<typeof portfolioSchema>;
/** A stored portfolio; as read back, it says whether a valuation is pending. */
export type Portfolio = Omit<PortfolioView, "valuationStatus"> & { valuationStatus?: PortfolioView["valuationStatus"] };

/** What a portfolio is created with; the rest is its valuation, which it has none of yet. */
export type NewPortfolio = Pick<Portfolio, "id" | "name" | "code" | "clientId" | "baseCurrency" | "type" | "status"> &
  Partial<Pick<Portfolio, "memberIds">>;

/** A portfolio as created at `at`: never valued. */
export function newPortfolio(fields: NewPortfolio, at: string): Portfolio {
  return {
    ...fields,
    totalValue: null,
    latestValuationDate: null,
    valuationComplete: null,
    unvaluedCount: null,
    createdAt: at,
    updatedAt: at,
  };
}

const code = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' and '-' only");

export const portfolioCreateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    code,
    clientId: z.string().trim().min(1).max(100),
    baseCurrency: currencyCode,
    type: portfolioTypeSchema.default("standard"),
    status: z.enum(["active", "inactive"]).default("active"),
    memberIds: z.array(idParam(200)).max(500).optional(),
  })
  .superRefine((p, ctx) => {
    if (p.type === "composite" && (p.memberIds === undefined || p.memberIds.length === 0)) {
      ctx.addIssue({ code: "custom", path: ["memberIds"], message: "a composite portfolio needs at least one member" });
    }
    if (p.type !== "composite" && p.memberIds !== undefined) {
      ctx.addIssue({ code: "custom", path: ["memberIds"], message: "only composite portfolios have members" });
    }
    if (p.memberIds !== undefined && new Set(p.memberIds).size !== p.memberIds.length) {
      ctx.addIssue({ code: "custom", path: ["memberIds"], message: "members must not repeat" });
    }
  })
  .meta({ id: "PortfolioCreate" });
export type PortfolioCreate = z.infer<typeof portfolioCreateSchema>;

export const portfolioPatchSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    status: portfolioStatusSchema.optional(),
  })
  .refine((p) => p.name !== undefined || p.status !== undefined, { message: "name or status is required" })
  .meta({ id: "PortfolioPatch" });
export type PortfolioPatch = z.infer<typeof portfolioPatchSchema>;

const transitions: Record<PortfolioStatus, readonly PortfolioStatus[]> = {
  active: ["inactive", "archived"],
  inactive: ["active", "archived"],
  archived: [],
};

/** active ⇄ inactive, either → archived; archived is final. Staying put is allowed. */
export function canTransition(from: PortfolioStatus, to: PortfolioStatus): boolean {
  return from === to ? from !== "archived" : transitions[from].includes(to);
}

export const portfolioIdParams = z.object({ portfolioId: idParam(200) });
