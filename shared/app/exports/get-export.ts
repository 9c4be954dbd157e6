import { toPublicExport, type Export } from "../../domain/export";
import { requireExport, type ExportsDeps } from "./export-definition";

/** One export definition (destination secrets never answered); 404 when there is none. */
export class GetExport {
  constructor(private readonly deps: ExportsDeps) {}

  async execute(id: string): Promise<Export> {
    return toPublicExport(await requireExport(this.deps.repository, id));
  }
}
