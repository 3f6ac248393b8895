// The home page: copy buttons, and the snippets as tabs (without this script they are all shown).
import { wireCopyButtons } from './common.ts';

wireCopyButtons();

const tablist = document.querySelector<HTMLElement>('[role="tablist"]');
if (tablist) {
  const tabs = [...tablist.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
  const select = (tab: HTMLButtonElement, focus: boolean) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')!)!.hidden = !on;
    }
    if (focus) tab.focus();
  };
  tablist.hidden = false;
  document.body.classList.add('tabbed');
  select(tabs[0], false);
  tablist.addEventListener('click', (event) => {
    const tab = (event.target as Element).closest<HTMLButtonElement>('[role="tab"]');
    if (tab) select(tab, false);
  });
  // Arrow keys, Home and End move between tabs, as the ARIA tabs pattern has it.
  tablist.addEventListener('keydown', (event) => {
    const at = tabs.indexOf(document.activeElement as HTMLButtonElement);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined || at < 0) return;
    event.preventDefault();
    select(tabs[(to + tabs.length) % tabs.length], true);
  });
}
