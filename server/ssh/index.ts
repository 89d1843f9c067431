// SSH transport for the libvirt client (ssh2). How to use it:
//
//   const dialer = libvirtSocketDialer({
//     address: 'beelink:22', user: 'novakj', socketPath: '/var/run/libvirt/libvirt-sock',
//     keyFile: '/etc/kvm2-proxies/id_ed25519', knownHostsFile: '/etc/kvm2-proxies/known_hosts',
//     timeoutMs: 10_000,               // TCP connect + SSH handshake + socket forward
//   });
//   const socket = await dialer.dial(signal);   // a Duplex: the remote unix socket
//
// - Every dial opens a fresh SSH connection and re-reads and re-parses both files (no cache), so
//   a rotated key or known_hosts entry is used by the next dial.
// - socket.destroy() kills the SSH connection's TCP socket at once (lock-free; use it to abandon
//   calls). socket.end() is the graceful close. When the SSH connection dies (keepalive
//   unanswered, TCP reset) the socket is destroyed with an SshConnectionDeadError (code
//   SSH_DEAD) as its 'error'. When the remote peer closes, the socket ends normally ('end').
// - dial() rejects with SshDialError {code, stage, permanent, cause}; HostKeyError (a subclass)
//   adds `reason` ('unknown' | 'changed' | 'revoked'). Classify on `code`/`permanent`/`stage`,
//   never on the message. Stages: credentials, tcp, ssh, socket.
// - Lower level: dialSsh(options) → SshConnection {forwardUnixSocket, kill, close, onDead, dead}.

export { parseSshAddress, knownHostsName, type SshEndpoint } from './address';
export { loadCredentials, type CredentialFiles, type Credentials } from './credentials';
export { dialSsh, sshDialDefaults, type SshDialOptions } from './dial';
export { SshConnection, type DeadListener } from './connection';
export { ForwardedSocket } from './forwarded-socket';
export { dialUnixSocket, libvirtSocketDialer, type SocketDialer, type UnixSocketDialOptions } from './socket-dialer';
export { checkHostKey, keyFingerprint, knownKeyTypes, parseKnownHosts, type KnownHosts } from './known-hosts';
export {
  HostKeyError,
  isSshError,
  permanentByCode,
  SshConnectionDeadError,
  SshDialError,
  SshError,
  type HostKeyProblem,
  type SshDeathReason,
  type SshDialStage,
  type SshErrorCode,
} from './errors';
