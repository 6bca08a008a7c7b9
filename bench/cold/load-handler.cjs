// Loads one handler bundle in this fresh process and prints how long loading and initialising
// its module took: Lambda's init phase without the runtime's own boot, which every handler pays
// alike. Plain CommonJS, so no loader of ours is timed with it.
const { performance } = require('node:perf_hooks');

const start = performance.now();
const { handler } = require(process.argv[2]);
const ms = performance.now() - start;
if (typeof handler !== 'function') throw new Error(`${process.argv[2]} exports no handler`);
process.stdout.write(JSON.stringify({ ms }));
