// @ts-check
// The view library: preact with htm's tagged templates (no build step). Interpolated values are
// always text or attributes, never markup: a name like <img onerror=…> is shown as it is.
import { h, render, Fragment } from "../vendor/preact.js";
import htm from "../vendor/htm.js";

export { render, Fragment };
export { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "../vendor/hooks.js";

/** @typedef {import("preact").ComponentChildren} Children */

/** @type {(strings: TemplateStringsArray, ...values: unknown[]) => import("preact").VNode<any>} */
export const html = /** @type {any} */ (htm.bind(h));
