// The request inspector: the journal, newest first, following GET /__admin/requests/stream; a row's
// request and response bodies come from GET /__admin/requests/{seq} when it is opened.
import { html, page } from './html.ts';

export function requestsPage(): string {
  const body = html`
<form id="filters" class="row" novalidate aria-label="Filters">
  <div class="narrow"><label for="f-status">Status</label><select id="f-status">
    <option value="">any</option><option value="2">2xx</option><option value="4">4xx</option><option value="5">5xx</option><option value="failed">failed / fault</option><option value="pending">in flight</option>
  </select></div>
  <div class="narrow"><label for="f-format">Format</label><select id="f-format">
    <option value="">any</option><option value="openai">openai</option><option value="anthropic">anthropic</option><option value="gemini">gemini</option>
  </select></div>
  <div class="narrow"><label for="f-fixture">Fixture</label><select id="f-fixture">
    <option value="">any</option><option value="matched">matched a fixture</option><option value="unmatched">no fixture</option><option value="near">near miss</option>
  </select></div>
  <div class="narrow"><label for="f-test">Test <span class="muted">(x-mock-test-id)</span></label><input id="f-test" type="search" list="f-tests" autocomplete="off"><datalist id="f-tests"></datalist></div>
  <div><label for="f-text">Search <span class="muted">(prompt, path, model, fixture)</span></label><input id="f-text" type="search" autocomplete="off"></div>
</form>
<div class="actions">
  <span id="live" class="pill" role="status">connecting…</span>
  <label class="inline"><input id="pause" type="checkbox"> Pause</label>
  <button id="clear" type="button" class="danger">Clear journal</button>
  <span id="count" class="meta"></span>
</div>
<div class="tablewrap tall"><table id="journal">
<thead><tr><th scope="col">#</th><th scope="col">Status</th><th scope="col">Request</th><th scope="col" class="hide-narrow">Fixture</th><th scope="col" class="hide-narrow">Time</th><th scope="col" class="hide-narrow">Duration</th><th scope="col" class="hide-narrow">Cost <span class="muted">(USD)</span></th><th scope="col" class="hide-narrow">Stream</th><th scope="col" class="hide-narrow">Fault</th></tr></thead>
<tbody id="rows"><tr><td colspan="9" class="muted">No requests yet. Send one from the <a href="/console/playground">playground</a> or any client.</td></tr></tbody>
</table></div>
<section id="detail" aria-labelledby="detail-heading" hidden tabindex="-1">
<h2 id="detail-heading">Request</h2>
<dl class="kv" id="detail-facts"></dl>
<div id="near-miss"></div>
<div id="batch-lines"></div>
<div class="grid2">
  <div><h3>Request</h3><details><summary>Headers</summary><pre id="req-headers"></pre></details><pre id="req-body" class="wrap" tabindex="0"></pre></div>
  <div><h3>Response</h3><details><summary>Headers</summary><pre id="res-headers"></pre></details><p id="res-note" class="meta"></p>
    <div id="assembled" hidden><h4 id="assembled-heading">Assembled reply</h4><pre id="res-text" class="wrap" tabindex="0"></pre><ol id="res-tools" class="tools"></ol></div>
    <details id="res-raw" open><summary id="res-raw-summary">Body</summary><pre id="res-body" class="wrap" tabindex="0"></pre></details></div>
</div>
</section>`;
  return page({
    path: '/console/requests',
    lead: 'Every request the gateway received, newest first, as it happens, with what each reply cost at the price table. Open one to see its bodies.',
    body,
    script: 'requests',
  });
}
