// DATABASE_URL over the LAN: sessions, the signing key and the password hash travel on that
// connection, so a database host that is not this machine must be reached over TLS that verifies
// the server, unless the admin says DATABASE_INSECURE_TLS=1. Loopback and unix sockets stay as
// they are (nobody on the LAN sits between them).
import { describe, expect, it } from 'vitest';
import { settingsFromEnv } from '@/server/control/settings';

const settings = (env: Record<string, string>) => settingsFromEnv({ DATA_DIR: '/tmp/unused', ...env });

describe('DATABASE_URL transport', () => {
  it.each([
    'postgres://kvm2:pw@127.0.0.1:5432/kvm2',
    'postgres://kvm2:pw@localhost/kvm2',
    'postgres://kvm2:pw@[::1]:5432/kvm2',
    'postgres://kvm2:pw@127.0.0.53/kvm2',
    'postgres://kvm2@localhost/kvm2?host=/var/run/postgresql',
    'postgres:///kvm2?host=%2Fvar%2Frun%2Fpostgresql',
    'postgresql:///kvm2',
    'postgres://kvm2:pw@db.lan/kvm2?sslmode=verify-full',
    'postgres://kvm2:pw@192.168.1.20/kvm2?sslmode=require',
  ])('accepts %s', (url) => {
    expect(settings({ DATABASE_URL: url }).databaseUrl).toBe(url);
  });

  it.each([
    ['postgres://kvm2:pw@db.lan/kvm2', 'db.lan'],
    ['postgres://kvm2:pw@192.168.1.20:5432/kvm2?sslmode=disable', '192.168.1.20'],
    ['postgres://kvm2:pw@192.168.1.20/kvm2?sslmode=no-verify', '192.168.1.20'],
    ['postgres://kvm2:pw@[fd00::20]/kvm2?sslmode=prefer&uselibpqcompat=true', 'fd00::20'],
    ['postgres://kvm2:pw@127.0.0.1/kvm2?host=db.lan', 'db.lan'],
  ])('refuses %s at start, naming the variable and the override', (url, host) => {
    expect(() => settings({ DATABASE_URL: url })).toThrow(`DATABASE_URL: the database host ${host} is not this machine`);
    expect(() => settings({ DATABASE_URL: url })).toThrow(/sslmode=verify-full.*DATABASE_INSECURE_TLS=1/);
  });

  it('a non-loopback host without verified TLS is accepted when DATABASE_INSECURE_TLS=1', () => {
    const url = 'postgres://kvm2:pw@192.168.1.20/kvm2?sslmode=disable';
    expect(settings({ DATABASE_URL: url, DATABASE_INSECURE_TLS: '1' }).databaseUrl).toBe(url);
  });

  it('DATABASE_INSECURE_TLS takes 1 or 0 only', () => {
    expect(() => settings({ DATABASE_URL: 'postgres://localhost/kvm2', DATABASE_INSECURE_TLS: 'yes please' })).toThrow(
      /^DATABASE_INSECURE_TLS: must be 1 or 0/,
    );
    expect(() => settings({ DATABASE_URL: 'postgres://kvm2@db.lan/kvm2', DATABASE_INSECURE_TLS: '0' })).toThrow(/^DATABASE_URL: /);
  });

  it('an unreadable sslrootcert is named', () => {
    expect(() => settings({ DATABASE_URL: 'postgres://kvm2@db.lan/kvm2?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem' })).toThrow(
      /^DATABASE_URL: .*\/nonexistent\/ca.pem/,
    );
  });
});
