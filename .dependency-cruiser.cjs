/**
 * The layering of shared/ (docs/architecture.md), held by `npm run depcheck` in `npm test`: arrows
 * point inward. The domain knows nothing else; ports know the domain; use cases (app) know ports and
 * the domain; adapters implement ports and know nothing of the app or the HTTP layer; only the
 * composition root, the HTTP layer and the function entry points see everything they wire.
 */
const layer = (name) => `^shared/${name}/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      from: { path: "^(shared|functions)/" },
      to: { circular: true },
    },
    {
      name: "domain-is-innermost",
      comment: "The domain imports no other layer and no Azure SDK.",
      severity: "error",
      from: { path: layer("domain") },
      to: { path: ["^shared/(?!domain/)", "^(functions|local|bench|test)/", "^node_modules/@azure/"] },
    },
    {
      name: "ports-know-only-the-domain",
      severity: "error",
      from: { path: layer("ports") },
      to: { path: ["^shared/(?!domain/|ports/)", "^(functions|local|bench|test)/", "^node_modules/@azure/"] },
    },
    {
      name: "use-cases-call-ports",
      comment: "Use cases reach the world through ports only: no adapter, reader, writer, SDK or HTTP type.",
      severity: "error",
      from: { path: layer("app") },
      to: {
        path: [
          "^shared/(adapters|formats|http|triggers)/",
          "^shared/composition",
          "^(functions|local|bench|test)/",
          "^node_modules/@azure/",
        ],
      },
    },
    {
      name: "adapters-implement-ports",
      comment: "Adapters (and the file readers and writers) know ports and the domain, never a use case.",
      severity: "error",
      from: { path: "^shared/(adapters|formats)/" },
      to: { path: ["^shared/(app|http|triggers)/", "^shared/composition", "^(functions|local|bench|test)/"] },
    },
    {
      name: "shipped-code-stays-shipped",
      comment: "What deploys (functions/, shared/) never imports the local runtime, benchmarks or tests.",
      severity: "error",
      from: { path: "^(shared|functions)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^(local|bench|test)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["\\.test\\.ts$", "^dist/", "^\\.deploy/"] },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
  },
};
