// @ts-check
// The System Settings console: sign in, then one page per settings area, each calling the public API.
import { html, render, useEffect, useRef, useState } from "./lib/html.js";
import { sessionState, subscribe } from "./lib/session.js";
import { useRoute } from "./lib/router.js";
import { Shell } from "./ui/layout.js";
import { SignInAgain, SignInPage } from "./pages/sign-in.js";
import { AREAS } from "./pages/areas.js";

function App() {
  const [session, setSession] = useState(sessionState);
  useEffect(() => subscribe(() => setSession(sessionState())), []);
  const route = useRoute();
  const area = AREAS.find((a) => a.path === route.area) ?? AREAS[0];
  const shown = useRef("");

  // A new page (or the first after signing in): its title, and focus on its heading, so that a screen
  // reader starts there. Not on the first load: the browser's own focus is right then.
  const signedIn = session.session !== undefined;
  useEffect(() => {
    document.title = `${area.label} · System Settings`;
    if (shown.current !== "" && signedIn) {
      requestAnimationFrame(() => {
        const heading = document.querySelector("main h1");
        if (heading instanceof HTMLElement) heading.focus();
      });
    }
    shown.current = `${route.area}/${route.id ?? ""}`;
  }, [route.area, route.id, signedIn]);

  if (session.session === undefined && !session.expired) return html`<${SignInPage} />`;
  const Page = route.id !== undefined && area.detail ? area.detail : area.list;
  return html`<${Shell} areas=${AREAS} current=${area} clientId=${session.session?.clientId ?? session.lastClientId}>
      <${Page} key=${route.area + "/" + (route.id ?? "")} id=${route.id} query=${route.query} />
    </${Shell}>
    ${session.expired ? html`<${SignInAgain} clientId=${session.lastClientId} />` : null}`;
}

const root = document.getElementById("app");
if (root !== null) {
  root.textContent = "";
  render(html`<${App} />`, root);
}
