// The username grammar as a reference table, from username-grammar.ts (the page's one copy of it).
import { Table, Td } from '@/components/ui/table';
import { grammar, grammarNotes, grammarSummary } from './username-grammar';

// Td keeps its text on one line; prose wraps.
const wrappingCell = 'min-w-64 px-3 py-2 text-slate-900';

export function GrammarTable() {
  return (
    <div className="space-y-3 text-sm text-slate-800">
      <p>
        The password is a gateway token; the username chooses the proxies:{' '}
        <code className="break-words rounded bg-slate-100 px-1 font-mono text-xs text-slate-900">{grammarSummary}</code>
      </p>
      <Table label="Username grammar" columns={['Part', 'Means', 'Example']}>
        {grammar.map((entry) => (
          <tr key={entry.form}>
            <Td className="font-mono text-xs">{entry.form}</Td>
            <td className={wrappingCell}>{entry.meaning}</td>
            <Td className="font-mono text-xs">{entry.example}</Td>
          </tr>
        ))}
      </Table>
      <ul className="list-disc space-y-1 pl-5 text-slate-700">
        {grammarNotes.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
    </div>
  );
}
