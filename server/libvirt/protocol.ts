// The remote program (src/remote/remote_protocol.x): its data types (remote-types.ts), the
// procedures this client speaks (procedures.ts, one row each), the event messages the daemon
// sends on its own, and packet headers. The client is generic over these tables; calls.ts derives
// the friendly methods from the procedure rows.
import { MessageStatus, type MessageHeader, type MessageStatusValue, type MessageTypeValue } from './net-protocol';
import { procedures, type ProcedureName } from './procedures';
import { nonnullDomain, nonnullStoragePool } from './remote-types';
import { type Shape, type ShapeValue } from './xdr';
import { xdrInt, xdrStruct } from './xdr-shapes';

export * from './remote-types';
export * from './procedures';

export const REMOTE_PROGRAM = 0x20008086;
export const REMOTE_PROTOCOL_VERSION = 1;

// ---- event messages ---------------------------------------------------------------------------
// MESSAGE packets the daemon sends on its own (serial 0, no reply), each for the callbackID a
// REGISTER_ANY call returned.

export interface EventMessage<M> {
  /** REMOTE_PROC_* number of the message. */
  readonly proc: number;
  readonly msg: Shape<M>;
}

const declareEvent = <M>(proc: number, msg: Shape<M>): EventMessage<M> => ({ proc, msg });

export const eventMessages = {
  // remote_domain_event_callback_lifecycle_msg (wrapping remote_domain_event_lifecycle_msg)
  domainEventCallbackLifecycle: declareEvent(318, xdrStruct({ callbackID: xdrInt, msg: xdrStruct({ dom: nonnullDomain, event: xdrInt, detail: xdrInt }) })),
  // remote_storage_pool_event_lifecycle_msg
  storagePoolEventLifecycle: declareEvent(370, xdrStruct({ callbackID: xdrInt, pool: nonnullStoragePool, event: xdrInt, detail: xdrInt })),
  // remote_storage_pool_event_refresh_msg
  storagePoolEventRefresh: declareEvent(373, xdrStruct({ callbackID: xdrInt, pool: nonnullStoragePool })),
} as const;

export type EventMessages = typeof eventMessages;
export type EventName = keyof EventMessages;
export type EventOf<N extends EventName> = ShapeValue<EventMessages[N]['msg']>;

const byNumber = new Map<number, string>([
  ...(Object.keys(procedures) as ProcedureName[]).map((name) => [procedures[name].proc, name] as const),
  ...(Object.keys(eventMessages) as EventName[]).map((name) => [eventMessages[name].proc, name] as const),
]);

/** The table's name for a REMOTE_PROC_* number, or `proc#N` for one this client does not declare. */
export function procedureName(proc: number): string {
  return byNumber.get(proc) ?? `proc#${proc}`;
}

/** The header of a packet of the remote program. */
export function remoteHeader(fields: { procedure: number; type: MessageTypeValue; serial: number; status?: MessageStatusValue }): MessageHeader {
  return {
    program: REMOTE_PROGRAM,
    version: REMOTE_PROTOCOL_VERSION,
    procedure: fields.procedure,
    type: fields.type,
    serial: fields.serial,
    status: fields.status ?? MessageStatus.Ok,
  };
}
