import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

/** One point of a curve: a cost (`metric`, in `unit`) at a size (DIDs, or log entries). */
export interface CurvePoint {
  metric: string;
  size: number;
  value: number;
  /** What the size counts: the node's DIDs or the log's entries. */
  of: 'DIDs' | 'log entries';
}

/**
 * The scale bench's curves as an SVG: one small chart per cost, the size on a log-scale x axis, each with
 * its own y scale (a flat line is a cost that does not grow). Rendered by Vega-Lite through Vega's SVG
 * renderer (no browser, no canvas).
 */
export async function renderCurvesSvg(points: readonly CurvePoint[], title: string): Promise<string> {
  const spec: vegaLite.TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: points.map((point) => ({ ...point })) },
    facet: { field: 'metric', type: 'nominal', title: null, sort: null },
    columns: 3,
    resolve: { scale: { y: 'independent', x: 'independent' } },
    spec: {
      width: 220,
      height: 130,
      mark: { type: 'line', point: true },
      encoding: {
        x: {
          field: 'size',
          type: 'quantitative',
          scale: { type: 'log' },
          axis: { title: null, format: '~s', tickCount: 4 },
        },
        y: { field: 'value', type: 'quantitative', scale: { zero: true }, axis: { title: null, format: '~s' } },
        color: { field: 'of', type: 'nominal', title: 'size counts' },
      },
    },
  };
  const compiled = vegaLite.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
