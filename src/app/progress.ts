/** A one-line progress bar on stderr, only when stderr is a terminal. */
export interface Progress {
  update(done: number, total: number): void;
  done(): void;
}

/**
 * `minTotal`: stay silent for work smaller than this (an incremental update of a few KB
 * should not flash a bar). The bar ends its line by itself at 100%.
 */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr, minTotal = 0): Progress {
  if (!stream.isTTY) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  let finished = false;
  return {
    update(done, total) {
      if (finished || total < minTotal) return;
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      shown = true;
      const width = 30;
      const ratio = total > 0 ? Math.min(1, done / total) : 0;
      const fill = Math.round(ratio * width);
      stream.write(`\r${label} [${'#'.repeat(fill)}${' '.repeat(width - fill)}] ${Math.round(ratio * 100)}%`);
      if (done >= total) {
        finished = true;
        stream.write('\n');
      }
    },
    done() {
      if (shown && !finished) stream.write('\n');
      finished = true;
    },
  };
}

export const mb = (bytes: number) => (bytes < 1_048_576 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`);

/**
 * What a model download says on stderr: where it goes once, then on a terminal one live line
 * per file with its bytes, elsewhere (a hook's log, a pipe) one line per file when it is in.
 */
export function modelDownloadReporter(stream: NodeJS.WriteStream, model: string, cacheDir: string): (e: { file: string; loaded: number; total: number; done: boolean }) => void {
  let announced = false;
  const finished = new Set<string>();
  const sizes = new Map<string, number>(); // the library's "done" carries no size: keep the last one seen
  let lastDraw = 0;
  return (e) => {
    if (finished.has(e.file)) return;
    if (e.total > 0) sizes.set(e.file, e.total);
    if (!announced) {
      announced = true;
      stream.write(`memory: downloading embedding model ${model} into ${cacheDir} (first use only)\n`);
    }
    if (e.done) {
      finished.add(e.file);
      const size = sizes.get(e.file);
      if (stream.isTTY) stream.write(`\r\x1b[K  ${e.file}${size ? ` ${mb(size)}` : ''} done\n`);
      else stream.write(`memory: downloaded ${e.file}${size ? ` (${mb(size)})` : ''}\n`);
      return;
    }
    if (!stream.isTTY) return;
    const now = Date.now();
    if (now - lastDraw < 100) return;
    lastDraw = now;
    const pct = e.total > 0 ? ` ${Math.floor((100 * e.loaded) / e.total)}%` : '';
    stream.write(`\r\x1b[K  ${e.file}${pct} (${mb(e.loaded)}${e.total > 0 ? ` of ${mb(e.total)}` : ''})`);
  };
}
