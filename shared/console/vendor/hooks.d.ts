// Types of the served module console/<version>/vendor/hooks.js (the installed preact/hooks).
export * from "preact/hooks";
