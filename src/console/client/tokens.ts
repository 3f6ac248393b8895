// The tokens page's script: issue, list (refreshed while the page is visible) and revoke.
import { $, admin, announce, el, wireCopyButtons } from './common.ts';

interface Token {
  token: string;
  used: number;
  models?: string[];
  quota?: number;
  rpm?: number;
  tpm?: number;
}

interface Costs {
  tokens: { token: string; requests: number; costUsd: number }[];
}

const tbody = $('#tokens');
const errorBox = $('#error');
const issued = $('#issued');

function showError(error: unknown): void {
  errorBox.textContent = String((error as Error).message ?? error);
  errorBox.hidden = false;
}

let shown = '';
async function refresh(): Promise<void> {
  const [{ tokens }, costs] = await Promise.all([admin<{ tokens: Token[] }>('/tokens'), admin<Costs>('/costs')]);
  const spent = new Map(costs.tokens.map((t) => [t.token, t.costUsd]));
  const key = JSON.stringify([tokens, costs]);
  if (key === shown) return;
  shown = key;
  tbody.replaceChildren(
    ...tokens.map((t) =>
      el(
        'tr',
        {},
        el('td', { 'data-label': 'Token' }, el('code', {}, t.token)),
        el('td', { 'data-label': 'Models' }, t.models ? t.models.join(', ') : el('span', { class: 'muted' }, 'all')),
        el('td', { 'data-label': 'Quota' }, t.quota ?? el('span', { class: 'muted' }, 'unlimited')),
        el('td', { 'data-label': 'Used' }, t.used),
        el(
          'td',
          { 'data-label': 'Rate limits' },
          t.rpm === undefined && t.tpm === undefined
            ? el('span', { class: 'muted' }, 'default')
            : `${[t.rpm === undefined ? 'default' : `${t.rpm} requests`, t.tpm === undefined ? 'default' : `${t.tpm} tokens`].join(' · ')} a minute`,
        ),
        el('td', { 'data-label': 'Spent' }, `$${(spent.get(t.token) ?? 0).toFixed(6)}`),
        el(
          'td',
          { class: 'nowrap' },
          el(
            'div',
            { class: 'actions' },
            el('button', { type: 'button', class: 'secondary', 'data-copy': t.token, 'aria-label': `Copy ${t.token}` }, 'Copy'),
            el('a', { class: 'button secondary', href: `/console/playground?token=${encodeURIComponent(t.token)}` }, 'Try'),
            el('button', { type: 'button', class: 'danger', 'data-revoke': t.token, 'aria-label': `Revoke ${t.token}` }, 'Revoke'),
          ),
        ),
      ),
    ),
  );
  if (!tokens.length)
    tbody.replaceChildren(
      el('tr', {}, el('td', { colspan: '7', class: 'muted' }, 'No tokens: every request is refused. Issue one above.')),
    );
}

$<HTMLFormElement>('#issue').addEventListener('submit', async (event) => {
  event.preventDefault();
  errorBox.hidden = true;
  const token = $<HTMLInputElement>('#new-token').value.trim();
  const quota = $<HTMLInputElement>('#quota').value.trim();
  const rpm = $<HTMLInputElement>('#rpm').value.trim();
  const tpm = $<HTMLInputElement>('#tpm').value.trim();
  const models = [...$<HTMLSelectElement>('#models').selectedOptions].map((o) => o.value);
  const body: Record<string, unknown> = {};
  if (token) body.token = token;
  if (quota) body.quota = Number(quota);
  if (rpm) body.rpm = Number(rpm);
  if (tpm) body.tpm = Number(tpm);
  if (models.length) body.models = models;
  try {
    const t = await admin<Token>('/tokens', { method: 'POST', body });
    issued.replaceChildren(
      'Issued ',
      el('code', { id: 'issued-token' }, t.token),
      ' ',
      el('button', { type: 'button', class: 'secondary', 'data-copy': t.token }, 'Copy'),
    );
    issued.hidden = false;
    announce(`Issued token ${t.token}`);
    $<HTMLFormElement>('#issue').reset();
    await refresh();
  } catch (error) {
    showError(error);
  }
});

tbody.addEventListener('click', async (event) => {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-revoke]');
  if (!button) return;
  if (!confirm(`Revoke ${button.dataset.revoke}? Requests with it will be refused (401).`)) return;
  errorBox.hidden = true;
  try {
    await admin(`/tokens/${encodeURIComponent(button.dataset.revoke!)}`, { method: 'DELETE' });
    announce(`Revoked ${button.dataset.revoke}`);
    await refresh();
  } catch (error) {
    showError(error);
  }
});

wireCopyButtons();
void refresh().catch(showError);
setInterval(() => {
  if (document.visibilityState === 'visible') void refresh().catch(() => {});
}, 2000);
