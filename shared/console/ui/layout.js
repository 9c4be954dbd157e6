// @ts-check
// The frame of every page: the product bar (who is signed in, Sign out), the areas' navigation and
// the page itself.
import { html } from "../lib/html.js";
import { signOut } from "../lib/session.js";
import { href } from "../lib/router.js";

/** @typedef {{ path: string, label: string }} Area */

/**
 * @param {{ areas: Area[], current: Area, clientId: string, children: unknown }} props
 */
export function Shell({ areas, current, clientId, children }) {
  const skip = (/** @type {Event} */ e) => {
    e.preventDefault();
    document.getElementById("main")?.focus();
  };
  return html`<div class="shell">
    <a class="skip" href="#main" onClick=${skip}>Skip to content</a>
    <header class="top">
      <div class="brand">
        <img src=${new URL("../icon.svg", import.meta.url).href} alt="" width="28" height="28" />
        <span>Investment Data Service</span>
        <strong>System Settings</strong>
      </div>
      <div class="who">
        ${clientId ? html`<span>Signed in as <strong class="mono">${clientId}</strong></span>` : null}
        <button type="button" onClick=${signOut}>Sign out</button>
      </div>
    </header>
    <nav class="areas" aria-label="Settings areas">
      <ul>
        ${areas.map(
          (area) =>
            html`<li><a href=${href(area.path)} aria-current=${area.path === current.path ? "page" : undefined}>${area.label}</a></li>`,
        )}
      </ul>
    </nav>
    <main id="main" tabindex="-1">${children}</main>
  </div>`;
}
