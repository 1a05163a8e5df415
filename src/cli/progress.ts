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
