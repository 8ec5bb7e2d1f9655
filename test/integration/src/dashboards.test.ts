/**
 * The Grafana dashboards of deploy/grafana, one per service, against what the services export: a local
 * federation (kms, log, two nodes, vcs, as `npm start` runs it) issues a credential, and every metric a
 * panel of each dashboard names must be a family that service's /metrics serves.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalFederation, type LocalFederation } from '@anchor/dev-env';
import { freePort, makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const GRAFANA = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'deploy', 'grafana');

interface Dashboard {
  uid: string;
  panels: Array<{ type: string; targets?: Array<{ expr: string }> }>;
}

/** PromQL's functions, aggregations and keywords the dashboards use: what is left of an expression are metric names. */
const PROMQL_WORDS = new Set(['histogram_quantile', 'sum', 'rate', 'by', 'le', 'instance']);

function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\$\w+/g, '');
  const groupings = [...bare.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((match) => (match[1] ?? '').split(/\s*,\s*/));
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .map((match) => match[0])
    .filter((word) => !PROMQL_WORDS.has(word) && !groupings.includes(word));
}

/** The families of an exposition (`# TYPE name type`), and whether a sample name belongs to one. */
function exportedBy(exposition: string): (name: string) => boolean {
  const families = new Map(
    [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!] as const),
  );
  return (name) => {
    if (families.has(name)) return true;
    const histogram = /^(.*)_(bucket|count|sum)$/.exec(name)?.[1];
    return histogram !== undefined && families.get(histogram) === 'histogram';
  };
}

describe('the Grafana dashboards, against the metrics the running services export', () => {
  let dir: TempDir;
  let federation: LocalFederation;
  const scrapes: Record<string, string> = {};

  beforeAll(async () => {
    dir = await makeTempDir('anchor-dashboards-');
    federation = await startLocalFederation({
      dataDir: join(dir.path, 'federation'),
      nodes: 2,
      logPort: await freePort(),
      firstNodePort: await freePort(),
      kmsPort: await freePort(),
      vcsPort: await freePort(),
    });
    const { kms, log, nodes, vcs } = federation.layout;
    // Some traffic through every service: the vcs signs in the kms, logs the credential and verifies it.
    const credential = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      id: `urn:uuid:dashboards-${Date.now()}`,
      type: ['VerifiableCredential'],
      issuanceDate: '2026-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:subject' },
    };
    const post = (url: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const issued = await post(`${vcs!.url}/demo-issuer/credentials/issueCredential`, { credential });
    expect(issued.status).toBe(201);
    const verified = await post(`${vcs!.url}/verifier/credentials`, {
      verifiableCredential: await issued.json(),
      options: { checks: ['proof', 'logged'] },
    });
    expect(verified.status).toBe(200);
    for (const [name, url] of [
      ['kms', kms!.url],
      ['vct-log', log.url],
      ['vcs', vcs!.url],
      ['node', nodes[0]!.url],
    ] as const)
      scrapes[name] = await (await fetch(`${url}/metrics`)).text();
  }, 240_000);

  afterAll(async () => {
    await federation?.stop();
    await dir?.remove();
  });

  for (const [service, prefix] of [
    ['node', 'node_'],
    ['vct-log', 'vct_'],
    ['kms', 'kms_'],
    ['vcs', 'vcs_'],
  ] as const)
    it(`${service}: every metric a panel names is exported by the running ${service}`, () => {
      const dashboard = JSON.parse(readFileSync(join(GRAFANA, `${service}-dashboard.json`), 'utf8')) as Dashboard;
      const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
      expect(exprs.length).toBeGreaterThan(10);
      const named = [...new Set(exprs.flatMap(metricNamesIn))];
      expect(named.filter((name) => name.startsWith(prefix)).length).toBeGreaterThan(8);
      const exported = exportedBy(scrapes[service]!);
      expect(named.filter((name) => !exported(name))).toEqual([]);
    });

  it('a metric no service exports is caught', () => {
    const exported = exportedBy(scrapes['vcs']!);
    expect(metricNamesIn('sum by (le) (rate(vcs_made_up_seconds_bucket{instance=~"$instance"}[5m]))')).toEqual([
      'vcs_made_up_seconds_bucket',
    ]);
    expect(exported('vcs_made_up_seconds_bucket')).toBe(false);
    expect(exported('vcs_issue_seconds_bucket')).toBe(true);
  });
});
