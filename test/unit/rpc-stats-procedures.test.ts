// The telemetry procedures over a scripted libvirtd: each call goes out under its REMOTE_PROC
// number with the .x argument layout, and each reply (built with the declared shape) comes back
// as the typed value the API promises. Node CPU and memory stats take two calls (count, values).
import { describe, expect, it } from 'vitest';
import { LibvirtClient } from '@/server/libvirt/api';
import { RpcConnection } from '@/server/libvirt/client';
import { DomainStatsTypes, GetAllDomainStatsFlags } from '@/server/libvirt/flags';
import { procedures, TypedParamType, type ProcedureName } from '@/server/libvirt/protocol';
import { decodeXdr, type Shape } from '@/server/libvirt/xdr';
import { FakePeer } from './rpc-fake-peer';

const dom = { name: 'web-1', uuid: Buffer.alloc(16, 7), id: 3 };
const chars = (text: string) => [...Buffer.from(text.padEnd(32, '\0'))];
const ull = (field: string, value: bigint) => ({ field, value: { type: TypedParamType.Ullong, value } });
const uint = (field: string, value: number) => ({ field, value: { type: TypedParamType.Uint, value } });
const int = (field: string, value: number) => ({ field, value: { type: TypedParamType.Int, value } });
const str = (field: string, value: string) => ({ field, value: { type: TypedParamType.String, value } });

interface Exchange {
  proc: number;
  args: unknown;
  ret: unknown;
}

/** A node stats call: asked with nparams 0, libvirtd answers how many there are; asked again for that many, the values. */
const countThenValues = (options: { proc: number; args: (nparams: number) => object; params: Array<{ field: string; value: bigint }> }): Exchange[] => {
  const { proc, args, params } = options;
  return [
    { proc, args: args(0), ret: { params: [], nparams: params.length } },
    { proc, args: args(params.length), ret: { params, nparams: params.length } },
  ];
};

interface Row {
  name: string;
  call: (client: LibvirtClient) => Promise<unknown>;
  exchanges: Exchange[];
  expected: unknown;
}

