// The libvirt RPC client (no libvirt library, no virsh). How to use it:
//
//   const libvirt = await LibvirtClient.open({ dialer, uri: 'qemu:///system', timeoutMs: 10_000 });
//   const dom = await libvirt.domainLookupByName({ name: 'web-1', timeoutMs: 30_000, signal });
//   await libvirt.storageVolUpload({ vol, source: body, length, timeoutMs: 20 * 60_000 });
//   for await (const chunk of libvirt.storageVolDownload({ vol })) hash.update(chunk);
//
// - Every method takes ONE options object: the procedure's .x argument fields next to the call's
//   own options. The methods come from the procedure rows (procedures.ts, calls.ts): adding a
//   call is adding a row.
//   await libvirt.close();
//
// - `dialer` is the transport seam: `dial(signal?) => Promise<Duplex>` (server/ssh's
//   libvirtSocketDialer, unixSocketDialer here, or an in-memory pipe). The handshake does
//   AUTH_LIST, AUTH_POLKIT when asked, then CONNECT_OPEN.
// - Every call takes `signal` and `timeoutMs` (default 30 s). Abandoning a call (abort or budget)
//   kills its connection: it is marked dead, the transport is destroyed, every other pending call
//   and stream rejects with ConnectionKilledError (cause: the abandoning error), and the call
//   itself rejects with CallAbortedError / CallTimeoutError. `alive` turns false; redial.
// - Errors: LibvirtError {code (libvirt's number), codeName ('ErrNoDomain'), domain, message};
//   client errors carry a stable string `code`. Use isLibvirtError(err, 'ErrNoDomain') and
//   isConnectionLost(err); never match messages.
// - An upload source that fails ends the stream cleanly; UploadSourceError is thrown afterwards.
// - Events: connectDomainEventLifecycleRegister({ listener }) and the storage pool ones return an
//   EventSubscription whose `ended` settles with the connection's error when it dies; libvirtd
//   forgets callbacks with their connection, so register again on the next one.
// - domainOpenConsole({ dom }) gives a DuplexStream (send keystrokes, read `output`, finish/abort);
//   ConsoleBusyError when someone else holds the console (DomainConsoleFlags.Force takes it).
export { LibvirtClient, libvirtMethods } from './api';
export type {
  ConsoleOptions,
  Domain,
  DomainEventOptions,
  DomainInfo,
  DomainInterface,
  DomainLifecycleEvent,
  DomainStatsOptions,
  StoragePoolLifecycleEvent,
  FlagsOptions,
  Interface,
  LibvirtCalls,
  LibvirtMethod,
  Network,
  PoolEventOptions,
  StoragePool,
  StoragePoolInfo,
  StorageVol,
  StorageVolInfo,
} from './api';
export { procedureArgs, type ArgsOptions, type OptionsOf, type ResultOf } from './calls';
export { RpcConnection, DEFAULT_CALL_TIMEOUT_MS, type CallOptions, type ConnectionOptions } from './client';
export { openConnection, type OpenOptions } from './connect';
export type { BlockStats, DomainStats, InterfaceStats, NodeInfo, TypedParamValue } from './domain-stats';
export type { DuplexOptions, DuplexStream } from './duplex-stream';
export type { EventSubscription } from './events';
export * from './errors';
export * from './flags';
export type { KeepaliveOptions } from './keepalive';
export { procedures, procedureName, type Access, type ProcedureName } from './protocol';
export type { DownloadOptions, UploadOptions, UploadResult } from './stream';
export { DEFAULT_LIBVIRT_SOCKET, unixSocketDialer, type Dialer } from './transport';
