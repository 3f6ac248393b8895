// The pages' one stylesheet, served as /console/assets/style.css. Colours keep WCAG AA contrast.
export const STYLE = `
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #fff; --soft: #f6f8fa; --accent: #0a58ca; --bad: #82071e; --badbg: #ffebe9; --ok: #116329; --okbg: #dafbe1; --warn: #7d4e00; --warnbg: #fff8c5; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #1f6feb; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem; }
.skip:focus { left: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem 1.25rem; padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--soft); }
.brand { font-weight: 700; }
.top nav { display: flex; flex-wrap: wrap; gap: .25rem .9rem; }
.top nav a { text-decoration: none; padding: .15rem 0; }
.top nav a[aria-current="page"] { color: var(--fg); font-weight: 600; border-bottom: 2px solid var(--fg); }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; }
.lead { color: var(--muted); margin-top: 0; }
code, pre, .mono { font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow: auto; margin: .25rem 0; white-space: pre; }
pre.wrap { white-space: pre-wrap; word-break: break-word; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
label.inline { display: inline-flex; align-items: center; gap: .4rem; font-weight: 500; margin: .5rem 1rem .5rem 0; }
input, select, textarea { width: 100%; padding: .45rem .5rem; font: inherit; color: inherit; background: var(--bg); border: 1px solid #8c959f; border-radius: 6px; }
input[type="checkbox"] { width: auto; }
textarea { min-height: 5rem; resize: vertical; }
button, .button { display: inline-block; padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; font: inherit; cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: var(--bg); color: var(--accent); }
button.danger { background: var(--bg); color: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .6; cursor: wait; }
.row { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
.row > * { flex: 1 1 12rem; }
.row > .narrow { flex: 0 1 9rem; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: 1rem; align-items: center; }
td .actions { margin-top: 0; }
.copyline { display: flex; gap: .5rem; align-items: center; margin: .25rem 0 .75rem; }
.copyline input { flex: 1; font: 14px ui-monospace, monospace; }
.snippet { position: relative; }
.snippet .copy { position: absolute; top: .35rem; right: .35rem; padding: .2rem .6rem; font-size: .875rem; }
.tabs { display: flex; flex-wrap: wrap; gap: .25rem; border-bottom: 1px solid var(--line); margin: .5rem 0 .75rem; }
.tabs [role="tab"] { background: none; color: var(--accent); border: 1px solid transparent; border-bottom: 0; border-radius: 6px 6px 0 0; padding: .4rem .8rem; margin-bottom: -1px; }
.tabs [role="tab"][aria-selected="true"] { color: var(--fg); font-weight: 600; border-color: var(--line); background: var(--bg); }
.tabbed .panel-title { display: none; }
.grid2 { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.5rem; }
@media (max-width: 52rem) { .grid2 { grid-template-columns: minmax(0, 1fr); } }
.tablewrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
.tablewrap.tall { max-height: 65vh; overflow-y: auto; }
.tablewrap.tall th { position: sticky; top: 0; z-index: 1; }
table { border-collapse: collapse; width: 100%; font-size: .925rem; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
tbody tr:last-child td { border-bottom: 0; }
tr.selected td { background: #ddf4ff; }
td .linkish { background: none; border: 0; color: var(--accent); padding: 0; text-decoration: underline; cursor: pointer; font: inherit; }
.pill { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .85rem; font-weight: 600; background: var(--soft); border: 1px solid var(--line); white-space: nowrap; }
.pill.ok { background: var(--okbg); color: var(--ok); border-color: #4ac26b; }
.pill.bad { background: var(--badbg); color: var(--bad); border-color: #ff8182; }
.pill.warn { background: var(--warnbg); color: var(--warn); border-color: #d4a72c; }
.muted { color: var(--muted); }
.preview { max-width: 22rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-style: italic; }
.output { white-space: pre-wrap; word-break: break-word; margin-top: 1rem; padding: .75rem; min-height: 3rem; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; }
.output.error, .notice.error { background: var(--badbg); color: var(--bad); border-color: #ff8182; }
.notice { padding: .5rem .75rem; border-radius: 6px; background: var(--soft); border: 1px solid var(--line); margin: .5rem 0; }
/* A generated token is one long word: it breaks anywhere rather than run out of its box on a phone. */
.notice code { overflow-wrap: anywhere; }
.notice.ok { background: var(--okbg); color: var(--ok); border-color: #4ac26b; }
.meta { color: var(--muted); font-size: .9rem; margin: .4rem 0; }
.meta.good { color: var(--ok); } .meta.bad { color: var(--bad); }
#token-status:empty, #endpoint:empty { display: none; }
#endpoint { overflow-wrap: anywhere; }
.media img { max-width: 100%; height: auto; border-radius: 6px; border: 1px solid var(--line); }
.media audio { width: 100%; margin-top: .5rem; }
.media img + img { margin-top: .5rem; }
#assembled h4 { margin: .5rem 0 .25rem; }
ol.tools { margin: .25rem 0; padding-left: 1.5rem; } ol.tools:empty { display: none; }
ol.tools .mono { white-space: pre-wrap; word-break: break-word; }
.vector { font: 13px ui-monospace, monospace; }
ul.plain { list-style: none; padding: 0; margin: 0; }
details > summary { cursor: pointer; font-weight: 600; margin: .25rem 0; }
details.cloud { border-bottom: 1px solid var(--line); padding: .15rem 0; }
details.cloud > summary code { display: block; font-weight: normal; font-size: .875rem; overflow-wrap: anywhere; margin-left: 1rem; }
dl.kv { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .75rem; margin: .5rem 0; }
dl.kv dt { font-weight: 600; } dl.kv dd { margin: 0; word-break: break-word; }
@media (max-width: 40rem) {
  body { font-size: 15px; }
  main { padding: .75rem .75rem 2rem; }
  .hide-narrow { display: none; }
  .snippet .copy { position: static; margin: 0 0 .25rem; }
  .tablewrap.tall { max-height: none; }
  /* Tables marked .cards become one card per row, each cell labelled by its column. */
  table.cards thead { display: none; }
  table.cards tr { display: block; padding: .4rem 0; border-bottom: 1px solid var(--line); }
  table.cards tbody tr:last-child { border-bottom: 0; }
  table.cards td { display: block; border: 0; padding: .1rem .6rem; overflow-wrap: anywhere; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
  table.cards tr.json { padding-top: 0; }
}
@media (min-width: 40.01rem) {
  .show-narrow { display: none; }
}
`;
