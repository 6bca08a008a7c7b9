/**
 * The console's only stylesheet, served by the console itself (/assets/console.css): nothing is
 * loaded from elsewhere, and a module instead of a file keeps it inside any bundle of the CLI.
 * Focus is always visible; colours keep WCAG AA contrast on white.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1b1f; --muted: #5c5f66; --line: #d0d3d9; --accent: #0b57d0;
  --alert: #b3261e; --bg-soft: #f4f5f7; font-family: system-ui, sans-serif; color: var(--ink); }
body { margin: 0; line-height: 1.45; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #e8710a; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem 1rem; }
.skip:focus { left: .5rem; z-index: 10; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 1.5rem; padding: .6rem 1.5rem;
  border-bottom: 1px solid var(--line); background: var(--bg-soft); }
.brand { margin: 0; font-weight: 700; }
header nav ul, .tabs, .pager { list-style: none; display: flex; gap: 1rem; margin: 0; padding: 0; flex-wrap: wrap; }
[aria-current] { font-weight: 700; text-decoration: none; color: var(--ink); }
main { padding: 1rem 1.5rem 3rem; max-width: 82rem; }
main:focus { outline: none; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; }
.muted { color: var(--muted); }
.alert { color: var(--alert); }
code { font-family: ui-monospace, monospace; font-size: .92em; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1.25rem; margin: 0; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
caption { text-align: left; font-weight: 600; padding-bottom: .25rem; }
th, td { text-align: left; vertical-align: top; padding: .3rem .6rem; border-bottom: 1px solid var(--line);
  overflow-wrap: break-word; }
code.id { white-space: nowrap; overflow-wrap: normal; }
thead th { background: var(--bg-soft); }
.empty { color: var(--muted); }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .6rem; font-size: .85em; border: 1px solid currentColor; }
.status-open { color: #8a4b00; } .status-awaiting-operator { color: var(--alert); }
.status-replaying { color: #6a4c93; } .status-resolved, .status-replayed { color: #2e6b30; }
.button, button { display: inline-block; padding: .3rem .8rem; border: 1px solid var(--accent); border-radius: .3rem;
  background: #fff; color: var(--accent); font: inherit; text-decoration: none; cursor: pointer; margin: .1rem .2rem .1rem 0; }
.primary { background: var(--accent); color: #fff; }
.actions { display: inline-flex; flex-wrap: wrap; gap: .3rem; }
.timeline { list-style: none; padding: 0; border-left: 3px solid var(--line); margin-left: .4rem; }
.timeline li { padding: .25rem 0 .6rem 1rem; display: grid; gap: .1rem; }
.timeline .what { font-weight: 600; }
.timeline .detail { color: var(--muted); overflow-wrap: anywhere; }
.event-failure .what, .event-quarantine .what { color: var(--alert); }
pre { background: var(--bg-soft); border: 1px solid var(--line); padding: .75rem; overflow: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 32rem; }
.notice { background: #fff4e5; border-left: 4px solid #e8710a; padding: .5rem .75rem; }
.filters { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; align-items: end; }
.filters p { margin: .25rem 0; display: grid; }
.field { display: grid; gap: .2rem; max-width: 48rem; }
.hint { color: var(--muted); font-size: .92em; }
input, select, textarea { font: inherit; padding: .25rem; border: 1px solid #767676; border-radius: .2rem; }
fieldset { border: 1px solid var(--line); max-width: 48rem; }
legend { font-weight: 700; }
.choice { margin: .5rem 0; }
.choice .hint { display: block; margin-left: 1.6rem; }
.outcome { border-left: 4px solid var(--accent); padding: .25rem 1rem; margin: 1rem 0; background: var(--bg-soft); }
.outcome.refused, .outcome.failed { border-color: var(--alert); }
.chart svg { width: 100%; max-width: 48rem; height: auto; font-size: 11px; fill: var(--muted); }
.legend { display: inline-flex; align-items: center; gap: .3rem; margin-right: 1rem; }
.chart .swatch { width: .8rem; height: .8rem; }
.signature { font-size: .85em; }
`;
