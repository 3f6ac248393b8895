// The fixtures page (read-only): what is loaded, what each matches and answers, how often it was
// used, and the scenarios with their current state. Rendered from the live state on each visit.
import { html, page, testLinks, type TestFilter } from './html.ts';
import type { FixtureEntry } from '../fixtures/match.ts';
import type { Fixture } from '../types/fixtures.ts';

/** The most of one fixture's JSON the page shows (a pinned audio clip can be megabytes). */
const SHOWN_CHARS = 4000;

function conditions(f: Fixture): string[] {
  const m = f.match ?? {};
  return Object.entries(m).map(([k, v]) => (k === 'predicate' ? 'predicate (in-process)' : `${k}: ${JSON.stringify(v)}`));
}

function answers(f: Fixture): string {
  if (f.sequence) return `sequence of ${f.sequence.length}`;
  const kinds = (['reply', 'error', 'fault', 'raw'] as const).filter((k) => f[k] !== undefined);
  if (f.error) return `error ${f.error.status}`;
  if (f.fault) return `fault ${f.fault.type}`;
  return kinds.join(', ') || 'synthesized reply';
}

function shownJson(f: Fixture): string {
  const text = JSON.stringify(f, (k, v) => (k === 'predicate' ? '(function)' : v), 2);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}\n… (${text.length - SHOWN_CHARS} more characters)` : text;
}

export function fixturesPage(
  fixtures: readonly FixtureEntry[],
  scenarios: readonly { name: string; state: string; possibleStates: string[] }[],
  filter: TestFilter = { tests: [] },
): string {
  const rows = fixtures.map(
    (e) => html`<tr>
<td data-label="Id"><code>${e.id}</code></td>
<td data-label="Name">${e.fixture.name ?? ''}${e.fixture.once ? html` <span class="pill">once</span>` : ''}</td>
<td data-label="Matches">${conditions(e.fixture).length ? html`<ul class="plain">${conditions(e.fixture).map((c) => html`<li class="mono">${c}</li>`)}</ul>` : html`<span class="muted">every request</span>`}</td>
<td data-label="Answers">${answers(e.fixture)}</td>
<td data-label="Scenario">${e.fixture.scenario ? `${e.fixture.scenario}: ${e.fixture.requiredScenarioState ?? 'any'} → ${e.fixture.newScenarioState ?? 'same'}` : ''}</td>
<td data-label="Priority">${e.fixture.priority ?? 0}</td>
<td data-label="Source">${e.source}${e.test === undefined ? '' : html`<br><span class="muted">test ${e.test}</span>`}</td>
<td data-label="Used">${e.uses}</td>
</tr>
<tr class="json"><td colspan="8"><details><summary>Definition of ${e.fixture.name ?? e.id}</summary><pre>${shownJson(e.fixture)}</pre></details></td></tr>`,
  );
  const body = html`
<p><a class="button secondary" href="${filter.selected === undefined ? '/console/fixtures' : `/console/fixtures?test=${encodeURIComponent(filter.selected)}`}">Reload</a> <a href="${filter.selected === undefined ? '/__admin/fixtures' : `/__admin/fixtures?test=${encodeURIComponent(filter.selected)}`}">JSON</a></p>
${testLinks('/console/fixtures', 'every fixture', filter)}
<h2 id="fixtures-heading">Fixtures${filter.selected === undefined ? '' : html` of test ${filter.selected}`} <span class="muted">(${fixtures.length})</span></h2>
${
  fixtures.length
    ? html`<div class="tablewrap"><table class="cards" aria-labelledby="fixtures-heading">
<thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Matches</th><th scope="col">Answers</th><th scope="col">Scenario</th><th scope="col">Priority</th><th scope="col">Source</th><th scope="col">Used</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : html`<p class="notice">No fixtures: every request gets a synthesized reply. Load them with <code>--fixtures &lt;dir&gt;</code> or <code>POST /__admin/fixtures</code>.</p>`
}
<h2 id="scenarios-heading">Scenarios <span class="muted">(${scenarios.length})</span></h2>
${
  scenarios.length
    ? html`<div class="tablewrap"><table aria-labelledby="scenarios-heading">
<thead><tr><th scope="col">Scenario</th><th scope="col">State</th><th scope="col">Possible states</th></tr></thead>
<tbody>${scenarios.map((s) => html`<tr><td>${s.name}</td><td><span class="pill ok">${s.state}</span></td><td>${s.possibleStates.join(', ')}</td></tr>`)}</tbody></table></div>`
    : html`<p class="muted">No fixture belongs to a scenario.</p>`
}`;
  return page({
    path: '/console/fixtures',
    lead: 'The fixtures in force, in the order they are tried (higher priority first; among equals, the first that matches answers), with how many requests each answered.',
    body,
  });
}
