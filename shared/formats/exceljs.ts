import type ExcelJS from "exceljs";

/**
 * exceljs, loaded the first time a workbook is read or written rather than when the service starts:
 * its ~150 modules were the largest part of the composition's start-up (about 1.5 s of CPU of every
 * start, on a 2-core machine), for a library only XLSX feeds and exports use.
 */
let loading: Promise<typeof ExcelJS> | undefined;

export function loadExcelJs(): Promise<typeof ExcelJS> {
  loading ??= import("exceljs").then((module) => module.default);
  return loading;
}
