// Types of the served module console/<version>/vendor/preact.js (the installed preact package).
export * from "preact";
