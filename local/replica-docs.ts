/** `npm run docs:replica`: writes the replica's table reference into README.md from the table definitions. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withTableReference } from "../shared/adapters/replica/table-reference";
import { projectRoot } from "./launch";

const readme = join(projectRoot, "README.md");
writeFileSync(readme, withTableReference(readFileSync(readme, "utf8")));
process.stdout.write("README.md: replica table reference written\n");
