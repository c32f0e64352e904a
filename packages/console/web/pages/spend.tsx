/**
 * Spend over time (GET /orchestrator/groups/{group}/spend): confirmed spends by agent or by recipient
 * over 24 hours or 7 days, drawn by uPlot; the totals beside it are the service's exact text.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, ok, type Schemas } from '../api';
import { Address, Failure, Loading, Section, short, useLoad, type Names } from '../ui';

type Spend = Schemas['SpendResponse'];
type Series = Spend['agents'];

const COLOURS = ['#0b5cad', '#a40e26', '#116329', '#8250df', '#bc4c00', '#1b7c83'];

function Chart({
  spend,
  series,
  title,
  names,
  base,
}: {
  spend: Spend;
  series: Series;
  title: string;
  names: Names;
  base: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const width = Math.max(280, Math.min(box.current.clientWidth, 1100));
    // Numbers for drawing only: the amounts shown as text are the service's own.
    const data: uPlot.AlignedData = [
      spend.buckets.map((b) => Date.parse(b) / 1000),
      ...series.map((s) => s.amounts.map(Number)),
    ];
    const plot = new uPlot(
      {
        title,
        width,
        height: 220,
        series: [
          {},
          ...series.map((s, i) => ({
            label: names[s.key] ?? short(s.key),
            stroke: COLOURS[i % COLOURS.length]!,
            width: 2,
          })),
        ],
        axes: [{}, { size: 70, label: base }],
      },
      data,
      box.current,
    );
    return () => plot.destroy();
  }, [spend, series, title, names, base]);
  return <div class="chart" ref={box} role="img" aria-label={title} />;
}

export function SpendChart({
  group,
  refresh,
  names,
  base,
}: {
  group: string;
  refresh?: number;
  names: Names;
  base: string;
}) {
  const [window, setWindow] = useState<'24h' | '7d'>('24h');
  const [by, setBy] = useState<'agents' | 'recipients'>('agents');
  const spend = useLoad(
    () =>
      ok(api.GET('/orchestrator/groups/{group}/spend', { params: { path: { group }, query: { window } } })),
    [group, window, refresh],
  );
  const series = spend.data?.[by] ?? [];
  const title = `Confirmed spend by ${by === 'agents' ? 'agent' : 'recipient'}, last ${window === '24h' ? '24 hours' : '7 days'}`;
  return (
    <Section title="Spend over time">
      <div class="actions" role="group" aria-label="Chart">
        <button type="button" aria-pressed={window === '24h'} onClick={() => setWindow('24h')}>
          24 hours
        </button>
        <button type="button" aria-pressed={window === '7d'} onClick={() => setWindow('7d')}>
          7 days
        </button>
        <button type="button" aria-pressed={by === 'agents'} onClick={() => setBy('agents')}>
          By agent
        </button>
        <button type="button" aria-pressed={by === 'recipients'} onClick={() => setBy('recipients')}>
          By recipient
        </button>
      </div>
      {spend.loading && <Loading what="the spend" />}
      <Failure error={spend.error} />
      {spend.data && series.length === 0 && <p>No confirmed spend in this window.</p>}
      {spend.data && series.length > 0 && (
        <>
          <Chart spend={spend.data} series={series} title={title} names={names} base={base} />
          <table>
            <caption class="visually-hidden">{title}: totals</caption>
            <thead>
              <tr>
                <th scope="col">{by === 'agents' ? 'Agent' : 'Recipient'}</th>
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {series.map((s) => (
                <tr key={s.key}>
                  <td>
                    <Address id={s.key} names={names} />
                  </td>
                  <td data-testid={`spend-total-${s.key}`}>
                    {s.total} {base}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}
