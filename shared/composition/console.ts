import { PreviewExportRuns } from "../app/exports/preview-export-runs";
import type { CoreServices } from "./core";
import { lazy } from "./lazy";

/** What the System Settings console needs beyond the settings API's own use cases: read-only previews. */
export class ConsoleServices {
  constructor(private readonly core: CoreServices) {}

  readonly previewExportRuns = lazy(() => new PreviewExportRuns({ clock: this.core.clock }));
}
