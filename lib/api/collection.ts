// The one envelope of every collection the API returns: an object holding the list under the
// resource's plural name (`{proxies: [...]}`, `{tokens: [...]}`), never a bare array, so a
// collection can gain fields (a window, a cursor) without breaking its readers.
import { z } from 'zod';

export function collection<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.strictObject({ [key]: z.array(item) } as { [P in K]: z.ZodArray<T> });
}
