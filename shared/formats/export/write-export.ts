/** The export writers behind one function: a data set streamed as a CSV, XLSX or JSON file. */
import type { WriteExport } from "../../ports/exports";
import { writeCsv } from "./csv-export";
import { writeJson } from "./json-export";
import { writeXlsx } from "./xlsx-export";

export const writeExport: WriteExport = (format, header, dataSet) => {
  switch (format) {
    case "csv":
      return writeCsv(dataSet);
    case "xlsx":
      return writeXlsx(header, dataSet);
    case "json":
      return writeJson(header, dataSet);
  }
};