const rows: Row[] = [
  {
    name: 'nodeGetInfo (REMOTE_PROC_NODE_GET_INFO = 6)',
    call: (client) => client.nodeGetInfo(),
    exchanges: [
      {
        proc: 6,
        args: undefined,
        ret: { model: chars('x86_64'), memory: 6_233_000n, cpus: 2, mhz: 2596, nodes: 1, sockets: 1, cores: 2, threads: 1 },
      },
    ],
    expected: { model: 'x86_64', memoryKiB: 6_233_000n, cpus: 2, mhz: 2596, nodes: 1, sockets: 1, cores: 2, threads: 1 },
  },
  {
    name: 'nodeGetCpuStats (REMOTE_PROC_NODE_GET_CPU_STATS = 227): count, then values',
    call: (client) => client.nodeGetCpuStats(),
    exchanges: countThenValues({
      proc: 227,
      args: (nparams) => ({ cpuNum: -1, nparams, flags: 0 }),
      params: [
        { field: 'user', value: 197_280_000_000n },
        { field: 'idle', value: 480_270_000_000n },
      ],
    }),
    expected: { user: 197_280_000_000n, idle: 480_270_000_000n },
  },
  {
    name: 'nodeGetMemoryStats (REMOTE_PROC_NODE_GET_MEMORY_STATS = 228): count, then values',
    call: (client) => client.nodeGetMemoryStats(),
    exchanges: countThenValues({
      proc: 228,
      args: (nparams) => ({ nparams, cellNum: -1, flags: 0 }),
      params: [
        { field: 'total', value: 24_683_584n },
        { field: 'free', value: 22_514_252n },
      ],
    }),
    expected: { total: 24_683_584n, free: 22_514_252n },
  },
  {
    name: 'connectGetAllDomainStats (REMOTE_PROC_CONNECT_GET_ALL_DOMAIN_STATS = 344): every group read',
    call: (client) =>
      client.connectGetAllDomainStats({
        stats: DomainStatsTypes.State | DomainStatsTypes.CpuTotal | DomainStatsTypes.Balloon | DomainStatsTypes.Interface | DomainStatsTypes.Block,
        flags: GetAllDomainStatsFlags.Active,
      }),
    exchanges: [
      {
        proc: 344,
        args: { doms: [], stats: 1 | 2 | 4 | 16 | 32, flags: 1 },
        ret: {
          retStats: [
            {
              dom,
              params: [
                int('state.state', 1),
                int('state.reason', 1),
                ull('cpu.time', 6_920_000_000n),
                ull('cpu.user', 6_790_000_000n),
                ull('cpu.system', 130_000_000n),
                ull('balloon.current', 131_072n),
                ull('balloon.maximum', 131_072n),
                ull('balloon.rss', 47_000n),
                uint('net.count', 1),
                str('net.0.name', 'vnet1'),
                ull('net.0.rx.bytes', 2132n),
                ull('net.0.rx.pkts', 18n),
                ull('net.0.tx.bytes', 1844n),
                ull('net.0.tx.pkts', 11n),
                uint('block.count', 1),
                str('block.0.name', 'vda'),
                str('block.0.path', '/pool/web-1.qcow2'),
                ull('block.0.rd.bytes', 4096n),
                ull('block.0.rd.reqs', 2n),
                ull('block.0.wr.bytes', 512n),
                ull('block.0.wr.reqs', 1n),
                { field: 'perf.x', value: { type: TypedParamType.Double, value: 0.5 } },
                { field: 'vm.flag', value: { type: TypedParamType.Boolean, value: 1 } },
              ],
            },
          ],
        },
      },
    ],
    expected: [
      expect.objectContaining({
        dom,
        state: { state: 1, reason: 1 },
        cpu: { timeNs: 6_920_000_000n, userNs: 6_790_000_000n, systemNs: 130_000_000n },
        balloon: { currentKiB: 131_072n, maximumKiB: 131_072n, rssKiB: 47_000n },
        interfaces: [{ name: 'vnet1', rxBytes: 2132n, rxPackets: 18n, rxErrors: 0n, rxDrops: 0n, txBytes: 1844n, txPackets: 11n, txErrors: 0n, txDrops: 0n }],
        blocks: [{ name: 'vda', path: '/pool/web-1.qcow2', readBytes: 4096n, readRequests: 2n, writeBytes: 512n, writeRequests: 1n }],
        params: expect.objectContaining({ 'perf.x': 0.5, 'vm.flag': true, 'net.count': 1 }),
      }),
    ],
  },
  {
    name: 'connectGetAllDomainStats for named domains: a domain with no groups has none',
    call: (client) => client.connectGetAllDomainStats({ stats: DomainStatsTypes.State, doms: [dom] }),
    exchanges: [{ proc: 344, args: { doms: [dom], stats: 1, flags: 0 }, ret: { retStats: [{ dom, params: [] }] } }],
    expected: [{ dom, params: {} }],
  },
];

const nameOf = (proc: number) => (Object.keys(procedures) as ProcedureName[]).find((name) => procedures[name].proc === proc) as ProcedureName;

describe('telemetry procedures on the wire', () => {
  it.each(rows)('$name', async ({ call, exchanges, expected }) => {
    const peer = new FakePeer();
    const client = new LibvirtClient(new RpcConnection(peer.transport));
    const result = call(client);
    for (const exchange of exchanges) {
      const packet = await peer.nextPacket();
      const declaration = procedures[nameOf(exchange.proc)];
      expect(packet.header.procedure).toBe(exchange.proc);
      expect(decodeXdr(declaration.args as Shape<unknown>, packet.payload)).toEqual(exchange.args);
      peer.reply(packet, declaration.ret as Shape<unknown>, exchange.ret);
    }
    expect(await result).toEqual(expected);
  });
});
