// Types of the served module console/<version>/vendor/htm.js (the installed htm package).
export { default } from "htm";
