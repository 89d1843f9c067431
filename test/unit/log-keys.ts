// Top-level keys of a JSON log line as written, in order, duplicates included: JSON.parse keeps
// only the last of two equal keys, which is exactly how a second `name` or `host` goes unseen.
export function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let at = 0; at < line.length; at += 1) {
    const char = line[at];
    if (char === '"') {
      let end = at + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(JSON.parse(line.slice(at, end + 1)) as string);
      expectKey = false;
      at = end;
    } else if (char === '{' || char === '[') {
      depth += 1;
      expectKey = char === '{' && depth === 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
    } else if (char === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return keys;
}

/** The keys written more than once in `line`. */
export function duplicateKeys(line: string): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const key of topLevelKeys(line)) (seen.has(key) ? twice : seen).add(key);
  return [...twice];
}
