// The tokens page: issue tokens with the scopes the control plane supports (models, a request
// quota, rate limits), list them with their use and spending, revoke them. The script calls /__admin/tokens.
import { html, page } from './html.ts';
import type { ModelInfo } from '../core/models.ts';

export function tokensPage(models: readonly ModelInfo[]): string {
  const body = html`
<section aria-labelledby="issue-heading">
<h2 id="issue-heading">Issue a token</h2>
<form id="issue" novalidate>
  <div class="row">
    <div><label for="new-token">Token <span class="muted">(optional: generated when empty)</span></label><input id="new-token" autocomplete="off" spellcheck="false" placeholder="sk-…"></div>
    <div class="narrow"><label for="quota">Quota <span class="muted">(requests)</span></label><input id="quota" type="number" min="0" step="1" inputmode="numeric" placeholder="unlimited"></div>
    <div class="narrow"><label for="rpm">Requests <span class="muted">a minute</span></label><input id="rpm" type="number" min="1" step="1" inputmode="numeric" placeholder="default"></div>
    <div class="narrow"><label for="tpm">Tokens <span class="muted">a minute</span></label><input id="tpm" type="number" min="1" step="1" inputmode="numeric" placeholder="default"></div>
  </div>
  <label for="models">Models it may call <span class="muted">(none selected: every model)</span></label>
  <select id="models" multiple size="6">${models.map((m) => html`<option value="${m.id}">${m.id}</option>`)}</select>
  <div class="actions"><button id="issue-button" type="submit">Issue token</button></div>
</form>
<div id="issued" class="notice ok" hidden></div>
<div id="error" class="notice error" role="alert" hidden></div>
</section>
<section aria-labelledby="list-heading">
<h2 id="list-heading">Issued tokens</h2>
<div class="tablewrap"><table class="cards">
<thead><tr><th scope="col">Token</th><th scope="col">Models</th><th scope="col">Quota</th><th scope="col">Used</th><th scope="col">Rate limits</th><th scope="col">Spent <span class="muted">(USD)</span></th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody id="tokens"></tbody>
</table></div>
<p class="meta">Use counts and spending update every few seconds. <code>POST /__admin/reset</code> restarts them. Rate limits left at the default follow <code>--rpm</code>/<code>--tpm</code>.</p>
</section>`;
  return page({
    path: '/console/tokens',
    lead: 'Tokens the gateway accepts, what each may call, and how much each was used.',
    body,
    script: 'tokens',
  });
}
