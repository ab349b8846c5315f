import { promises as dnsPromises } from 'node:dns';

type Address = { address: string; family: number };

// The address unknown names resolve to under the test DNS: public (example.com's), as the system
// resolver would answer for real hosts, whether or not the machine running the tests has DNS.
export const TEST_DNS_PUBLIC = '93.184.215.14';

// Names with fixed answers: loopback as a name in /etc/hosts gives it, private and link-local
// addresses, and one name with a public and a private address.
export const TEST_DNS: Readonly<Record<string, Address[]>> = {
  localhost: [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ],
  'hosts-entry.test': [{ address: '127.0.0.1', family: 4 }],
  'loopback6.test': [{ address: '::1', family: 6 }],
  'intranet.internal.test': [{ address: '10.0.0.5', family: 4 }],
  'metadata.internal.test': [{ address: '169.254.169.254', family: 4 }],
  'mixed.test': [
    { address: TEST_DNS_PUBLIC, family: 4 },
    { address: '192.168.1.10', family: 4 },
  ],
};

// Replaces dns.promises.lookup (which only the outbound client uses, to vet an address when it is
// saved and before each connection) with the table above; names under .invalid (RFC 6761) do not
// resolve (ENOTFOUND); any other name is public. Answers the function that puts the real one back.
export function installTestDns(): () => void {
  const real = dnsPromises.lookup;
  const fake = async (host: string): Promise<Address[]> => {
    const name = host.toLowerCase();
    if (name === 'invalid' || name.endsWith('.invalid')) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host });
    return TEST_DNS[name] ?? [{ address: TEST_DNS_PUBLIC, family: 4 }];
  };
  dnsPromises.lookup = fake as unknown as typeof dnsPromises.lookup;
  return () => {
    dnsPromises.lookup = real;
  };
}
