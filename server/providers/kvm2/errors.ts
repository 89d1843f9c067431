// classify: the one place an error meets the provider contract's classes (the spec's *Error
// classes* table). Errors that already carry a class from their source (validation, the image
// fetch, the dial) keep it; libvirt errors are classified by code through a table; SSH errors by
// their `permanent` flag; everything else is transient. Callers never match message text.
import { AuthUnsupportedError, LibvirtError, libvirtErrorCodes, type LibvirtErrorCodeName } from '@/server/libvirt';
import { errorClassOf, ProviderError, tagError, type ProviderErrorClass } from '@/server/providers/errors';
import { SshError } from '@/server/ssh';

/** The provider operation an error came out of; only `create` changes a class (no NotFound). */
export type Kvm2Operation = 'create' | 'get' | 'delete' | 'listByTag' | 'check' | 'dial' | 'image' | 'console';

export interface ClassifyOptions {
  op: Kvm2Operation;
}

/**
 * libvirt codes with a class of their own; every other code is transient (ErrOperationInvalid,
 * ErrInternalError for a full pool, and codes a newer daemon may add).
 */
export const libvirtCodeClasses: Partial<Record<LibvirtErrorCodeName, ProviderErrorClass>> = {
  ErrXMLError: 'permanent',
  ErrNoSupport: 'permanent',
  ErrInvalidArg: 'permanent',
  ErrAuthFailed: 'permanent',
  ErrAccessDenied: 'permanent',
  ErrNoStoragePool: 'permanent',
  ErrNoDomain: 'notFound',
  ErrNoStorageVol: 'notFound',
};

const classByCodeNumber = new Map<number, ProviderErrorClass>(
  (Object.entries(libvirtCodeClasses) as Array<[LibvirtErrorCodeName, ProviderErrorClass]>).map(([name, errorClass]) => [libvirtErrorCodes[name], errorClass]),
);

interface ClassRule {
  matches(err: unknown): boolean;
  errorClass(err: unknown): ProviderErrorClass;
}

// First match wins. Client-side RPC errors (abandoned or budget-exceeded calls, a connection
// killed by another caller or by the peer) and network errors fall through to transient.
const classRules: ClassRule[] = [
  {
    matches: (err) => err instanceof LibvirtError,
    errorClass: (err) => classByCodeNumber.get((err as LibvirtError).code) ?? 'transient',
  },
  {
    // Missing credential files are transient (the Secret may land); refused keys, host keys
    // missing or changed and unparsable files need a human.
    matches: (err) => err instanceof SshError,
    errorClass: (err) => ((err as SshError).permanent ? 'permanent' : 'transient'),
  },
  {
    // The daemon wants an authentication scheme we cannot satisfy: the same verdict as
    // ErrAuthFailed, no retry will change it.
    matches: (err) => err instanceof AuthUnsupportedError,
    errorClass: () => 'permanent',
  },
];

// The contract forbids NotFound from Create: a domain or volume vanishing between two steps is
// a race the next attempt resolves.
const classInOperation: Partial<Record<Kvm2Operation, Partial<Record<ProviderErrorClass, ProviderErrorClass>>>> = {
  create: { notFound: 'transient' },
};

function adjustForOperation(errorClass: ProviderErrorClass, op: Kvm2Operation): ProviderErrorClass {
  return classInOperation[op]?.[errorClass] ?? errorClass;
}

/**
 * The contract class of `err`, as a ProviderError whose `cause` is `err` (or `err` itself when it
 * already is one of the right class). Classifying a classified error returns it unchanged.
 */
export function classify(err: unknown, options: ClassifyOptions): ProviderError {
  const carried = errorClassOf(err);
  if (carried !== undefined) {
    const errorClass = adjustForOperation(carried, options.op);
    if (err instanceof ProviderError && err.errorClass === errorClass) return err;
    return tagError(errorClass, err);
  }
  const rule = classRules.find((candidate) => candidate.matches(err));
  const errorClass = rule ? rule.errorClass(err) : 'transient';
  return tagError(adjustForOperation(errorClass, options.op), err);
}

/** The libvirt error somewhere along `err`'s cause chain, if any (for logs and health reasons). */
export function libvirtErrorIn(err: unknown): LibvirtError | undefined {
  return findInCauses(err, (candidate): candidate is LibvirtError => candidate instanceof LibvirtError);
}

/** The first error along `err`'s cause chain (itself included) that `matches`. */
export function findInCauses<T>(err: unknown, matches: (candidate: unknown) => candidate is T): T | undefined {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current !== undefined && current !== null && !seen.has(current)) {
    if (matches(current)) return current;
    seen.add(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
