/** `npm run docs:replica`: writes the replica's table reference into docs/replica.md from the table definitions. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withTableReference } from "../shared/adapters/replica/table-reference";
import { projectRoot } from "./launch";

const page = join(projectRoot, "docs", "replica.md");
writeFileSync(page, withTableReference(readFileSync(page, "utf8")));
process.stdout.write("docs/replica.md: replica table reference written\n");
