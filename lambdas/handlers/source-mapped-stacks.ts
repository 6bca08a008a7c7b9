/**
 * Stack traces through the bundle's source maps, as `--enable-source-maps` writes them, without
 * its cost at every cold start: Node reads and parses the map of every module it loads when the
 * flag is on (with it the consumer's cold init measured 0.95x the reference's, without it 0.75x:
 * `npm run -s bench -- --only coldInit --runs 30`, issue 24). Here a map is read on the first
 * stack that passes through its file, which for a healthy consumer is never.
 *
 * The frames are written exactly as Node's own source-mapped stack traces write them (Node's
 * lib/internal/source_map/prepare_stack_trace.js, serializeJSStackFrame), so the evidence's stack
 * heads and the signatures that group quarantine records do not change with the switch. It sits
 * with the handlers, which install it: a setting of the Node process, not of the consumer.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload, type SourceMapping } from 'node:module';
import { isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type PrepareStackTrace = (error: Error, trace: NodeJS.CallSite[]) => unknown;

/** What `findEntry` gives: nothing where the map has no mapping, and a `name` where it has one. */
type Entry = Partial<SourceMapping> & { readonly name?: string };

/** An entry of the map at a stack trace's 1-based line and column. */
function entryAt(map: SourceMap, line: number | null, column: number | null): Entry {
  return map.findEntry((line ?? 0) - 1, (column ?? 0) - 1);
}

/** Node's: the last `//# sourceMappingURL=` of a file (an earlier one may sit in a string). */
const MAGIC_COMMENT = /\/[*/]#\s+sourceMappingURL=(?<url>[^\s]+)/g;
const STACK_LINE_AT = '\n    at ';

/**
 * Maps every stack trace of this process through the source maps of the files it passes, unless
 * Node does it already (`--enable-source-maps`). Frames of files without a map stay as V8 writes them.
 */
export function installSourceMappedStacks(): void {
  if (process.sourceMapsEnabled) return;
  const nodeDefault = Error.prepareStackTrace as PrepareStackTrace | undefined;
  const maps = new SourceMaps();
  Error.prepareStackTrace = (error, trace) => {
    const mapped = trace.map((callSite, index) => {
      const map = maps.of(callSite.getFileName());
      return map ? serializeFrame(map, callSite, trace[index + 1]) : `${callSite}`;
    });
    // Node writes the header (its own errors have their code in it); the frames are ours.
    const header = nodeDefault ? String(nodeDefault(error, [])) : Error.prototype.toString.call(error);
    return `${header}${mapped.map((frame) => `${STACK_LINE_AT}${frame}`).join('')}`;
  };
}

/** Each file's map, read on the first frame in that file; `null` for a file without one. */
class SourceMaps {
  private readonly byFile = new Map<string, SourceMap | null>();

  of(fileName: string | null | undefined): SourceMap | null {
    if (fileName == null || fileName.startsWith('node:')) return null;
    let map = this.byFile.get(fileName);
    if (map === undefined) {
      map = readSourceMap(fileName);
      this.byFile.set(fileName, map);
    }
    return map;
  }
}

function readSourceMap(fileName: string): SourceMap | null {
  try {
    const fileUrl = /^[a-z][a-z0-9+.-]*:/i.test(fileName) ? fileName : pathToFileURL(fileName).href;
    const content = readFileSync(fileURLToPath(fileUrl), 'utf8');
    const url = [...content.matchAll(MAGIC_COMMENT)].at(-1)?.groups?.url;
    if (url === undefined) return null;
    const payload = url.startsWith('data:') ? fromDataUrl(url) : fromFile(new URL(url, fileUrl));
    const base = url.startsWith('data:') ? fileUrl : new URL(url, fileUrl).href;
    return payload ? new SourceMap(withAbsoluteSources(base, payload)) : null;
  } catch {
    // A stack trace must never fail for want of a map: its frames stay as V8 writes them.
    return null;
  }
}

function fromFile(mapUrl: URL): SourceMapPayload {
  return JSON.parse(readFileSync(fileURLToPath(mapUrl), 'utf8'));
}

function fromDataUrl(url: string): SourceMapPayload | null {
  const [format = '', data = ''] = url.slice('data:'.length).split(/,(.*)/s);
  const parts = format.split(';');
  if (parts[0] !== 'application/json') return null;
  const text = parts.at(-1) === 'base64' ? Buffer.from(data, 'base64').toString('utf8') : data;
  return JSON.parse(text);
}

/** As Node resolves them: `sourceRoot` + source, against the map's own URL. */
function withAbsoluteSources(base: string, payload: SourceMapPayload): SourceMapPayload {
  const sources = payload.sources.map((source) => {
    const rooted = (payload.sourceRoot || '') + source;
    return isAbsolute(rooted) ? pathToFileURL(rooted).href : new URL(rooted, base).href;
  });
  return { ...payload, sources, sourceRoot: '' };
}

/** Node's serializeJSStackFrame: the original place, and the original name where the map has it. */
function serializeFrame(
  map: SourceMap,
  callSite: NodeJS.CallSite,
  caller: NodeJS.CallSite | undefined,
): string {
  const { originalSource, originalLine, originalColumn } = entryAt(
    map,
    callSite.getLineNumber(),
    callSite.getColumnNumber(),
  );
  if (originalSource === undefined || originalLine === undefined || originalColumn === undefined)
    return `${callSite}`;
  const source = originalSource.startsWith('file://') ? fileURLToPath(originalSource) : originalSource;
  const fnName = callSite.getFunctionName() ?? callSite.getMethodName();
  const prefix = callSite.isAsync() ? 'async ' : callSite.isConstructor() ? 'new ' : '';
  const typeName = callSite.getTypeName();
  const namePrefix = typeName !== null && typeName !== 'global' ? `${typeName}.` : '';
  const name = originalSymbolName(map, callSite, caller) || `${fnName || '<anonymous>'}`;
  return `${prefix}${namePrefix}${name} (${source}:${originalLine + 1}:${originalColumn + 1})`;
}

/** Node's getOriginalSymbolName: the enclosing function's name in the map, else the caller's. */
function originalSymbolName(
  map: SourceMap,
  callSite: NodeJS.CallSite,
  caller: NodeJS.CallSite | undefined,
): string | undefined {
  const site = callSite as NodeJS.CallSite & {
    getEnclosingLineNumber(): number;
    getEnclosingColumnNumber(): number;
  };
  const enclosing = entryAt(map, site.getEnclosingLineNumber(), site.getEnclosingColumnNumber());
  if (enclosing.name) return enclosing.name;
  if (caller && callSite.getFileName() === caller.getFileName())
    return entryAt(map, caller.getLineNumber(), caller.getColumnNumber()).name;
  return undefined;
}
