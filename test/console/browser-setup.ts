import chromium from "@sparticuz/chromium";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    chromiumPath: string;
  }
}

/**
 * Unpacks the headless Chromium of `@sparticuz/chromium` (an npm package: nothing to install by hand)
 * once per test run, before any test file starts: two files unpacking it at once would race.
 */
export async function setup(project: TestProject): Promise<void> {
  project.provide("chromiumPath", await chromium.executablePath());
}
