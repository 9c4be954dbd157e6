import { PreviewExportRuns } from "../app/export/preview-export-runs";
import type { Clock } from "../ports/clock";

/** What the System Settings console needs beyond the settings API's own use cases: read-only previews. */
export function consoleUseCases(root: { clock: Clock }): { previewExportRuns: () => PreviewExportRuns } {
  let preview: PreviewExportRuns | undefined;
  return { previewExportRuns: () => (preview ??= new PreviewExportRuns({ clock: root.clock })) };
}
