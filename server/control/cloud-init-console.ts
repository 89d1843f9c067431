// What a VM's serial console says about cloud-init: whether the boot got as far as cloud-init, which
// of its stages ran and whether it finished. cloud-init prints `Cloud-init v. 22.4.2 running
// 'init' at ...` per stage and `Cloud-init v. 22.4.2 finished at ... Datasource ...` at the end;
// systemd prefixes its other lines with `cloud-init[412]:`.

export interface CloudInitProgress {
  /** any line from cloud-init */
  reached: boolean;
  version?: string;
  /** stages cloud-init announced, in console order (init-local, init, modules:config, modules:final) */
  stages: string[];
  finished: boolean;
  /** e.g. `DataSourceNoCloud [seed=/dev/sr0][dsmode=net]` from the `finished` line */
  datasource?: string;
  /** non-empty console lines */
  lines: number;
  /** the last non-empty console line, for the evidence */
  lastLine?: string;
}

// A cursor move to a row (CSI row;col H or f): firmware redraws a line this way, not with a newline.
const cursorPosition = /\u001b\[\d*(?:;\d*)?[Hf]/g;
// Colour and cursor sequences (CSI and OSC), which consoles of booting systems are full of.
const terminalEscapes = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
// The guest writes its console, so every pattern here is bounded: no quantifier runs past a few
// dozen characters and the datasource is looked for in a short window after `finished at`. A lazy
// `.*?(?:Datasource (.+?)\.\s+Up\b|$)` over a 256 KiB line of `Datasource` words without the
// `.  Up` that ends one took 1.6 s; these take well under a millisecond on the same line.
const stageLine = /Cloud-init v\. (\S{1,40}) running '([^'\s]{1,40})'/;
const finishedLine = /Cloud-init v\. (\S{1,40}) finished at /;
// cloud-init's datasource reads `DataSourceNoCloud [seed=/dev/sr0][dsmode=net]`, after a date of ~35.
const datasourceWindow = 400;
const datasource = /Datasource ([^\n]{1,200}?)\.\s{1,8}Up\b/;
const journalPrefix = /\bcloud-init\[\d{1,10}\]:/;

/** Splits console text into clean lines: cursor moves read as line ends, other escapes gone, blanks dropped. */
export function consoleLines(text: string): string[] {
  return text
    .replace(cursorPosition, '\n')
    .replace(terminalEscapes, '')
    .split(/\r?\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export function cloudInitProgress(consoleText: string): CloudInitProgress {
  const lines = consoleLines(consoleText);
  const progress: CloudInitProgress = { reached: false, stages: [], finished: false, lines: lines.length };
  if (lines.length > 0) progress.lastLine = lines[lines.length - 1];
  for (const line of lines) {
    const stage = stageLine.exec(line);
    const finished = stage ? null : finishedLine.exec(line);
    const source = finished ? datasource.exec(line.slice(finished.index + finished[0].length, finished.index + finished[0].length + datasourceWindow)) : null;
    if (stage || finished || journalPrefix.test(line)) progress.reached = true;
    if (stage?.[1] && stage[2]) {
      progress.version = stage[1];
      if (!progress.stages.includes(stage[2])) progress.stages.push(stage[2]);
    }
    if (finished?.[1]) {
      progress.version = finished[1];
      progress.finished = true;
      if (source?.[1]) progress.datasource = source[1];
    }
  }
  return progress;
}
