/**
 * The repeating groups the FIX reader understands: a NoXxx count tag → its member tags, the first of
 * which opens each entry (FIX 4.4 / 5.0 numbering). Enough for position reports (35=AP) and
 * execution reports (35=8); a group missing here shows up as a repeated tag and is refused.
 */
export const FIX_GROUPS: Readonly<Record<string, readonly string[]>> = {
  // NoPartyIDs: PartyID, PartyIDSource, PartyRole, NoPartySubIDs
  "453": ["448", "447", "452", "802"],
  // NoPartySubIDs: PartySubID, PartySubIDType
  "802": ["523", "803"],
  // NoPositions: PosType, LongQty, ShortQty, PosQtyStatus, QuantityDate, NoNestedPartyIDs
  "702": ["703", "704", "705", "706", "976", "539"],
  // NoNestedPartyIDs: NestedPartyID, NestedPartyIDSource, NestedPartyRole, NoNestedPartySubIDs
  "539": ["524", "525", "538", "804"],
  // NoNestedPartySubIDs: NestedPartySubID, NestedPartySubIDType
  "804": ["545", "805"],
  // NoPosAmt: PosAmtType, PosAmt, PositionCurrency
  "753": ["707", "708", "1055"],
  // NoSecurityAltID: SecurityAltID, SecurityAltIDSource
  "454": ["455", "456"],
  // NoMiscFees: MiscFeeAmt, MiscFeeCurr, MiscFeeType, MiscFeeBasis
  "136": ["137", "138", "139", "891"],
  // NoContAmts: ContAmtType, ContAmtValue, ContAmtCurr
  "518": ["519", "520", "521"],
  // NoContraBrokers: ContraBroker, ContraTrader, ContraTradeQty, ContraTradeTime, ContraLegRefID
  "382": ["375", "337", "437", "438", "655"],
  // NoStipulations: StipulationType, StipulationValue
  "232": ["233", "234"],
};

/** Each group's name and the member that usually tells its entries apart (a role or a type), for selectors like 453[452=3].448. */
const FIX_GROUP_KEYS: Readonly<Record<string, { name: string; key: string }>> = {
  "453": { name: "NoPartyIDs", key: "452" },
  "802": { name: "NoPartySubIDs", key: "803" },
  "702": { name: "NoPositions", key: "703" },
  "539": { name: "NoNestedPartyIDs", key: "538" },
  "804": { name: "NoNestedPartySubIDs", key: "805" },
  "753": { name: "NoPosAmt", key: "707" },
  "454": { name: "NoSecurityAltID", key: "456" },
  "136": { name: "NoMiscFees", key: "139" },
  "518": { name: "NoContAmts", key: "519" },
  "382": { name: "NoContraBrokers", key: "375" },
  "232": { name: "NoStipulations", key: "233" },
};

/**
 * Where a tag that lives only in repeating groups is found: the groups around it, outermost first
 * (`704` → NoPositions; `524` → NoPositions, NoNestedPartyIDs), and a selector path that reads it
 * (`702[703=…].704`). Undefined for a tag of no group.
 */
export function fixGroupPath(tag: string): { groups: { tag: string; name: string }[]; selector: string } | undefined {
  const parentOf = (member: string) =>
    Object.keys(FIX_GROUPS).find((count) => FIX_GROUPS[count]?.includes(member) === true);
  const chain: string[] = [];
  for (let parent = parentOf(tag); parent !== undefined && !chain.includes(parent); parent = parentOf(parent))
    chain.unshift(parent);
  if (chain.length === 0) return undefined;
  const steps = chain.map((count, index) => {
    const key = FIX_GROUP_KEYS[count]?.key ?? FIX_GROUPS[count]?.[0] ?? "";
    // Selecting by the very tag being read says nothing: the first entry instead.
    return key === (chain[index + 1] ?? tag) ? `${count}[0]` : `${count}[${key}=…]`;
  });
  return {
    groups: chain.map((count) => ({ tag: count, name: FIX_GROUP_KEYS[count]?.name ?? `group ${count}` })),
    selector: `${steps.join(".")}.${tag}`,
  };
}

/** Length tag → the data tag whose value is that many raw bytes (and may contain the separator). */
export const FIX_DATA_FIELDS: Readonly<Record<string, string>> = {
  "90": "91", // SecureDataLen → SecureData
  "93": "89", // SignatureLength → Signature
  "95": "96", // RawDataLength → RawData
  "212": "213", // XmlDataLen → XmlData
  "348": "349", // EncodedIssuerLen → EncodedIssuer
  "350": "351", // EncodedSecurityDescLen → EncodedSecurityDesc
  "354": "355", // EncodedTextLen → EncodedText
};

/** Session-level messages (heartbeat, test request, resend, reject, sequence reset, logout, logon): never records unless asked for. */
export const FIX_ADMIN_MSG_TYPES: ReadonlySet<string> = new Set(["0", "1", "2", "3", "4", "5", "A"]);
