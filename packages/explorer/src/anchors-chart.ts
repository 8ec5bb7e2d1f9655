import { h, type ComponentChild } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

const WHOLE = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000];

/**
 * Operations per anchor over the anchors a page shows, drawn by uPlot (a charting library: no chart code of
 * our own). The canvas says nothing to a screen reader, so the figure carries the same numbers as text.
 */
export function OperationsChart(props: {
  points: Array<{ transactionNumber: number; operations: number }>;
}): ComponentChild {
  const target = useRef<HTMLDivElement>(null);
  const points = [...props.points].sort((a, b) => a.transactionNumber - b.transactionNumber);
  useEffect(() => {
    if (target.current === null || points.length === 0) return undefined;
    const chart = new uPlot(
      {
        width: Math.min(target.current.clientWidth || 640, 960),
        height: 220,
        scales: { x: { time: false } },
        // Whole numbers only: both are counts.
        axes: [
          { label: 'transaction number', incrs: WHOLE },
          { label: 'operations', incrs: WHOLE },
        ],
        series: [
          {},
          {
            label: 'operations',
            stroke: '#0b57d0',
            fill: 'rgba(11, 87, 208, 0.15)',
            paths: uPlot.paths.bars?.({ size: [0.6, 40] }),
            points: { show: false },
          },
        ],
        legend: { show: false },
      },
      [points.map((p) => p.transactionNumber), points.map((p) => p.operations)],
      target.current,
    );
    return () => chart.destroy();
  }, [props.points]);
  const summary = points.map((p) => `anchor ${p.transactionNumber}: ${p.operations}`).join(', ');
  return h('figure', { class: 'chart' }, [
    h('div', { ref: target, role: 'img', 'aria-label': `Operations per anchor: ${summary}` }),
    h('figcaption', null, `Operations per anchor (${summary})`),
  ]);
}
