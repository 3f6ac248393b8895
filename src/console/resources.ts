// The resources page (read-only): the objects the gateway holds between requests, store by store
// (files, uploads, batches, stored responses, image files, cached prompts...), with each store's
// ceilings and what it does when full; `?test=<id>` shows one test's. Rendered from the live state.
import { html, page, testLinks, type TestFilter } from './html.ts';
import type { HeldStoreReport } from '../types/resources.ts';

/** Objects shown per store (the JSON route has them all). */
const SHOWN_OBJECTS = 200;

const mib = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${bytes} bytes`);

function storeSection(store: HeldStoreReport, showTest: boolean) {
  const id = `store-${store.name.replace(/[^a-z0-9]+/gi, '-')}`;
  const shown = store.objects.slice(-SHOWN_OBJECTS).reverse();
  const full = store.whenFull === 'refuse' ? 'refuses more when full' : 'drops its oldest when full';
  return html`<section aria-labelledby="${id}">
<h2 id="${id}">${store.title} <span class="muted">(${store.count})</span></h2>
<p class="meta"><code>${store.name}</code>: ${store.count} of at most ${store.maxCount}, ${mib(store.bytes)} of ${mib(store.maxBytes)} (every test together); ${full}.</p>
${
  shown.length
    ? html`<div class="tablewrap"><table class="cards" aria-labelledby="${id}">
<thead><tr><th scope="col">Id</th>${showTest ? html`<th scope="col">Test</th>` : ''}<th scope="col">Bytes</th><th scope="col">Facts</th></tr></thead>
<tbody>${shown.map(
        (o) =>
          html`<tr><td data-label="Id"><code>${o.id}</code></td>${showTest ? html`<td data-label="Test">${o.test ?? html`<span class="muted">shared</span>`}</td>` : ''}<td data-label="Bytes">${o.bytes}</td><td data-label="Facts"><ul class="plain">${Object.entries(
            o.facts,
          ).map(([k, v]) => html`<li><span class="muted">${k}</span> ${v === null ? '—' : String(v)}</li>`)}</ul></td></tr>`,
      )}</tbody></table></div>${store.objects.length > shown.length ? html`<p class="meta">And ${store.objects.length - shown.length} older ones: the JSON has them all.</p>` : ''}`
    : html`<p class="muted">None held.</p>`
}
</section>`;
}

export function resourcesPage(stores: readonly HeldStoreReport[], filter: TestFilter = { tests: [] }): string {
  const query = filter.selected === undefined ? '' : `?test=${encodeURIComponent(filter.selected)}`;
  const body = html`
<p><a class="button secondary" href="/console/resources${query}">Reload</a> <a href="/__admin/resources${query}">JSON</a></p>
${testLinks('/console/resources', 'every test', filter)}
${stores.map((s) => storeSection(s, filter.selected === undefined))}`;
  return page({
    path: '/console/resources',
    lead: html`The objects the gateway holds between requests${filter.selected === undefined ? ', each with the test that made it' : html` for test <strong>${filter.selected}</strong>`}: files, uploads, batches, stored responses, image files and cached prompts, newest first. A test's reset drops its own; reset drops them all.`,
    body,
  });
}
