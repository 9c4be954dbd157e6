/**
 * docs/feeds.md's example feed: a custodian's positions file (windows-1252, ';', title lines above the
 * header on row 4, German numbers and dates), matching test/fixtures/feeds/csv/custodian-positions-cp1252.csv.
 */
export const custodianPositionsFeed = {
  name: "Bankhaus Müller positions",
  provider: "Bankhaus Müller & Cie",
  dataType: "positions",
  format: "csv",
  filePattern: "custodian-positions-*.csv",
  options: {
    delimiter: ";",
    encoding: "windows-1252",
    headerRow: 4,
    decimalSeparator: ",",
    thousandsSeparator: ".",
    dateFormat: "dd.MM.yyyy",
  },
  mapping: { portfolioCode: "Depot", isin: "ISIN", date: "Stichtag", quantity: "Nominal/Stück", currency: "Währung" },
};
