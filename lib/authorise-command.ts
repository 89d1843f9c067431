// The command that authorises the server's public key for a user on a hypervisor, run there as
// root (browser-safe: the Settings page fills in the user the admin names).
export function authoriseCommand(publicKey: string, user: string): string {
  const quotedUser = /^[a-z_][a-z0-9_.-]*$/i.test(user) ? user : `'${user.replace(/'/g, `'\\''`)}'`;
  return `sudo -u ${quotedUser} sh -c 'umask 077; mkdir -p ~/.ssh && echo "${publicKey}" >> ~/.ssh/authorized_keys'`;
}
