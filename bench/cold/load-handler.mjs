// Loads one handler bundle in this fresh process as Lambda's Node.js runtime does, with import()
// of the entry (for a .js file with no package.json above it, Node decides its module format by
// parsing it first), and prints how long loading and initialising its module took: Lambda's init
// phase without the runtime's own boot, which every handler pays alike. Plain JavaScript, so no
// loader of ours is timed with it.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [entry] = process.argv.slice(2);
const start = performance.now();
const loaded = await import(pathToFileURL(entry).href);
const ms = performance.now() - start;
if (typeof (loaded.handler ?? loaded.default?.handler) !== 'function') {
  throw new Error(`${entry} exports no handler`);
}
process.stdout.write(JSON.stringify({ ms }));
