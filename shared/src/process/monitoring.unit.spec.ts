/**
 * The sample monitoring in infra/ (Prometheus alerting rules, the Grafana dashboard) and the metrics
 * table of docs/operations.md name only metrics, and labels, that the code's catalogue has: every
 * process builds its registry with createMetrics, so that registry is the catalogue. promtool is not
 * installed here: the rules file is checked as YAML of Prometheus's rule-file shape, not by promtool.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createMetrics } from './metrics';

const root = join(__dirname, '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Every series name the catalogue exposes, with the labels it may carry. */
function catalogue(): Map<string, Set<string>> {
  const { registry } = createMetrics('catalogue');
  const names = new Map<string, Set<string>>();
  for (const metric of registry.getMetricsAsArray()) {
    const { name, labelNames } = metric as unknown as { name: string; labelNames: string[] };
    const labels = new Set([...labelNames, 'process', 'instance', 'job']);
    const histogram =
      (metric as unknown as { constructor: { name: string } }).constructor.name === 'Histogram';
    names.set(name, labels);
    if (histogram) {
      names.set(`${name}_bucket`, new Set([...labels, 'le']));
      names.set(`${name}_sum`, labels);
      names.set(`${name}_count`, labels);
    }
  }
  return names;
}

/** The tokenops_ metrics a PromQL expression selects, each with the labels its selector names. */
function selectors(expr: string): { name: string; labels: string[] }[] {
  return [...expr.matchAll(/\b(tokenops_[a-z_]+)(?:\{([^}]*)\})?/g)].map((m) => ({
    name: m[1]!,
    labels: [...(m[2] ?? '').matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]!),
  }));
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string };
}

const rules = (): Rule[] =>
  (
    parse(read('infra/prometheus/alerts.yml')) as { groups: { name: string; rules: Rule[] }[] }
  ).groups.flatMap((g) => g.rules);

const dashboardExprs = (): string[] =>
  (
    JSON.parse(read('infra/grafana/tokenops.json')) as { panels: { targets: { expr: string }[] }[] }
  ).panels.flatMap((p) => p.targets.map((t) => t.expr));

describe('the sample monitoring names what the code exports', () => {
  const known = catalogue();
  const unknown = (exprs: string[]) =>
    exprs.flatMap((expr) =>
      selectors(expr).flatMap(({ name, labels }) => {
        const allowed = known.get(name);
        if (!allowed) return [`${name} (in ${expr})`];
        return labels.filter((l) => !allowed.has(l)).map((l) => `${name}{${l}} (in ${expr})`);
      }),
    );

  it('alerts.yml is a Prometheus rule file: each rule an alert with an expression, a severity and a summary', () => {
    const all = rules();
    expect(all.length).toBeGreaterThanOrEqual(8);
    for (const rule of all) {
      expect(rule).toEqual(
        expect.objectContaining({
          alert: expect.stringMatching(/^Tokenops[A-Za-z]+$/),
          expr: expect.any(String),
          labels: { severity: expect.stringMatching(/^(critical|warning)$/) },
          annotations: expect.objectContaining({ summary: expect.any(String) }),
        }),
      );
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
    }
    expect(new Set(all.map((r) => r.alert)).size).toBe(all.length);
  });

  it('every metric and label in alerts.yml exists', () => {
    const exprs = rules().map((r) => r.expr);
    expect(exprs.flatMap(selectors).length).toBeGreaterThan(10);
    expect(unknown(exprs)).toEqual([]);
  });

  it('alerts.test.yml (promtool’s tests of the rules) tests only alerts of alerts.yml, on series that exist', () => {
    const file = parse(read('infra/prometheus/alerts.test.yml')) as {
      rule_files: string[];
      tests: { input_series: { series: string }[]; alert_rule_test: { alertname: string }[] }[];
    };
    expect(file.rule_files).toEqual(['alerts.yml']);
    const alerts = new Set(rules().map((r) => r.alert));
    const tested = file.tests.flatMap((t) => t.alert_rule_test.map((a) => a.alertname));
    expect(tested.length).toBeGreaterThan(3);
    expect(tested.filter((a) => !alerts.has(a))).toEqual([]);
    expect(unknown(file.tests.flatMap((t) => t.input_series.map((s) => s.series)))).toEqual([]);
  });

  it('every metric and label of the Grafana dashboard exists', () => {
    const exprs = dashboardExprs();
    expect(exprs.flatMap(selectors).length).toBeGreaterThan(10);
    expect(unknown(exprs)).toEqual([]);
  });

  it('the dashboard and the alerts cover what on-call needs', () => {
    const used = new Set(
      [...rules().map((r) => r.expr), ...dashboardExprs()].flatMap(selectors).map((s) => s.name),
    );
    for (const name of [
      'tokenops_intents_total',
      'tokenops_http_requests_total',
      'tokenops_intent_outcome_seconds_bucket',
      'tokenops_projection_lag_events',
      'tokenops_relay_lag_events',
      'tokenops_lease_held',
      'tokenops_queue_jobs',
      'tokenops_job_failures_total',
      'tokenops_webhook_attempts_total',
    ])
      expect(used).toContain(name);
  });

  it('docs/operations.md names every metric of the catalogue, and no other', () => {
    const doc = read('docs/operations.md');
    const named = new Set([...doc.matchAll(/\btokenops_[a-z_]+\b/g)].map((m) => m[0]));
    expect([...named].filter((n) => !known.has(n))).toEqual([]);
    const own = [...createMetrics('catalogue').registry.getMetricsAsArray()]
      .map((m) => (m as unknown as { name: string }).name)
      .filter((n) => n.startsWith('tokenops_'));
    expect(own.filter((n) => !named.has(n))).toEqual([]);
  });
});
