import { h, type ComponentChild } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/**
 * One series over time, drawn by uPlot and updated in place as points arrive (no redraw of the whole
 * chart). The canvas says nothing to a screen reader: the figure's caption gives the latest value as text.
 */
export function TimeChart(props: {
  id: string;
  title: string;
  /** Seconds since the page opened. */
  times: number[];
  values: Array<number | null>;
  latest: string;
  /** The span of the time axis, ending at the newest point, so a first point does not stretch it to years. */
  windowSeconds: number;
}): ComponentChild {
  const target = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  useEffect(() => {
    if (target.current === null) return undefined;
    chart.current = new uPlot(
      {
        width: Math.min(target.current.clientWidth || 560, 560),
        height: 160,
        scales: {
          x: {
            time: false,
            range: (_chart, _min, max) => [Math.max(max - props.windowSeconds, 0), Math.max(max, props.windowSeconds)],
          },
        },
        series: [{}, { label: props.title, stroke: '#0b57d0', width: 2, spanGaps: true }],
        axes: [{ label: 'seconds since the page opened' }, { size: 60 }],
        legend: { show: false },
      },
      [props.times, props.values],
      target.current,
    );
    return () => chart.current?.destroy();
  }, []);
  useEffect(() => {
    chart.current?.setData([props.times, props.values]);
  }, [props.times, props.values]);
  return h('figure', { class: 'chart', id: props.id }, [
    h('div', { ref: target, role: 'img', 'aria-label': `${props.title}: ${props.latest}` }),
    h('figcaption', null, `${props.title}: ${props.latest}`),
  ]);
}
