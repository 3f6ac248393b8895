// Markup for the pages: one escaping rule for every value, and the frame every page shares.
// `html` escapes everything interpolated into it unless it is already markup made by `html`.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe to place in markup, in element content or a quoted attribute. */
function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Markup known to be safe: the result of `html`. */
export class Markup {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = Markup | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(value);
}

/** A template whose interpolated values are escaped (arrays are joined; `Markup` is kept as is). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Markup(out);
}

/** JSON for a `<script type="application/json">` block: nothing in it can end the element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Pages run only their own scripts and talk only to this server. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGES = [
  { path: '/', title: 'Home' },
  { path: '/console/playground', title: 'Playground' },
  { path: '/console/tokens', title: 'Tokens' },
  { path: '/console/requests', title: 'Requests' },
  { path: '/console/fixtures', title: 'Fixtures' },
  { path: '/console/resources', title: 'Resources' },
] as const;

interface PageParts {
  path: (typeof PAGES)[number]['path'];
  /** What the page shows, in a sentence under its title. */
  lead: Markup | string;
  body: Markup;
  /** The client module under /console/assets/, if the page has one. */
  script?: string;
  /** Data for the client module, read from #page-data. */
  data?: unknown;
}

export function page({ path, lead, body, script, data }: PageParts): string {
  const title = PAGES.find((p) => p.path === path)!.title;
  const nav = PAGES.map((p) => html`<a href="${p.path}"${p.path === path ? html` aria-current="page"` : ''}>${p.title}</a>`);
  return `<!doctype html>
${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${path === '/' ? 'model-gateway-mock' : `${title} · model-gateway-mock`}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/style.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">model-gateway-mock</span><nav aria-label="Pages">${nav}</nav></header>
<main id="main">
<h1>${path === '/' ? 'model-gateway-mock' : title}</h1>
<p class="lead">${lead}</p>
${body}
</main>
<div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>
${data === undefined ? '' : html`<script type="application/json" id="page-data">${new Markup(jsonForScript(data))}</script>`}
${script ? html`<script type="module" src="/console/assets/${script}.js"></script>` : ''}
</body>
</html>`}
`;
}

/** Which test a page shows (`?test=<id>`: that test's own state), and the live tests. */
export interface TestFilter {
  tests: readonly string[];
  selected?: string;
}

/** Links that pick a test on the page at `path` (the pages run no form): `all` (every test's), or one test's view. */
export function testLinks(path: string, all: string, { tests, selected }: TestFilter): Markup | string {
  if (!tests.length && selected === undefined) return '';
  const link = (label: string, test?: string) =>
    test === selected
      ? html`<li><strong aria-current="true">${label}</strong></li>`
      : html`<li><a href="${path}${test === undefined ? '' : `?test=${encodeURIComponent(test)}`}">${label}</a></li>`;
  return html`<nav aria-label="Tests"><p class="meta">Tests with their own fixtures and state (<code>x-mock-test-id</code>):</p><ul class="plain">${[link(all), ...tests.map((t) => link(t, t))]}${
    selected !== undefined && !tests.includes(selected)
      ? html`<li><strong aria-current="true">${selected}</strong> <span class="muted">(no state: never used, or reset)</span></li>`
      : ''
  }</ul></nav>`;
}
