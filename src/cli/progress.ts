/** A one-line progress bar on stderr, only when stderr is a terminal. */
export interface Progress {
  update(done: number, total: number): void;
  done(): void;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      shown = true;
      const width = 30;
      const ratio = total > 0 ? Math.min(1, done / total) : 0;
      const fill = Math.round(ratio * width);
      stream.write(`\r${label} [${'#'.repeat(fill)}${' '.repeat(width - fill)}] ${Math.round(ratio * 100)}%`);
    },
    done() {
      if (shown) stream.write('\n');
    },
  };
}
