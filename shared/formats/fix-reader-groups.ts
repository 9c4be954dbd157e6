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
