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
const stageLine = /Cloud-init v\. (\S+) running '([^']+)'/;
const finishedLine = /Cloud-init v\. (\S+) finished at .*?(?:Datasource (.+?)\.\s+Up\b|$)/;
const journalPrefix = /\bcloud-init\[\d+\]:/;

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
    if (stage || finished || journalPrefix.test(line)) progress.reached = true;
    if (stage?.[1] && stage[2]) {
      progress.version = stage[1];
      if (!progress.stages.includes(stage[2])) progress.stages.push(stage[2]);
    }
    if (finished?.[1]) {
      progress.version = finished[1];
      progress.finished = true;
      if (finished[2]) progress.datasource = finished[2];
    }
  }
  return progress;
}
