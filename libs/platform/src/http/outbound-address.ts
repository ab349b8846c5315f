import { BlockList, isIP } from 'node:net';

// Addresses an outbound call must never reach unless its host is allow-listed: private, loopback,
// link-local (cloud metadata), shared, documentation, benchmarking, multicast, reserved, unspecified.
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

const MAPPED_V4 = /^::ffff:(?:0:)?(\d{1,3}(?:\.\d{1,3}){3})$/i;
const MAPPED_V4_HEX = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

// True when the address is not a public unicast address. IPv4-mapped IPv6 is judged as its IPv4.
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  const mapped = MAPPED_V4.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const hex = MAPPED_V4_HEX.exec(address);
  if (hex) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return BLOCKED.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return BLOCKED.check(address, 'ipv6');
}

// A host name or IP as the checks compare it: lower case, IPv6 without brackets, and without the
// trailing dot of a fully qualified name (`localhost.` is `localhost`: the same host for the
// allow-list, the IP-literal check, DNS and TLS's server name).
export function normalHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

// The host part of a URL as DNS and isIP see it (normalHost).
export function bareHost(url: URL): string {
  return normalHost(url.hostname);
}
