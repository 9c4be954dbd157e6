// typescript-eslint with type information, for every TypeScript file of the project (npm run lint).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", ".deploy/", "node_modules/", "coverage/", ".data/", "infra/.tools/", "infra/tools/obj/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Money data: a promise nobody awaits is a write nobody checks.
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      // An adapter may implement an async port method without awaiting anything.
      "@typescript-eslint/require-await": "off",
      // Control characters in patterns are the point here: names, paths and cells are checked for them
      // so that they can be refused (or escaped in XLSX), and FIX messages are delimited by \x01.
      "no-control-regex": "off",
    },
  },
  {
    // Adapters translate SDK errors into their own at the boundary and drop the SDK's error on purpose:
    // it carries the request's headers (tokens, signatures), which must not reach a log or an answer.
    files: ["shared/adapters/**/*.ts"],
    rules: { "preserve-caught-error": "off" },
  },
  {
    // The local hosts load the app (package.json main) and the emulators by path at run time, in order.
    files: ["local/**/*.ts"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Tests read JSON answers as they come (untyped) and assert on them; the assertions are the check.
    files: ["test/**/*.ts", "**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    // Plain JavaScript, and vitest.config.mts (which no tsconfig compiles): no type information.
    files: ["**/*.js", "**/*.mjs", "**/*.cjs", "vitest.config.mts"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        require: "readonly",
        module: "writable",
        process: "readonly",
        console: "readonly",
        __dirname: "readonly",
        __filename: "readonly",
        fetch: "readonly",
        AbortSignal: "readonly",
        setTimeout: "readonly",
        Atomics: "readonly",
        SharedArrayBuffer: "readonly",
        Int32Array: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // The console's browser modules: type-checked by tsc (shared/console/tsconfig.json), which knows the DOM's globals.
    files: ["shared/console/**/*.js"],
    languageOptions: { sourceType: "module" },
    rules: { "no-undef": "off" },
  },
);
