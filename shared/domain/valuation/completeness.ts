/** Whether every holding has a market value, and how many do not. */
export function completenessOf(holdings: readonly { marketValue: number | null }[]): {
  complete: boolean;
  unvaluedCount: number;
} {
  let unvaluedCount = 0;
  for (const h of holdings) if (h.marketValue === null) unvaluedCount++;
  return { complete: unvaluedCount === 0, unvaluedCount };
}
